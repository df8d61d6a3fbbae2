import Foundation

/// A value as the store keeps it: one of SQLite's storage classes.
///
/// Rows, change sets and snapshots carry attribute values as `StoredValue`s, so
/// they cross isolation domains and reach the store without boxing or `Any`.
///
/// ```swift
/// let title: StoredValue = "Dune".storedValue   // .text("Dune")
/// let year = StoredValue.integer(1965)
/// ```
public enum StoredValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether the value is SQL `NULL`.
    @inlinable public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension StoredValue {
    /// A storage class with a value (every case but `.null`).
    package enum Kind: UInt8, Sendable {
        case integer, real, text, blob
    }
}

extension AttributeType {
    /// The storage class Strata writes for a value of this type.
    package var storageKind: StoredValue.Kind {
        switch self {
        case .bool, .int, .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint, .uint64: .integer
        case .double, .float, .date: .real
        case .string, .url, .decimal, .codable, .uuid: .text
        case .data: .blob
        }
    }
}

extension StoredValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): String(reflecting: value)
        case .blob(let value): "<\(value.count) bytes>"
        }
    }
}

extension StoredValue: Codable {
    private enum CodingKeys: String, CodingKey { case null, integer, real, text, blob }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let value = try container.decodeIfPresent(Int64.self, forKey: .integer) {
            self = .integer(value)
        } else if let value = try container.decodeIfPresent(Double.self, forKey: .real) {
            self = .real(value)
        } else if let value = try container.decodeIfPresent(String.self, forKey: .text) {
            self = .text(value)
        } else if let value = try container.decodeIfPresent(Data.self, forKey: .blob) {
            self = .blob(value)
        } else {
            self = .null
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .null: try container.encode(true, forKey: .null)
        case .integer(let value): try container.encode(value, forKey: .integer)
        case .real(let value): try container.encode(value, forKey: .real)
        case .text(let value): try container.encode(value, forKey: .text)
        case .blob(let value): try container.encode(value, forKey: .blob)
        }
    }
}
