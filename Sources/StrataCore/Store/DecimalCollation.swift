import Foundation

/// Orders decimal text by numeric value, so `Decimal` attributes (stored as
/// text, so no digit is lost) sort numerically in every store: SQLite stores
/// register it as the `strata_decimal` collation.
///
/// Plain decimal notation (`-12.50`, `0.001`, `42`, what `Decimal.description`
/// writes) is compared digit by digit without parsing; anything else is parsed
/// with `Decimal(string:)`, and text that is no number sorts after every number,
/// by code point.
///
/// ```swift
/// DecimalCollation.compare("9.5", "10")      // .orderedAscending
/// DecimalCollation.compare("-2", "-10.25")   // .orderedDescending
/// ```
package enum DecimalCollation {
    package static let name = "strata_decimal"

    package static func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        switch (PlainDecimal(lhs), PlainDecimal(rhs)) {
        case (let a?, let b?):
            return a.compare(b)
        default:
            let a = parse(lhs), b = parse(rhs)
            switch (a, b) {
            case (let a?, let b?): return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
            case (nil, nil): return StoredValueOrder.compareBytes(lhs.utf8, rhs.utf8)
            case (nil, _): return .orderedDescending
            case (_, nil): return .orderedAscending
            }
        }
    }
}

extension DecimalCollation {
    /// The value of text that is entirely a number in scientific notation
    /// (`1.5e3`); `Decimal(string:)` alone would also read a number's prefix.
    fileprivate static func parse(_ text: String) -> Decimal? {
        var bytes = Substring(text).utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return nil }
        }
        guard bytes.isEmpty else { return nil }
        return Decimal(string: text, locale: nil)
    }
}

/// A number in plain decimal notation, split into sign, integer digits
/// (without leading zeros) and fraction digits (without trailing zeros).
private struct PlainDecimal {
    var negative: Bool
    var integer: Substring.UTF8View
    var fraction: Substring.UTF8View

    init?(_ text: String) {
        var rest = Substring(text)
        negative = rest.hasPrefix("-")
        if negative || rest.hasPrefix("+") { rest = rest.dropFirst() }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, !(first.isEmpty && parts.count == 1) else { return nil }
        let fractionPart = parts.count > 1 ? parts[1] : Substring()
        guard first.utf8.allSatisfy(Self.isDigit), fractionPart.utf8.allSatisfy(Self.isDigit),
              !(first.isEmpty && fractionPart.isEmpty) else { return nil }
        integer = first.drop { $0 == "0" }.utf8
        var significant = fractionPart
        while significant.last == "0" { significant = significant.dropLast() }
        fraction = significant.utf8
        if integer.isEmpty && fraction.isEmpty { negative = false }   // -0 is 0
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    func compare(_ other: PlainDecimal) -> ComparisonResult {
        if negative != other.negative { return negative ? .orderedAscending : .orderedDescending }
        let magnitude = compareMagnitude(other)
        guard negative else { return magnitude }
        switch magnitude {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    private func compareMagnitude(_ other: PlainDecimal) -> ComparisonResult {
        if integer.count != other.integer.count {
            return integer.count < other.integer.count ? .orderedAscending : .orderedDescending
        }
        let integers = StoredValueOrder.compareBytes(integer, other.integer)
        if integers != .orderedSame { return integers }
        return StoredValueOrder.compareBytes(fraction, other.fraction)
    }
}
