import Foundation
import NIOCore
import PostgresNIO
import StrataCore

// Reading result cells as stored values. Every cell of every fetched row comes
// through here, so the column types Strata's tables use are read straight from
// their binary form; anything else goes through postgres-nio's decoding.

extension PostgresSession {
    /// A cell as a stored value, by its column's type.
    static func value(_ cell: PostgresCell) throws(StrataError) -> StoredValue {
        guard let bytes = cell.bytes else { return .null }
        if cell.format == .binary, let value = binaryValue(bytes, type: cell.dataType.rawValue) { return value }
        if cell.format == .binary, cell.dataType == .numeric {
            // Read here: postgres-nio's own reading stops the process on a
            // number `Decimal` cannot hold, or one of over 131,000 digits.
            guard let text = numericText(bytes), let decimal = Decimal(string: text) else {
                throw StrataError(
                    .corruptStore,
                    "PostgreSQL returned a number in column \(cell.columnName) that Decimal cannot hold (not a number, infinite or out of range)")
            }
            return .text(decimal.description)
        }
        do {
            switch cell.dataType {
            case .int8, .int4, .int2: return .integer(try cell.decode(Int64.self))
            case .float8, .float4: return .real(try cell.decode(Double.self))
            case .bytea: return .blob(Data(buffer: bytes))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .numeric: return .text(try cell.decode(Decimal.self).description)
            default: return .text(try cell.decode(String.self))
            }
        } catch {
            throw StrataError(.corruptStore, "PostgreSQL returned a value Strata cannot read in column \(cell.columnName): \(error)")
        }
    }

    /// An integer cell (keys, versions, counts); NULL reads as nil.
    static func integer(_ cell: PostgresCell) throws(StrataError) -> Int64? {
        guard case .integer(let value) = try value(cell) else { return nil }
        return value
    }

    /// The first two cells of each row as integers (a key and a version,
    /// typically); rows without two are skipped.
    static func integerPairs(_ rows: [PostgresRow]) throws(StrataError) -> [(Int64, Int64)] {
        var pairs: [(Int64, Int64)] = []
        pairs.reserveCapacity(rows.count)
        for row in rows {
            var cells = row.makeIterator()
            guard let first = try cells.next().flatMap({ cell throws(StrataError) in try integer(cell) }),
                  let second = try cells.next().flatMap({ cell throws(StrataError) in try integer(cell) })
            else { continue }
            pairs.append((first, second))
        }
        return pairs
    }

    /// The value of a binary cell of a type Strata's tables use; nil for other
    /// types, or a length that does not fit (postgres-nio's decoding then says why).
    static func binaryValue(_ bytes: ByteBuffer, type: UInt32) -> StoredValue? {
        let start = bytes.readerIndex, length = bytes.readableBytes
        switch type {
        case ObjectType.int8 where length == 8: return bytes.getInteger(at: start, as: Int64.self).map { .integer($0) }
        case ObjectType.int4 where length == 4: return bytes.getInteger(at: start, as: Int32.self).map { .integer(Int64($0)) }
        case ObjectType.int2 where length == 2: return bytes.getInteger(at: start, as: Int16.self).map { .integer(Int64($0)) }
        case ObjectType.float8 where length == 8:
            return bytes.getInteger(at: start, as: UInt64.self).map { .real(Double(bitPattern: $0)) }
        case ObjectType.float4 where length == 4:
            return bytes.getInteger(at: start, as: UInt32.self).map { .real(Double(Float(bitPattern: $0))) }
        case ObjectType.bool where length == 1: return bytes.getInteger(at: start, as: UInt8.self).map { .integer($0 == 0 ? 0 : 1) }
        case ObjectType.text, ObjectType.varchar: return bytes.getString(at: start, length: length).map { .text($0) }
        case ObjectType.bytea: return .blob(Data(buffer: bytes))
        default: return nil
        }
    }

    /// A binary `numeric` in decimal digits; nil for NaN, the infinities, a
    /// malformed value, or one beyond `Decimal`'s range (a power of ten of
    /// about 165), whose digits are not worth spelling out.
    ///
    /// The format: digit count, weight (the power of 10,000 of the first
    /// digit), sign, display scale, then the base-10,000 digits.
    static func numericText(_ bytes: ByteBuffer) -> String? {
        let start = bytes.readerIndex
        guard bytes.readableBytes >= 8,
              let count = bytes.getInteger(at: start, as: Int16.self),
              let weight = bytes.getInteger(at: start + 2, as: Int16.self),
              let sign = bytes.getInteger(at: start + 4, as: UInt16.self),
              let scale = bytes.getInteger(at: start + 6, as: UInt16.self),
              count >= 0, bytes.readableBytes == 8 + 2 * Int(count),
              sign == 0 || sign == 0x4000, abs(Int(weight)) <= 64, scale <= 1_000 else { return nil }
        guard count > 0 else { return "0" }
        var digits = ""
        for index in 0..<Int(count) {
            guard let digit = bytes.getInteger(at: start + 8 + 2 * index, as: Int16.self), (0...9_999).contains(digit) else { return nil }
            let text = String(digit)
            digits += String(repeating: "0", count: 4 - text.count) + text
        }
        // Digits before the point: (weight + 1) groups, padded with zeros.
        let integerCount = (Int(weight) + 1) * 4
        var integer: String, fraction: String
        if integerCount <= 0 {
            integer = "0"
            fraction = String(repeating: "0", count: -integerCount) + digits
        } else if integerCount >= digits.count {
            integer = digits + String(repeating: "0", count: integerCount - digits.count)
            fraction = ""
        } else {
            integer = String(digits.prefix(integerCount))
            fraction = String(digits.dropFirst(integerCount))
        }
        fraction = String(fraction.prefix(Int(scale)))
        let number = fraction.isEmpty ? integer : integer + "." + fraction
        return sign == 0x4000 ? "-" + number : number
    }

    /// PostgreSQL's object identifiers of the types read above (`pg_type.oid`),
    /// as plain constants: `PostgresDataType`'s are initialised lazily, and
    /// checked at each use.
    private enum ObjectType {
        static let bool: UInt32 = 16
        static let bytea: UInt32 = 17
        static let int8: UInt32 = 20
        static let int2: UInt32 = 21
        static let int4: UInt32 = 23
        static let text: UInt32 = 25
        static let float4: UInt32 = 700
        static let float8: UInt32 = 701
        static let varchar: UInt32 = 1043
    }
}
