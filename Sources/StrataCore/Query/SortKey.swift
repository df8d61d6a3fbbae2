import Foundation

/// One key of a fetch request's order, as both the store and a context's
/// pending changes apply it: a key path, a direction, and how its stored
/// values compare.
///
/// SQL orders stored values, so an in-memory sort that orders the same stored
/// values the same way gives the same result: raw-value enums by their raw
/// value, decimals numerically, strings by the collation their comparator asks for.
///
/// ```swift
/// let keys = try compiler.sortKeys([SortDescriptor(\Book.title)])
/// keys[0].collation   // .binary
/// ```
package struct SortKey {
    /// How two stored values of a key compare beyond SQLite's storage-class order.
    package enum Collation: Sendable, Hashable {
        /// Numbers numerically, text by code point, blobs byte-wise (`BINARY`).
        case binary
        /// Text with ASCII letters folded to lower case (SQLite's `NOCASE`).
        case asciiCaseInsensitive
        /// Decimal text by numeric value (Strata's `strata_decimal` collation).
        case decimal

        /// The collation's SQL name.
        var sqlName: String {
            switch self {
            case .binary: "BINARY"
            case .asciiCaseInsensitive: "NOCASE"
            case .decimal: DecimalCollation.name
            }
        }
    }

    package let keyPath: AnyKeyPath
    package let ascending: Bool
    /// nil for keys whose SQL order needs no collation (numbers, dates).
    package let collation: Collation?

    /// Compares two objects by this key, as SQL does.
    package func compare<T: PersistentModel>(_ lhs: T, _ rhs: T) -> ComparisonResult {
        let left = Self.storedValue(of: lhs, at: keyPath)
        let right = Self.storedValue(of: rhs, at: keyPath)
        let result = StoredValueOrder.compare(left, right, collation: collation ?? .binary)
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    private static func storedValue<T: PersistentModel>(of object: T, at keyPath: AnyKeyPath) -> StoredValue {
        guard let value = object[keyPath: keyPath] else { return .null }
        return (try? StrataCore.storedValue(forPredicateValue: value)) ?? .null
    }
}

extension Array where Element == SortKey {
    /// Sorts objects by these keys, ties kept in their original order.
    package func sort<T: PersistentModel>(_ objects: inout [T]) {
        guard !isEmpty else { return }
        let keyed = objects.enumerated().sorted { lhs, rhs in
            for key in self {
                switch key.compare(lhs.element, rhs.element) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return lhs.offset < rhs.offset
        }
        objects = keyed.map(\.element)
    }
}

/// SQLite's order of stored values: NULL, then numbers (integers and reals
/// compared by value), then text (by collation), then blobs (byte-wise).
package enum StoredValueOrder {
    package static func compare(_ lhs: StoredValue, _ rhs: StoredValue, collation: SortKey.Collation) -> ComparisonResult {
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

    static func compareText(_ lhs: String, _ rhs: String, collation: SortKey.Collation) -> ComparisonResult {
        switch collation {
        case .binary:
            return compareBytes(lhs.utf8, rhs.utf8)
        case .asciiCaseInsensitive:
            return compareBytes(lhs.utf8.lazy.map(asciiLowercased), rhs.utf8.lazy.map(asciiLowercased))
        case .decimal:
            return DecimalCollation.compare(lhs, rhs)
        }
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte
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
