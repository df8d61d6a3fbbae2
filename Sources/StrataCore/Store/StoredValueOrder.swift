import Foundation

/// The order of stored values every store keeps (SQLite's): NULL, then numbers
/// (integers and reals compared by value), then text (by collation), then
/// blobs (byte-wise).
///
/// ```swift
/// StoredValueOrder.compare(.integer(2), .real(2.5), collation: .binary)   // .orderedAscending
/// StoredValueOrder.compare(.text("B"), .text("a"), collation: .folded)   // .orderedDescending
/// ```
package enum StoredValueOrder {
    package static func compare(_ lhs: StoredValue, _ rhs: StoredValue, collation: Collation) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.integer(let a), .integer(let b)): return order(a, b)
        case (.integer(let a), .real(let b)): return compareMixed(a, b)
        case (.real(let a), .integer(let b)): return invert(compareMixed(b, a))
        case (.real(let a), .real(let b)): return order(a, b)
        case (.integer, _), (.real, _): return .orderedAscending
        case (_, .integer), (_, .real): return .orderedDescending
        case (.text(let a), .text(let b)): return compareText(a, b, collation: collation)
        case (.text, _): return .orderedAscending
        case (_, .text): return .orderedDescending
        case (.blob(let a), .blob(let b)): return compareBytes(a, b)
        }
    }

    static func compareText(_ lhs: String, _ rhs: String, collation: Collation) -> ComparisonResult {
        switch collation {
        case .binary:
            return compareBytes(lhs.utf8, rhs.utf8)
        case .folded:
            return TextFolding.compareFolded(lhs, rhs)
        case .decimal:
            return DecimalCollation.compare(lhs, rhs)
        }
    }

    static func compareBytes<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ lhs: A, _ rhs: B) -> ComparisonResult {
        var left = lhs.makeIterator(), right = rhs.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case (let a?, let b?): if a != b { return a < b ? .orderedAscending : .orderedDescending }
            }
        }
    }

    private static func order<V: Comparable>(_ lhs: V, _ rhs: V) -> ComparisonResult {
        lhs < rhs ? .orderedAscending : (lhs == rhs ? .orderedSame : .orderedDescending)
    }

    /// An integer against a real, exactly (as SQLite compares them).
    private static func compareMixed(_ integer: Int64, _ real: Double) -> ComparisonResult {
        if real.isNaN { return .orderedDescending }
        if real >= 9.223372036854775807e18 { return .orderedAscending }
        if real < -9.223372036854775808e18 { return .orderedDescending }
        let truncated = Int64(real.rounded(.down))
        if integer != truncated { return order(integer, truncated) }
        return Double(truncated) == real ? .orderedSame : .orderedAscending
    }

    private static func invert(_ result: ComparisonResult) -> ComparisonResult {
        switch result {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
