import GRDBSQLite

/// A minimal wrapper over the SQLite C API for the `raw` library: one
/// connection, prepared statements, columns read by index.
final class RawConnection {
    let handle: OpaquePointer

    /// Opens (creating if needed) a WAL database with the same pragmas GRDB's
    /// `DatabasePool` uses (WAL, `synchronous = NORMAL`).
    init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            throw RawError(message: "cannot open \(path)")
        }
        handle = db
        try execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
    }

    func close() { sqlite3_close_v2(handle) }

    /// Runs SQL without results.
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &error) != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw RawError(message: message)
        }
    }

    /// The key of the row the last insert made.
    func lastInsertedKey() throws -> Int64 { sqlite3_last_insert_rowid(handle) }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement else {
            throw RawError(message: String(cString: sqlite3_errmsg(handle)))
        }
        return RawStatement(statement, connection: self)
    }

    /// Runs `body` in one `BEGIN IMMEDIATE … COMMIT` transaction.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

/// A prepared statement; bind, step, read columns by index, reset.
final class RawStatement {
    let handle: OpaquePointer
    unowned let connection: RawConnection
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ handle: OpaquePointer, connection: RawConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ value: Int, at index: Int32) { sqlite3_bind_int64(handle, index, Int64(value)) }
    func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }
    func bind(_ value: String, at index: Int32) { sqlite3_bind_text(handle, index, value, -1, Self.transient) }

    /// Steps once; true while a row is available.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw RawError(message: String(cString: sqlite3_errmsg(connection.handle)))
        }
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: text)
    }

    /// Binds the 13 columns of `row` in `ItemSchema.columns` order.
    func bind(_ row: ItemRow) {
        bind(row.id, at: 1)
        bind(row.i0, at: 2); bind(row.i1, at: 3); bind(row.i2, at: 4); bind(row.i3, at: 5); bind(row.i4, at: 6)
        bind(row.i5, at: 7); bind(row.i6, at: 8); bind(row.i7, at: 9); bind(row.i8, at: 10); bind(row.i9, at: 11)
        bind(row.score, at: 12)
        bind(row.name, at: 13)
    }

    /// Decodes the current row (columns in `ItemSchema.columns` order).
    func item() -> ItemRow {
        ItemRow(id: int64(0), i0: int(1), i1: int(2), i2: int(3), i3: int(4), i4: int(5), i5: int(6), i6: int(7),
                i7: int(8), i8: int(9), i9: int(10), score: double(11), name: string(12))
    }
}

struct RawError: Error, CustomStringConvertible {
    let message: String
    var description: String { "SQLite: \(message)" }
}
