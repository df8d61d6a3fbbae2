import Foundation

/// Encodes attribute values by name as JSON text, so history stays readable
/// with any database tool and survives schema changes. The shape is
/// `StoredValue`'s `Codable` one (`{"title":{"text":"Dune"}}`).
///
/// Encoding is written out by hand because it runs for every change of large
/// saves, where `JSONEncoder` doubled the cost of a delete; decoding (reads)
/// uses `JSONDecoder`.
package struct HistoryValueCoder {
    private let decoder: JSONDecoder

    package init() {
        decoder = JSONDecoder()
        // Doubles may be NaN or infinite; JSON has no spelling for them.
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
    }

    package func encode(_ values: [String: StoredValue]) -> StoredValue {
        var json = "{"
        for (position, name) in values.keys.sorted().enumerated() {
            if position > 0 { json += "," }
            Self.appendString(name, to: &json)
            json += ":"
            switch values[name]! {
            case .null:
                json += #"{"null":true}"#
            case .integer(let value):
                json += #"{"integer":\#(value)}"#
            case .real(let value):
                if value.isNaN {
                    json += #"{"real":"nan"}"#
                } else if value.isInfinite {
                    json += value < 0 ? #"{"real":"-inf"}"# : #"{"real":"+inf"}"#
                } else {
                    // Swift prints the shortest text that reads back as the same Double.
                    json += #"{"real":\#(value)}"#
                }
            case .text(let text):
                json += #"{"text":"#
                Self.appendString(text, to: &json)
                json += "}"
            case .blob(let data):
                json += #"{"blob":"\#(data.base64EncodedString())"}"#
            }
        }
        json += "}"
        return .text(json)
    }

    package func decode(_ value: StoredValue) throws -> [String: StoredValue]? {
        guard case .text(let text) = value else { return nil }
        return try decoder.decode([String: StoredValue].self, from: Data(text.utf8))
    }

    /// Appends a JSON string literal, escaping quotes, backslashes and control characters.
    private static func appendString(_ string: String, to json: inout String) {
        json += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }
}
