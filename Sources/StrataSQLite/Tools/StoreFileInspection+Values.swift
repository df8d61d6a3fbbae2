import Foundation
import StrataCore
import GRDBSQLite

extension StoreFileInspection {
    /// Steps a query with bound `arguments`, handing each row's values (in
    /// their storage classes) to `body`.
    func forEachRow(
        _ connection: OpaquePointer, _ sql: String, arguments: [StoredValue] = [],
        _ body: ([StoredValue]) throws(StrataError) -> Void
    ) throws(StrataError) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw StrataError(.corruptStore, "\(fileName) cannot be read (\(String(cString: sqlite3_errmsg(connection))))")
        }
        defer { sqlite3_finalize(statement) }
        for (index, argument) in arguments.enumerated() {
            let position = Int32(index + 1)
            switch argument {
            case .null: sqlite3_bind_null(statement, position)
            case .integer(let value): sqlite3_bind_int64(statement, position, value)
            case .real(let value): sqlite3_bind_double(statement, position, value)
            case .text(let value):
                // With its length: text may hold NUL characters.
                var text = value
                text.withUTF8 { bytes in
                    _ = bytes.withMemoryRebound(to: CChar.self) { chars in
                        if let base = chars.baseAddress {
                            sqlite3_bind_text(statement, position, base, Int32(chars.count), sqliteTransient)
                        } else {
                            sqlite3_bind_text(statement, position, "", 0, sqliteTransient)
                        }
                    }
                }
            case .blob(let value):
                _ = value.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(statement, position, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
                }
            }
        }
        let count = sqlite3_column_count(statement)
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return }
            guard step == SQLITE_ROW else {
                throw StrataError(.corruptStore, "\(fileName) cannot be read (\(String(cString: sqlite3_errmsg(connection))))")
            }
            var row: [StoredValue] = []
            row.reserveCapacity(Int(count))
            for column in 0..<count {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT:
                    let length = Int(sqlite3_column_bytes(statement, column))
                    row.append(.text(sqlite3_column_text(statement, column).map {
                        String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self)
                    } ?? ""))
                case SQLITE_BLOB:
                    let length = Int(sqlite3_column_bytes(statement, column))
                    row.append(.blob(sqlite3_column_blob(statement, column).map { Data(bytes: $0, count: length) } ?? Data()))
                default: row.append(.null)
                }
            }
            try body(row)
        }
    }
}

extension StoreFileInspection {
    /// Registers on a connection of its own what a store's schema and the
    /// tools' queries name: `strata_fold` (folded indexes are built on it, and
    /// SQLite's integrity check computes them) and the `strata_decimal` and
    /// `strata_folded` collations, with the same Swift code the store uses.
    static func registerFunctions(on connection: OpaquePointer) {
        sqlite3_create_function_v2(
            connection, TextMatchingFunctions.name(of: .folded), 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, values in
                guard let context, let value = values?[0] else { return }
                // Only text changes: NULL stays NULL, and a number or blob is not text to fold.
                guard sqlite3_value_type(value) == SQLITE_TEXT, let bytes = sqlite3_value_text(value) else {
                    sqlite3_result_value(context, value)
                    return
                }
                let text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
                var folded = TextTransform.folded.apply(text)
                folded.withUTF8 { utf8 in
                    utf8.withMemoryRebound(to: CChar.self) { chars in
                        if let base = chars.baseAddress {
                            sqlite3_result_text(context, base, Int32(chars.count), sqliteTransient)
                        } else {
                            sqlite3_result_text(context, "", 0, sqliteTransient)
                        }
                    }
                }
            }, nil, nil, nil)
        sqlite3_create_collation_v2(connection, DecimalCollation.name, SQLITE_UTF8, nil, { _, leftCount, left, rightCount, right in
            Int32(DecimalCollation.compare(collated(left, leftCount), collated(right, rightCount)).rawValue)
        }, nil)
        sqlite3_create_collation_v2(connection, TextMatchingFunctions.collationName, SQLITE_UTF8, nil, { _, leftCount, left, rightCount, right in
            Int32(TextFolding.compareFolded(collated(left, leftCount), collated(right, rightCount)).rawValue)
        }, nil)
    }
}

/// The text a collation is given.
private func collated(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
    String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
}

/// SQLite copies a value bound with this destructor before the call returns.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
