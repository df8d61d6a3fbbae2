/// The type of a persistent attribute, as recorded in the schema.
///
/// Each Swift type a model may store maps to one `AttributeType`, which fixes
/// the storage class its values are written in and how they convert.
///
/// ```swift
/// let year = AttributeDescription(name: "year", type: .int)
/// ```
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    case bool, int, int8, int16, int32, int64, uint8, uint16, uint32
    /// `UInt` and `UInt64`: stored as integers, so values up to `Int64.max`
    /// (the largest integer a store keeps); a larger value fails its save.
    case uint, uint64
    case double, float, string, date, data, uuid, url, decimal
    /// A `Codable` value stored as JSON text.
    case codable
}

extension AttributeType {
    /// `UInt` or `UInt64`: an unsigned type whose values may exceed the
    /// largest integer a store keeps (see `WideUnsigned`).
    package var isWideUnsigned: Bool { self == .uint || self == .uint64 }
}
