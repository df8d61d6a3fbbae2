import Foundation
import StrataCore
import GRDB
import GRDBSQLite

extension Database {
    /// Runs `body` holding the connection's SQLite mutex.
    ///
    /// With SQLite in its serialized threading mode (the usual build), every
    /// API call locks the connection's recursive mutex; holding it across a loop
    /// of steps, binds and column reads turns each of those into a re-entry by
    /// the owning thread, with no atomic operation. The connection is this
    /// thread's anyway while GRDB runs the access, so no one else waits longer.
    /// Without a mutex (multi-thread mode) this does nothing.
    func holdingConnectionMutex<T>(_ body: () throws -> T) rethrows -> T {
        guard let connection = sqliteConnection, let mutex = sqlite3_db_mutex(connection) else { return try body() }
        sqlite3_mutex_enter(mutex)
        defer { sqlite3_mutex_leave(mutex) }
        return try body()
    }
}

/// Binding and reading values on a prepared statement with the SQLite C API,
/// so hot paths pay no per-row allocation or dictionary lookup.
struct RawStatement {
    let handle: SQLiteStatement
    let database: Database

    init(_ statement: Statement, in database: Database) {
        self.handle = statement.sqliteStatement
        self.database = database
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds a value at a 1-based index. Throws when SQLite refuses the value
    /// (a text or data value over its length limit), which would otherwise
    /// leave the parameter NULL.
    func bind(_ value: StoredValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, index, real)
        case .text(let text):
            var text = text
            code = text.withUTF8 { buffer in
                sqlite3_bind_text64(handle, index, buffer.baseAddress, UInt64(buffer.count), Self.transient, UInt8(SQLITE_UTF8))
            }
        case .blob(let blob):
            code = blob.withUnsafeBytes { buffer in
                sqlite3_bind_blob64(handle, index, buffer.baseAddress, UInt64(buffer.count), Self.transient)
            }
        }
        guard code == SQLITE_OK else { throw bindingFailure(code, value) }
    }

    func bind(_ values: [StoredValue], startingAt first: Int32 = 1) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: first + Int32(offset))
        }
    }

    private func bindingFailure(_ code: Int32, _ value: StoredValue) -> DatabaseError {
        let size = switch value {
        case .text(let text): "a text of \(text.utf8.count) bytes"
        case .blob(let blob): "a data value of \(blob.count) bytes"
        default: "a value"
        }
        let limit = sqlite3_limit(sqlite3_db_handle(handle), SQLITE_LIMIT_LENGTH, -1)
        return DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: "SQLite cannot store \(size) (its limit is \(limit) bytes); nothing was written",
            sql: sqlite3_sql(handle).map { String(cString: $0) })
    }

    /// Steps once; true when a row is available.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
            let sql = sqlite3_sql(handle).map { String(cString: $0) }
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
    }

    /// Runs a statement that returns no rows.
    func execute() throws {
        defer { reset() }
        while try step() {}
    }

    func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    /// The value of a column of the current row, by 0-based index.
    ///
    /// One `sqlite3_column_value` and then the value's own accessors, which
    /// neither lock nor check the connection again: two column calls a value
    /// cost twice that. The value is unprotected, which is safe here: the
    /// connection is this thread's alone while GRDB runs the access.
    @inline(__always)
    func value(at column: Int32) -> StoredValue {
        guard let value = sqlite3_column_value(handle, column) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            // `sqlite3_value_text` before `sqlite3_value_bytes`, as SQLite advises.
            guard let bytes = sqlite3_value_text(value) else { return .text("") }
            let count = Int(sqlite3_value_bytes(value))
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_value_blob(value) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: Int(sqlite3_value_bytes(value))))
        default: return .null
        }
    }
}
