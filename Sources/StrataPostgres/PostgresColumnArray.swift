import Foundation
import NIOCore
import PostgresNIO
import StrataCore

/// One column of many rows bound as one binary array, so an insert of any
/// number of rows is one statement with one value per column:
/// `INSERT INTO t (…) SELECT * FROM unnest($1::bigint[], $2::text[], …)`.
///
/// ```swift
/// let titles = PostgresColumnArray(sqlType: "text", values: [.text("Dune"), .null])
/// ```
struct PostgresColumnArray: PostgresDynamicTypeEncodable, Sendable {
    enum Element {
        case integer, real, text, blob
    }

    let element: Element
    let values: [StoredValue]

    /// nil when the SQL type is not one an array is bound as here, or a value
    /// is not of its kind or too large for PostgreSQL (the caller binds the
    /// rows one value each instead).
    init?(sqlType: String, values: [StoredValue]) {
        switch sqlType {
        case "bigint": element = .integer
        case "double precision": element = .real
        case "text": element = .text
        case "bytea": element = .blob
        default: return nil
        }
        // Larger arrays go as rows of values, in statements of a size they can
        // be sent in, and a value too large for PostgreSQL is refused there.
        var bytes = 0
        for value in values {
            switch (value, element) {
            case (.null, _), (.integer, .integer), (.real, .real): continue
            case (.text(let text), .text): bytes += text.utf8.count
            case (.blob(let data), .blob): bytes += data.count
            default: return nil
            }
            if bytes > PostgresSession.statementByteBudget { return nil }
        }
        self.values = values
    }

    var psqlType: PostgresDataType {
        switch element {
        case .integer: .int8Array
        case .real: .float8Array
        case .text: .textArray
        case .blob: .byteaArray
        }
    }

    var psqlFormat: PostgresFormat { .binary }

    private var elementType: PostgresDataType {
        switch element {
        case .integer: .int8
        case .real: .float8
        case .text: .text
        case .blob: .bytea
        }
    }

    /// PostgreSQL's binary array: dimensions, a NULL flag, the element type,
    /// the length and lower bound, then each element's length (-1: NULL) and bytes.
    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(Int32(1))
        buffer.writeInteger(Int32(values.contains(where: \.isNull) ? 1 : 0))
        buffer.writeInteger(elementType.rawValue)
        buffer.writeInteger(Int32(values.count))
        buffer.writeInteger(Int32(1))
        for value in values {
            switch value {
            case .null:
                buffer.writeInteger(Int32(-1))
            case .integer(let number):
                buffer.writeInteger(Int32(8))
                buffer.writeInteger(number)
            case .real(let number):
                buffer.writeInteger(Int32(8))
                buffer.writeInteger(number.bitPattern)
            case .text(let text):
                buffer.writeInteger(Int32(text.utf8.count))
                buffer.writeString(text)
            case .blob(let data):
                buffer.writeInteger(Int32(data.count))
                buffer.writeBytes(data)
            }
        }
    }
}
