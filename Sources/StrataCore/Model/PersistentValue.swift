import Foundation

/// A Swift type a model can store directly in a column.
///
/// Strata's built-in conformances cover `Bool`, the integer types up to 64 bits
/// (signed and unsigned), `Double`, `Float`, `String`, `Date`, `Data`, `UUID`, `URL`,
/// `Decimal` and optionals of these. Other `Codable` types are stored as JSON, and
/// `RawRepresentable` types by their raw value, without conforming to this protocol.
///
/// ```swift
/// let stored = 42.storedValue          // .integer(42)
/// let back = Int(storedValue: stored)  // 42
/// ```
public protocol PersistentValue: Codable {
    /// The attribute type recorded in the schema.
    static var attributeType: AttributeType { get }
    /// Whether `nil` is a valid value (true only for optionals).
    static var isOptionalValue: Bool { get }
    /// The value read back from the store. Returns `nil` when the stored value
    /// cannot represent this type.
    init?(storedValue: StoredValue)
    /// The value as the store keeps it.
    var storedValue: StoredValue { get }
}

extension PersistentValue {
    @inlinable public static var isOptionalValue: Bool { false }
}

extension Bool: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .bool }
    @inlinable public init?(storedValue: StoredValue) {
        guard case .integer(let value) = storedValue else { return nil }
        self = value != 0
    }
    @inlinable public var storedValue: StoredValue { .integer(self ? 1 : 0) }
}

/// The integer a stored value holds, when it fits `I` exactly.
@inlinable @inline(__always)
func storedInteger<I: FixedWidthInteger>(_ stored: StoredValue, as type: I.Type) -> I? {
    guard case .integer(let value) = stored else { return nil }
    return I(exactly: value)
}

extension Int: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .int }
    @inlinable public init?(storedValue: StoredValue) {
        guard let value = storedInteger(storedValue, as: Int.self) else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { .integer(Int64(self)) }
}

extension Int8: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .int8 }
    @inlinable public init?(storedValue: StoredValue) {
        guard let value = storedInteger(storedValue, as: Int8.self) else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { .integer(Int64(self)) }
}

extension Int16: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .int16 }
    @inlinable public init?(storedValue: StoredValue) {
        guard let value = storedInteger(storedValue, as: Int16.self) else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { .integer(Int64(self)) }
}

extension Int32: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .int32 }
    @inlinable public init?(storedValue: StoredValue) {
        guard let value = storedInteger(storedValue, as: Int32.self) else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { .integer(Int64(self)) }
}

extension Int64: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .int64 }
    @inlinable public init?(storedValue: StoredValue) {
        guard let value = storedInteger(storedValue, as: Int64.self) else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { .integer(Int64(self)) }
}

extension UInt8: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .uint8 }
    @inlinable public init?(storedValue: StoredValue) {
        guard let value = storedInteger(storedValue, as: UInt8.self) else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { .integer(Int64(self)) }
}

extension UInt16: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .uint16 }
    @inlinable public init?(storedValue: StoredValue) {
        guard let value = storedInteger(storedValue, as: UInt16.self) else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { .integer(Int64(self)) }
}

extension UInt32: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .uint32 }
    @inlinable public init?(storedValue: StoredValue) {
        guard let value = storedInteger(storedValue, as: UInt32.self) else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { .integer(Int64(self)) }
}

/// Stores keep 64-bit signed integers, so an unsigned value is stored as the
/// integer it equals. A value above `Int64.max` cannot be stored: it is held
/// as its decimal text until a save refuses it with `.validation`; it never
/// wraps to a negative number.
extension UInt: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .uint }
    @inlinable public init?(storedValue: StoredValue) {
        guard let wide = WideUnsigned.value(of: storedValue), let value = UInt(exactly: wide) else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { WideUnsigned.storedValue(UInt64(self)) }
}

extension UInt64: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .uint64 }
    @inlinable public init?(storedValue: StoredValue) {
        guard let value = WideUnsigned.value(of: storedValue) else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { WideUnsigned.storedValue(self) }
}

/// How `UInt` and `UInt64` values map to stored integers.
///
/// Values up to `Int64.max` are stored as that integer, so they compare,
/// sort, sum and index by value in SQL. Larger values have no integer a store
/// keeps; an object holds one as its decimal text (which reads back exactly)
/// and its save fails with `.validation`. The text never matches a stored row,
/// and sorts above every number, as the value is above every stored one.
///
/// ```swift
/// UInt64(7).storedValue          // .integer(7)
/// UInt64.max.storedValue         // .text("18446744073709551615"), refused on save
/// ```
@usableFromInline package enum WideUnsigned {
    /// The stored form of an unsigned value.
    @inlinable package static func storedValue(_ value: UInt64) -> StoredValue {
        if let integer = Int64(exactly: value) { return .integer(integer) }
        return .text(String(value))
    }

    /// The unsigned value a stored value holds: a non-negative integer, or the
    /// text of a value above `Int64.max` that an unsaved object holds.
    @inlinable package static func value(of stored: StoredValue) -> UInt64? {
        switch stored {
        case .integer(let integer): return UInt64(exactly: integer)
        case .text(let text):
            guard let value = UInt64(text), value > UInt64(Int64.max) else { return nil }
            return value
        default: return nil
        }
    }

    /// Whether a value of a `UInt` or `UInt64` attribute can be stored.
    package static func fits(_ stored: StoredValue) -> Bool {
        if case .text = stored { return false }
        return true
    }

    /// What a save says of a value above `Int64.max`.
    package static let refusal = "holds a value above 9223372036854775807 (Int64.max), the largest integer a store keeps"
}

extension Double: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .double }
    @inlinable public init?(storedValue: StoredValue) {
        switch storedValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
    @inlinable public var storedValue: StoredValue { .real(self) }
}

extension Float: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .float }
    @inlinable public init?(storedValue: StoredValue) {
        guard let value = Double(storedValue: storedValue) else { return nil }
        self = Float(value)
    }
    @inlinable public var storedValue: StoredValue { .real(Double(self)) }
}

extension String: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .string }
    @inlinable public init?(storedValue: StoredValue) {
        guard case .text(let value) = storedValue else { return nil }
        self = value
    }
    /// Text is stored in Unicode's composed form (NFC), so strings Swift
    /// calls equal ("é" as one scalar or as "e" and an accent) are equal in
    /// the store too, and the store's byte order is Swift's `<`.
    @inlinable public var storedValue: StoredValue { .text(CanonicalText.composed(self)) }
}

/// Puts text in Unicode's canonical composed form (NFC), as Swift compares it.
@usableFromInline package enum CanonicalText {
    /// `text` in NFC; ASCII text (most text) is returned as it is, unscanned
    /// beyond its bytes.
    @usableFromInline package static func composed(_ text: String) -> String {
        var text = text
        let isASCII = text.withUTF8 { bytes in bytes.allSatisfy { $0 < 0x80 } }
        return isASCII ? text : text.precomposedStringWithCanonicalMapping
    }
}

extension Date: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .date }
    /// Dates are stored as seconds since 1 January 2001 (a `REAL`), the number
    /// a `Date` holds itself, so every date reads back exactly as it was set;
    /// SQL comparisons and sorting follow time order.
    @inlinable public init?(storedValue: StoredValue) {
        guard let seconds = Double(storedValue: storedValue) else { return nil }
        self = Date(timeIntervalSinceReferenceDate: seconds)
    }
    @inlinable public var storedValue: StoredValue { .real(timeIntervalSinceReferenceDate) }
}

extension Data: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .data }
    @inlinable public init?(storedValue: StoredValue) {
        guard case .blob(let value) = storedValue else { return nil }
        self = value
    }
    @inlinable public var storedValue: StoredValue { .blob(self) }
}

extension UUID: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .uuid }
    @inlinable public init?(storedValue: StoredValue) {
        guard case .text(let value) = storedValue, let uuid = UUID(uuidString: value) else { return nil }
        self = uuid
    }
    @inlinable public var storedValue: StoredValue { .text(uuidString) }
}

extension URL: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .url }
    @inlinable public init?(storedValue: StoredValue) {
        guard case .text(let value) = storedValue, let url = URL(string: value) else { return nil }
        self = url
    }
    @inlinable public var storedValue: StoredValue { .text(absoluteString) }
}

extension Decimal: PersistentValue {
    @inlinable public static var attributeType: AttributeType { .decimal }
    /// Decimals are stored as text so no digit is lost.
    @inlinable public init?(storedValue: StoredValue) {
        guard case .text(let value) = storedValue, let decimal = Decimal(string: value, locale: nil) else {
            return nil
        }
        self = decimal
    }
    @inlinable public var storedValue: StoredValue { .text(description) }
}

extension Optional: PersistentValue where Wrapped: PersistentValue {
    @inlinable public static var attributeType: AttributeType { Wrapped.attributeType }
    @inlinable public static var isOptionalValue: Bool { true }
    @inlinable public init?(storedValue: StoredValue) {
        if case .null = storedValue {
            self = .none
        } else if let value = Wrapped(storedValue: storedValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
    @inlinable public var storedValue: StoredValue {
        switch self {
        case .none: .null
        case .some(let value): value.storedValue
        }
    }
}
