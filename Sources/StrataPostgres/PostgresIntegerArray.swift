import NIOCore
import PostgresNIO

/// Integers bound as one binary `bigint[]`, written in one pass over the
/// values (the generic array encoding goes through a protocol per element):
/// keys, and the versions that go with them.
///
/// ```swift
/// let keys = PostgresIntegerArray([3, 5, 8])
/// let versions = PostgresIntegerArray(optionals: [2, nil, 7])   // NULL where nil
/// ```
struct PostgresIntegerArray: PostgresDynamicTypeEncodable, Sendable {
    private let values: [Int64]
    /// Which values are NULL; nil when none is.
    private let nulls: [Bool]?

    init(_ values: [Int64]) {
        self.values = values
        nulls = nil
    }

    init(optionals: [Int64?]) {
        values = optionals.map { $0 ?? 0 }
        nulls = optionals.contains(nil) ? optionals.map { $0 == nil } : nil
    }

    var psqlType: PostgresDataType { .int8Array }
    var psqlFormat: PostgresFormat { .binary }

    /// PostgreSQL's binary array: dimensions, a NULL flag, the element type,
    /// the length and lower bound, then each element's length (-1: NULL) and bytes.
    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(Int32(1))
        buffer.writeInteger(Int32(nulls == nil ? 0 : 1))
        buffer.writeInteger(PostgresDataType.int8.rawValue)
        buffer.writeInteger(Int32(values.count))
        buffer.writeInteger(Int32(1))
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: values.count * 12) { bytes in
            var offset = 0
            for index in values.indices {
                if let nulls, nulls[index] {
                    bytes.storeBytes(of: Int32(-1).bigEndian, toByteOffset: offset, as: Int32.self)
                    offset += 4
                } else {
                    bytes.storeBytes(of: Int32(8).bigEndian, toByteOffset: offset, as: Int32.self)
                    bytes.storeBytes(of: values[index].bigEndian, toByteOffset: offset + 4, as: Int64.self)
                    offset += 12
                }
            }
            return offset
        }
    }
}
