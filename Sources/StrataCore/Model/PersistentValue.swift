import Foundation

/// A Swift type a model can store directly in a column.
///
/// Strata's built-in conformances cover `Bool`, the integer types up to 64 bits
/// (unsigned up to 32), `Double`, `Float`, `String`, `Date`, `Data`, `UUID`, `URL`,
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
