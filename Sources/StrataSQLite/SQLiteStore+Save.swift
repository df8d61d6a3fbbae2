import StrataCore
import StrataSQL
import GRDB
import GRDBSQLite
import Synchronization

/// Thrown inside the write closure when an update or delete found its row at
/// another version (or gone): the transaction rolls back and the save runs
/// again with the full checks, which collect every conflict.
private struct VersionMismatch: Error {}

extension SQLiteStore {
    /// Writes a context's changes as one transaction: all or nothing.
    ///
    /// Inserted rows get primary keys from the store's sequence; foreign keys to
    /// rows inserted by the same save are filled in once those keys are known.
    /// On success, observers receive the committed change set.
    ///
    /// Versions are checked by the writes themselves (`… WHERE pk = ? AND
    /// _version = ?`); only when one of them misses does the save roll back and
    /// run again, reading every expected row first to report all conflicts.
    func save(_ request: SaveRequest, origin: ObjectIdentifier?) throws(StrataError) -> SaveResult {
        if isReadOnly {
            throw StrataError(.readOnlyStore, "The store is read-only; nothing was saved")
        }
        let result: SaveResult
        do {
            do {
                result = try writer.write { db in
                    try db.holdingConnectionMutex { try self.write(request, origin: origin, checkFirst: false, in: db) }
                }
            } catch is VersionMismatch {
                rerunSaves.add(1, ordering: .relaxed)
                result = try writer.write { db in
                    try db.holdingConnectionMutex { try self.write(request, origin: origin, checkFirst: true, in: db) }
                }
            }
        } catch let abort as ConflictAbort {
            return SaveResult(changes: ChangeSet(storeIdentifier: identifier), conflicts: abort.conflicts)
        } catch {
            throw Self.translate(error)
        }
        didCommit(result.changes)
        return result
    }

    /// Counts a commit of this store instance and tells its observers (also
    /// of commits that changed no row, such as metadata alone).
    func didCommit(_ changes: ChangeSet) {
        ownCommitCount.add(1, ordering: .relaxed)
        for observer in observers.current() {
            observer.store(self, didCommit: changes)
        }
    }

    private func write(_ request: SaveRequest, origin: ObjectIdentifier?, checkFirst: Bool, in db: Database) throws -> SaveResult {
        // Checked in the write transaction, so no other save can slip in between.
        let executor = SQLiteWriteExecutor(store: self, db: db)
        guard let result = try SaveWriter.write(
            request, origin: origin, checkFirst: checkFirst, of: self, in: executor,
            recordingHistory: { changes, previous in try recordHistory(of: changes, previous: previous, in: db) })
        else { throw VersionMismatch() }
        if !result.conflicts.isEmpty { throw ConflictAbort(conflicts: result.conflicts) }
        return result
    }
}

/// A save's row writes on the SQLite store: one cached statement per entity
/// (or column set), its values bound row by row.
extension SQLiteWriteExecutor {
    func reserveKeys(entityIndex: Int, count: Int64) throws -> Int64 {
        try store.reserveKeyBlock(entityIndex: entityIndex, count: count, in: db)
    }

    func insertRows(entityIndex: Int, keys: [Int64], rows: [[StoredValue]]) throws {
        let statement = RawStatement(try db.cachedStatement(sql: store.layout.entities[entityIndex].insertSQL), in: db)
        for (key, values) in zip(keys, rows) {
            statement.reset()
            try statement.bind(.integer(key), at: 1)
            try statement.bind(values, startingAt: 2)
            try statement.execute()
        }
    }

    func updateRows(_ updates: [RowUpdate], checked: Bool) throws -> [Int64?] {
        guard let first = updates.first else { return [] }
        let versioned = first.expectedVersion != nil
        let sql = store.layout.updateSQL(entityIndex: first.entityIndex, columns: first.columns, checkingVersion: versioned)
        let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
        var versions: [Int64?] = []
        versions.reserveCapacity(updates.count)
        for update in updates {
            let values = update.values
            statement.reset()
            if let expected = update.expectedVersion {
                // `UPDATE … SET _version = ?, … WHERE pk = ? AND _version = ?`
                try statement.bind(.integer(expected + 1), at: 1)
                try statement.bind(values, startingAt: 2)
                try statement.bind(.integer(update.primaryKey), at: Int32(values.count + 2))
                try statement.bind(.integer(expected), at: Int32(values.count + 3))
                try statement.execute()
                guard sqlite3_changes(sqlite3_db_handle(statement.handle)) > 0 else {
                    versions.append(nil)
                    if !checked { return versions }
                    continue
                }
                versions.append(expected + 1)
            } else {
                // `UPDATE … SET _version = _version + 1, … WHERE pk = ? RETURNING _version`
                try statement.bind(values)
                try statement.bind(.integer(update.primaryKey), at: Int32(values.count + 1))
                versions.append(try statement.step() ? statement.int64(at: 0) : nil)
                statement.reset()
            }
        }
        return versions
    }

    func deleteRows(
        entityIndex: Int, _ rows: ArraySlice<RowDelete>, checked: Bool, whileDeleting: () -> Void
    ) throws -> Bool {
        guard let emptied = try emptyTable(of: entityIndex, ifDeleting: rows, checked: checked) else { return false }
        return emptied ? true : try deleteInChunks(of: entityIndex, rows, checked: checked)
    }

    func writeMetadata(_ metadata: [String: StoredValue?]) throws {
        try store.writeAppMetadata(metadata, in: db)
    }

    /// Rows per `DELETE … WHERE pk IN (…)`.
    static let deleteChunkSize = 500

    /// `DELETE … WHERE pk IN (…) RETURNING pk, _version` by chunks of keys;
    /// false when a first attempt found a row at another version or gone.
    private func deleteInChunks(of entityIndex: Int, _ deletes: ArraySlice<RowDelete>, checked: Bool) throws -> Bool {
        let table = store.layout.entities[entityIndex].table
        var statement: (count: Int, statement: RawStatement)?
        var chunkStart = deletes.startIndex
        while chunkStart < deletes.endIndex {
            let chunk = deletes[chunkStart..<min(chunkStart + Self.deleteChunkSize, deletes.endIndex)]
            chunkStart = chunk.endIndex
            if statement?.count != chunk.count {
                let placeholders = String(repeating: "?, ", count: chunk.count - 1) + "?"
                let sql = "DELETE FROM \(table) WHERE pk IN (\(placeholders)) RETURNING pk, \(StorageNaming.versionColumn)"
                statement = (chunk.count, RawStatement(try db.cachedStatement(sql: sql), in: db))
            }
            let delete = statement!.statement
            delete.reset()
            for (offset, row) in chunk.enumerated() { sqlite3_bind_int64(delete.handle, Int32(offset + 1), row.primaryKey) }
            var deleted = 0
            var mismatch = false
            while try delete.step() {
                deleted += 1
                guard !checked else { continue }
                let key = delete.int64(at: 0)
                let version = delete.int64(at: 1)
                if let expected = Self.expectedVersion(of: key, in: chunk), expected != version { mismatch = true }
            }
            delete.reset()
            if !checked, mismatch || (deleted != chunk.count && chunk.contains { $0.expectedVersion != nil }) {
                return false
            }
        }
        return true
    }

    /// Saves that delete at least this many rows of one entity check whether
    /// they delete the whole table.
    static let wholeTableDeleteMinimum = 1_000

    /// Empties the entity's table with one `DELETE` when `deletes` (sorted by
    /// primary key) are exactly the rows it holds, at the versions they expect
    /// (nil, having changed nothing, when a first attempt finds one at another).
    ///
    /// Without a `WHERE` clause SQLite drops the table's pages instead of
    /// visiting each row (for tables no foreign key involves; others still go
    /// row by row, with their foreign-key actions). Returns false, having
    /// changed nothing, when the table holds other rows or misses some.
    private func emptyTable(of entityIndex: Int, ifDeleting deletes: ArraySlice<RowDelete>, checked: Bool) throws -> Bool? {
        guard deletes.count >= Self.wholeTableDeleteMinimum else { return false }
        let table = store.layout.entities[entityIndex].table
        let count = try store.integers("SELECT count(*) FROM \(table)", [], in: db).first ?? 0
        guard count == deletes.count else { return false }
        // Same count, so the tables match when every stored key is one of ours.
        let rows = RawStatement(
            try db.cachedStatement(sql: "SELECT pk, \(StorageNaming.versionColumn) FROM \(table) ORDER BY pk"), in: db)
        rows.reset()
        defer { rows.reset() }
        var next = deletes.startIndex
        while try rows.step() {
            guard next < deletes.endIndex, deletes[next].primaryKey == rows.int64(at: 0) else { return false }
            if !checked, let expected = deletes[next].expectedVersion, expected != rows.int64(at: 1) { return nil }
            next += 1
        }
        try db.cachedStatement(sql: "DELETE FROM \(table)").execute()
        return true
    }

    /// The expected version of a row of a chunk sorted by primary key.
    private static func expectedVersion(of key: Int64, in chunk: ArraySlice<RowDelete>) -> Int64? {
        var low = chunk.startIndex
        var high = chunk.endIndex
        while low < high {
            let middle = (low + high) / 2
            if chunk[middle].primaryKey < key { low = middle + 1 } else { high = middle }
        }
        guard low < chunk.endIndex, chunk[low].primaryKey == key else { return nil }
        return chunk[low].expectedVersion
    }

}

extension SQLiteStore {
    /// Takes `count` primary keys of one entity from the sequence table; returns the first.
    func reserveKeyBlock(entityIndex: Int, count: Int64, in db: Database) throws -> Int64 {
        let select = RawStatement(
            try db.cachedStatement(sql: "SELECT max_pk FROM \(StorageNaming.sequenceTable) WHERE entity = ?"), in: db)
        let upsert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO \(StorageNaming.sequenceTable) (entity, max_pk) VALUES (?, ?)
            ON CONFLICT(entity) DO UPDATE SET max_pk = excluded.max_pk
            """), in: db)
        let name = schema.entities[entityIndex].name
        select.reset()
        try select.bind(.text(name), at: 1)
        let current = try select.step() ? select.int64(at: 0) : 0
        select.reset()
        let (last, overflow) = current.addingReportingOverflow(count)
        guard !overflow, current >= 0 else { throw StrataError.keysExhausted(entity: name, at: current) }
        upsert.reset()
        try upsert.bind([.text(name), .integer(last)])
        try upsert.execute()
        return current + 1
    }
}
