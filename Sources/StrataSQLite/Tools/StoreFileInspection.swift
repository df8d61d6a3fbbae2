import Foundation
import StrataCore
import StrataSQL
import GRDBSQLite

/// Looks at a store file before anything opens it for writing, changing
/// nothing: not a byte of the file, and no `-wal` or `-shm` beside it.
///
/// It reads through SQLite's `immutable` mode (no locks, no side files) on a
/// connection of its own, so a file that fails a check is refused exactly as
/// it was found. A file with a `-wal` or `-shm` beside it is open elsewhere
/// (or was, by a process that stopped): its latest rows may be in the WAL and
/// its pages may be changing, so it is read through an ordinary read-only
/// connection instead, which takes SQLite's locks and reads the WAL; the
/// file itself is still not written.
///
/// ```swift
/// switch try StoreFileInspection(url: url).examine(readOnly: false, verifiesIntegrity: true) {
/// case .missing: …                 // create a new store
/// case .store(let identifier): …   // open it
/// }
/// ```
struct StoreFileInspection {
    enum Finding {
        /// No store yet: no file, or an empty one.
        case missing
        /// A Strata store this version can open, with this identifier and
        /// metadata, and the column names of each of its tables.
        case store(identifier: String, metadata: StoreMetadata, columns: [String: Set<String>])
    }

    let url: URL

    var fileName: String { url.lastPathComponent }

    /// The store the tools read: ``examine(readOnly:verifiesIntegrity:)``,
    /// where finding none is an error that says what is there instead.
    func requireStore() throws(StrataError) -> (identifier: String, metadata: StoreMetadata, tables: [String: Set<String>]) {
        guard case .store(let identifier, let metadata, let tables) = try examine(readOnly: true, verifiesIntegrity: false) else {
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            let reason = if !FileManager.default.fileExists(atPath: url.path) {
                "nothing is there"
            } else if size == 0 {
                "the file is empty"
            } else {
                "it is a SQLite database without tables"
            }
            throw StrataError(.invalidStoreLocation, "\(url.path) is not a Strata store: \(reason)")
        }
        return (identifier, metadata, tables)
    }

    func examine(readOnly: Bool, verifiesIntegrity: Bool) throws(StrataError) -> Finding {
        let path = url.path
        try refuseDanglingLink()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .missing }
        if isDirectory.boolValue {
            throw StrataError(.invalidStoreLocation, "\(path) is not a Strata store: it is a folder")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if size == 0 { return .missing }
        let header = FileHandle(forReadingAtPath: path).flatMap { handle in
            defer { try? handle.close() }
            return try? handle.read(upToCount: 100)
        }
        guard let header, header.count == 100, header.prefix(16) == Data("SQLite format 3\0".utf8) else {
            throw StrataError(.corruptStore, "\(fileName) is not a Strata store: it is not a SQLite database; it was left untouched")
        }
        // The page size is bytes 16–17 (big-endian; 1 means 65536). A file that
        // is not a whole number of pages was cut short or padded.
        let rawPageSize = Int(header[16]) << 8 | Int(header[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0, size % pageSize == 0 else {
            throw StrataError(
                .corruptStore, "\(fileName) is damaged: its size is not a whole number of pages; it was left untouched")
        }
        // Bytes 18–19: the file format's write and read versions, 1 for a
        // rollback journal and 2 for a write-ahead log, which Strata's stores keep.
        let (writeVersion, readVersion) = (header[18], header[19])
        guard (1...2).contains(writeVersion), (1...2).contains(readVersion) else {
            throw StrataError(
                .corruptStore,
                "\(fileName) is damaged: its header names file format versions \(writeVersion) and \(readVersion); it was left untouched")
        }
        if !readOnly, writeVersion != 2 || readVersion != 2 {
            // Opening it for writing would switch it to WAL mode, rewriting its header.
            throw StrataError(
                .incompatibleStore,
                "\(fileName) is not in write-ahead-log mode (another program changed it); open it read-only, or run "
                    + "PRAGMA journal_mode = WAL on it first; it was left untouched")
        }
        return try withInspectionConnection { connection throws(StrataError) in
            if verifiesIntegrity { try quickCheck(connection) }
            let tables = try strings(connection, "SELECT name FROM sqlite_master WHERE type = 'table'")
            guard tables.contains(StorageNaming.metadataTable) else {
                if tables.isEmpty { return .missing }
                throw StrataError(
                    .incompatibleStore, "\(fileName) is a SQLite database that Strata did not create; it was left untouched")
            }
            var values: [String: String] = [:]
            let pairs = try strings(connection, "SELECT key, value FROM \(StorageNaming.metadataTable)", columns: 2)
            for pair in stride(from: 0, to: pairs.count - 1, by: 2) { values[pairs[pair]] = pairs[pair + 1] }
            let metadata = try StoreMetadata(values)
            // The schema is compared by the caller, which may migrate it.
            try metadata.checkFormat(fileName: fileName, readOnly: readOnly)
            var columns: [String: Set<String>] = [:]
            for table in tables {
                // Names as SQLite parses them from the stored schema text, which no page check reads.
                let info = try strings(connection, "SELECT name FROM pragma_table_info(\(sqlTextLiteral(table)))")
                columns[table] = Set(info)
            }
            return .store(identifier: metadata.storeIdentifier, metadata: metadata, columns: columns)
        }
    }

    /// A link at the store's path whose target does not exist would make a
    /// new store appear somewhere else: refused, never followed silently.
    private func refuseDanglingLink() throws(StrataError) {
        let path = url.path
        guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
              !FileManager.default.fileExists(atPath: path) else { return }
        throw StrataError(
            .invalidStoreLocation,
            "\(fileName) is a symbolic link to \(destination), which does not exist; Strata does not create a store through it")
    }

    /// `PRAGMA quick_check`: every page readable and well formed; then
    /// `PRAGMA foreign_key_check`: every relationship names a row that exists
    /// (a key scribbled over in a row passes the page check, and an object
    /// whose related row is missing could not be read).
    private func quickCheck(_ connection: OpaquePointer) throws(StrataError) {
        let results = try strings(connection, "PRAGMA quick_check")
        guard results == ["ok"] else {
            throw StrataError(
                .corruptStore,
                "\(fileName) failed SQLite's integrity check (\(results.prefix(3).joined(separator: "; "))); it was left untouched")
        }
        let dangling = try strings(connection, "SELECT \"table\", rowid FROM pragma_foreign_key_check LIMIT 3", columns: 2)
        guard dangling.isEmpty else {
            let rows = stride(from: 0, to: dangling.count - 1, by: 2).map { "\(dangling[$0]) row \(dangling[$0 + 1])" }
            throw StrataError(
                .corruptStore,
                "\(fileName) is damaged: \(rows.joined(separator: ", ")) relates to a row that does not exist; it was left untouched")
        }
    }

    func withInspectionConnection<T>(_ body: (OpaquePointer) throws(StrataError) -> T) throws(StrataError) -> T {
        let path = url.path
        let inUse = FileManager.default.fileExists(atPath: path + "-wal") || FileManager.default.fileExists(atPath: path + "-shm")
        let uri = URL(fileURLWithPath: path).absoluteString + (inUse ? "" : "?immutable=1")
        var connection: OpaquePointer?
        let opened = sqlite3_open_v2(uri, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        defer { sqlite3_close_v2(connection) }
        guard opened == SQLITE_OK, let connection else {
            throw StrataError(.corruptStore, "\(fileName) could not be read as a SQLite database; it was left untouched")
        }
        // Another process may hold a lock for a moment (creating, checkpointing).
        if inUse { sqlite3_busy_timeout(connection, 10_000) }
        Self.registerFunctions(on: connection)
        return try body(connection)
    }

    /// The text of every column of every row a query returns, row after row.
    func strings(_ connection: OpaquePointer, _ sql: String, columns: Int32 = 1) throws(StrataError) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw damaged(connection)
        }
        defer { sqlite3_finalize(statement) }
        var result: [String] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return result }
            guard step == SQLITE_ROW else { throw damaged(connection) }
            for column in 0..<columns {
                result.append(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
            }
        }
    }

    private func damaged(_ connection: OpaquePointer) -> StrataError {
        let message = String(cString: sqlite3_errmsg(connection))
        return StrataError(.corruptStore, "\(fileName) is damaged (\(message)); it was left untouched")
    }

}
