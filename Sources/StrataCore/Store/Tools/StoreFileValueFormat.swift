import Foundation

/// How the store tools write stored values as text and JSON, and read them
/// back, by attribute type, so that an export imports to the same bytes.
///
/// Exact forms: integers in decimal; floating-point numbers in Swift's
/// shortest form that reads back to the same value (`NaN`, `Infinity`,
/// `-Infinity` as text); dates as the number of seconds since 2001-01-01
/// 00:00:00 UTC, as stored; data in Base64; every text-backed type as its text.
/// Tables show dates in ISO 8601 and data by size instead (``display(_:type:)``).
///
/// ```swift
/// StoreFileValueFormat.text(.real(7.5e-324), type: .double)          // "5e-324"
/// try StoreFileValueFormat.stored(fromText: "true", type: .bool)     // .integer(1)
/// ```
package enum StoreFileValueFormat {
    /// The exact text of a value (nil for NULL).
    package static func text(_ value: StoredValue, type: AttributeType?) -> String? {
        switch value {
        case .null: return nil
        case .integer(let integer): return type == .bool ? (integer != 0 ? "true" : "false") : String(integer)
        case .real(let real): return realText(real)
        case .text(let text): return text
        case .blob(let data): return data.base64EncodedString()
        }
    }

    /// A value as JSON text: numbers and booleans bare, the rest quoted.
    package static func json(_ value: StoredValue, type: AttributeType?) -> String {
        switch value {
        case .null: return "null"
        case .integer(let integer): return type == .bool ? (integer != 0 ? "true" : "false") : String(integer)
        case .real(let real): return real.isFinite ? realText(real) : jsonString(realText(real))
        case .text, .blob: return jsonString(text(value, type: type) ?? "")
        }
    }

    /// A value as a table shows it: dates in ISO 8601, data by size.
    package static func display(_ value: StoredValue, type: AttributeType?) -> String {
        if type == .date, case .real(let seconds) = value, seconds.isFinite {
            return Date(timeIntervalSinceReferenceDate: seconds).formatted(fractionalISO)
        }
        if case .blob(let data) = value { return "\(data.count) bytes" }
        return text(value, type: type) ?? "nil"
    }

    /// The stored value of `type` written as `text` by ``text(_:type:)`` (nil: NULL).
    /// Dates also read from ISO 8601. Throws `.valueConversion` for text that is not one.
    package static func stored(fromText text: String?, type: AttributeType, context: @autoclosure () -> String)
        throws(StrataError) -> StoredValue {
        guard let text else { return .null }
        func failure() -> StrataError {
            StrataError(.valueConversion, "\(context()): \"\(text.prefix(60))\" cannot be read as \(type.rawValue)")
        }
        switch type {
        case .bool:
            switch text.lowercased() {
            case "true", "1": return .integer(1)
            case "false", "0": return .integer(0)
            default: throw failure()
            }
        case .int, .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint, .uint64:
            guard let integer = Int64(text), fits(integer, in: type) else { throw failure() }
            return .integer(integer)
        case .double, .float:
            switch text {
            case "NaN": return .real(.nan)
            case "Infinity": return .real(.infinity)
            case "-Infinity": return .real(-.infinity)
            default:
                guard let real = Double(text) else { throw failure() }
                return .real(real)
            }
        case .date:
            if let seconds = Double(text) { return .real(seconds) }
            guard let date = isoDate(text) else { throw failure() }
            return .real(date.timeIntervalSinceReferenceDate)
        case .data:
            guard let data = Data(base64Encoded: text) else { throw failure() }
            return .blob(data)
        case .string, .url, .uuid, .decimal, .codable:
            return .text(text)
        }
    }

    /// Whether an integer is in range of a fixed-width integer type.
    private static func fits(_ integer: Int64, in type: AttributeType) -> Bool {
        switch type {
        case .int8: Int8(exactly: integer) != nil
        case .int16: Int16(exactly: integer) != nil
        case .int32: Int32(exactly: integer) != nil
        case .uint8: UInt8(exactly: integer) != nil
        case .uint16: UInt16(exactly: integer) != nil
        case .uint32: UInt32(exactly: integer) != nil
        case .uint, .uint64: integer >= 0
        default: true
        }
    }

    private static func realText(_ real: Double) -> String {
        if real.isNaN { return "NaN" }
        if real.isInfinite { return real < 0 ? "-Infinity" : "Infinity" }
        return "\(real)"
    }

    /// `text` as a JSON string literal.
    package static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    private static let fractionalISO = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// A date in ISO 8601: `2026-01-01T09:30:00Z`, with fractional seconds or
    /// another offset, or without a zone (`2026-01-01T09:30`, UTC), or a day
    /// alone (`2026-01-01`, its start in UTC).
    static func isoDate(_ text: String) -> Date? {
        var text = text
        if text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil {
            text += "T00:00:00Z"
        } else if text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/) != nil {
            text += ":00Z"
        } else if text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?/) != nil {
            text += "Z"
        }
        return (try? fractionalISO.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
