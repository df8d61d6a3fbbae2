import Foundation
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
            case .text(let value): sqlite3_bind_text(statement, position, value, -1, sqliteTransient)
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
                case SQLITE_TEXT: row.append(.text(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""))
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

/// SQLite copies a value bound with this destructor before the call returns.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
