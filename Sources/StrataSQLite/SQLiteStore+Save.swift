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
        let check = try SaveChecks(request, schema: schema, versions: checkFirst, in: SQLiteWriteExecutor(store: self, db: db))
        if !check.conflicts.isEmpty { throw ConflictAbort(conflicts: check.conflicts) }
        // Tombstones and old values must be read before any row changes.
        let previous = try PreviousValues(for: request, schema: schema, options: options, in: SQLiteWriteExecutor(store: self, db: db))
        try releaseDeniedKeys(of: request.deletes, in: db)
        var changes = changeSet(author: request.author, contextName: request.contextName, origin: origin)
        changes.inserted.reserveCapacity(request.inserts.count)
        changes.updated.reserveCapacity(request.updates.count)
        changes.deleted.reserveCapacity(request.deletes.count)
        var result = SaveResult(changes: changes)

        // Deletes that free a unique key go before the rows that take it.
        let deletes = DeletePlan(request.deletes, first: check.deletesFirst)
        try deleteRows(deletes.first, checked: checkFirst, into: &result, in: db)
        try writeInserts(request, into: &result, in: db)
        try writeUpdates(request, checked: checkFirst, into: &result, in: db)
        result.changes.toManyChanges += try ToManyWriting.write(
            request, assignedKeys: result.assignedKeys, of: self, in: SQLiteWriteExecutor(store: self, db: db))
        try deleteRows(deletes.rest, checked: checkFirst, into: &result, in: db)
        if !request.metadata.isEmpty { try writeAppMetadata(request.metadata, in: db) }
        result.changes.historyToken = try recordHistory(of: result.changes, previous: previous, in: db)
        return result
    }

    // MARK: - Inserts

    private func writeInserts(_ request: SaveRequest, into result: inout SaveResult, in db: Database) throws {
        guard !request.inserts.isEmpty else { return }
        var next = try reserveKeyBlocks(for: request.inserts, in: db)
        result.insertedKeys.reserveCapacity(request.inserts.count)
        for insert in request.inserts {
            let key = next[insert.entityIndex]
            // Wrapping: the value after a block's last key is never used.
            next[insert.entityIndex] = key &+ 1
            result.insertedKeys.append(key)
        }
        let needsKeyMap = !request.toManyWrites.isEmpty || !request.toManyAppends.isEmpty
            || request.inserts.contains { !$0.pendingReferences.isEmpty }
            || request.updates.contains { !$0.pendingReferences.isEmpty }
        if needsKeyMap {
            result.assignedKeys.reserveCapacity(request.inserts.count)
            for (insert, key) in zip(request.inserts, result.insertedKeys) { result.assignedKeys[insert.temporaryKey] = key }
        }
        // Each entity's statement is looked up once.
        var statements = [RawStatement?](repeating: nil, count: schema.entities.count)
        var ordinals = [[Int]?](repeating: nil, count: schema.entities.count)
        for (insert, key) in zip(request.inserts, result.insertedKeys) {
            let entityIndex = insert.entityIndex
            let statement: RawStatement
            if let cached = statements[entityIndex] {
                statement = cached
            } else {
                statement = RawStatement(try db.cachedStatement(sql: layout.entities[entityIndex].insertSQL), in: db)
                statements[entityIndex] = statement
                ordinals[entityIndex] = schema.entities[entityIndex].columnOrdinals
            }
            var values = insert.values
            if !insert.pendingReferences.isEmpty {
                for reference in insert.pendingReferences {
                    guard let target = result.assignedKeys[reference.temporaryKey] else {
                        throw PendingReference.unsaved
                    }
                    values[reference.column] = .integer(target)
                }
            }
            statement.reset()
            try statement.bind(.integer(key), at: 1)
            try statement.bind(values, startingAt: 2)
            try statement.execute()
            result.changes.inserted.append(ChangeSet.Row(
                objectID: ObjectID(entityName: schema.entities[entityIndex].name, storeIdentifier: identifier, primaryKey: key),
                entity: schema.entities[entityIndex], ordinals: ordinals[entityIndex]!, values: values, version: 1))
        }
    }

    // MARK: - Updates

    private func writeUpdates(_ request: SaveRequest, checked: Bool, into result: inout SaveResult, in db: Database) throws {
        guard !request.updates.isEmpty else { return }
        result.updatedVersions.reserveCapacity(request.updates.count)
        // The statement and ordinals of the last column set: a save usually
        // changes the same columns of many rows.
        var last: (entityIndex: Int, columns: [Int], versioned: Bool, statement: RawStatement, ordinals: [Int])?
        for update in request.updates {
            let entity = schema.entities[update.entityIndex]
            let values = try update.resolvedValues(assignedKeys: result.assignedKeys)
            let versioned = update.expectedVersion != nil
            let current: (entityIndex: Int, columns: [Int], versioned: Bool, statement: RawStatement, ordinals: [Int])
            if let last, last.entityIndex == update.entityIndex, last.versioned == versioned, last.columns == update.columns {
                current = last
            } else {
                let sql = layout.updateSQL(entityIndex: update.entityIndex, columns: update.columns, checkingVersion: versioned)
                current = (update.entityIndex, update.columns, versioned,
                           RawStatement(try db.cachedStatement(sql: sql), in: db),
                           update.columns.map { entity.columnOrdinals[$0] })
                last = current
            }
            let statement = current.statement
            let version: Int64
            statement.reset()
            if let expected = update.expectedVersion {
                // `UPDATE … SET _version = ?, … WHERE pk = ? AND _version = ?`
                version = try nextVersion(after: expected, entityIndex: update.entityIndex, primaryKey: update.primaryKey)
                try statement.bind(.integer(version), at: 1)
                try statement.bind(values, startingAt: 2)
                try statement.bind(.integer(update.primaryKey), at: Int32(values.count + 2))
                try statement.bind(.integer(expected), at: Int32(values.count + 3))
                try statement.execute()
                if sqlite3_changes(sqlite3_db_handle(statement.handle)) == 0 {
                    if !checked { throw VersionMismatch() }
                    throw deletedElsewhere(update.entityIndex, update.primaryKey)
                }
            } else {
                // `UPDATE … SET _version = _version + 1, … WHERE pk = ? RETURNING _version`
                try statement.bind(values)
                try statement.bind(.integer(update.primaryKey), at: Int32(values.count + 1))
                guard try statement.step() else {
                    statement.reset()
                    throw deletedElsewhere(update.entityIndex, update.primaryKey)
                }
                version = statement.int64(at: 0)
                statement.reset()
            }
            result.updatedVersions.append(version)
            result.changes.updated.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: update.primaryKey),
                entity: entity, ordinals: current.ordinals, values: values, version: version))
        }
    }

    private func deletedElsewhere(_ entityIndex: Int, _ primaryKey: Int64) -> StrataError {
        let entity = schema.entities[entityIndex]
        let objectID = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: primaryKey)
        return StrataError(
            .mergeConflict, "\(objectID) was deleted from the store by another context; nothing was saved",
            entityName: entity.name, objectIDs: [objectID])
    }

    // MARK: - Deletes

    /// Rows per `DELETE … WHERE pk IN (…)`.
    static let deleteChunkSize = 500

    /// Deletes rows by entity, in primary-key order, in chunks; checks the
    /// versions of the deleted rows (unless already checked) and records them.
    /// An entity's rows go before those of the entities that cascade to them.
    private func deleteRows(_ deletes: [RowDelete], checked: Bool, into result: inout SaveResult, in db: Database) throws {
        guard !deletes.isEmpty else { return }
        var runs: [(entityIndex: Int, range: Range<Int>)] = []
        var start = 0
        while start < deletes.count {
            let entityIndex = deletes[start].entityIndex
            var end = start + 1
            while end < deletes.count, deletes[end].entityIndex == entityIndex { end += 1 }
            runs.append((entityIndex, start..<end))
            start = end
        }
        if runs.count == 1 || layout.cascadeEdges.isEmpty {
            for run in runs { try deleteRows(of: run.entityIndex, deletes[run.range], checked: checked, into: &result, in: db) }
            return
        }
        var present: [Int] = []
        for run in runs where !present.contains(run.entityIndex) { present.append(run.entityIndex) }
        for entityIndex in ForeignKeyEdge.deletionOrder(of: present, cascades: layout.cascadeEdges) {
            for run in runs where run.entityIndex == entityIndex {
                try deleteRows(of: entityIndex, deletes[run.range], checked: checked, into: &result, in: db)
            }
        }
    }

    /// `deletes` are of one entity, sorted by primary key.
    private func deleteRows(
        of entityIndex: Int, _ deletes: ArraySlice<RowDelete>, checked: Bool, into result: inout SaveResult, in db: Database
    ) throws {
        if try !emptyTable(of: entityIndex, ifDeleting: deletes, checked: checked, in: db) {
            try deleteInChunks(of: entityIndex, deletes, checked: checked, in: db)
        }
        let entityName = schema.entities[entityIndex].name
        for row in deletes {
            result.changes.deleted.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entityName, storeIdentifier: identifier, primaryKey: row.primaryKey),
                entity: schema.entities[entityIndex], ordinals: [], values: [], version: 0))
        }
    }

    /// `DELETE … WHERE pk IN (…) RETURNING pk, _version` by chunks of keys.
    private func deleteInChunks(
        of entityIndex: Int, _ deletes: ArraySlice<RowDelete>, checked: Bool, in db: Database
    ) throws {
        let table = layout.entities[entityIndex].table
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
                throw VersionMismatch()
            }
        }
    }

    /// Saves that delete at least this many rows of one entity check whether
    /// they delete the whole table.
    static let wholeTableDeleteMinimum = 1_000

    /// Empties the entity's table with one `DELETE` when `deletes` (sorted by
    /// primary key) are exactly the rows it holds, at the versions they expect.
    ///
    /// Without a `WHERE` clause SQLite drops the table's pages instead of
    /// visiting each row (for tables no foreign key involves; others still go
    /// row by row, with their foreign-key actions). Returns false, having
    /// changed nothing, when the table holds other rows or misses some.
    private func emptyTable(
        of entityIndex: Int, ifDeleting deletes: ArraySlice<RowDelete>, checked: Bool, in db: Database
    ) throws -> Bool {
        guard deletes.count >= Self.wholeTableDeleteMinimum else { return false }
        let table = layout.entities[entityIndex].table
        let count = try integers("SELECT count(*) FROM \(table)", [], in: db).first ?? 0
        guard count == deletes.count else { return false }
        // Same count, so the tables match when every stored key is one of ours.
        let rows = RawStatement(
            try db.cachedStatement(sql: "SELECT pk, \(StorageNaming.versionColumn) FROM \(table) ORDER BY pk"), in: db)
        rows.reset()
        defer { rows.reset() }
        var next = deletes.startIndex
        while try rows.step() {
            guard next < deletes.endIndex, deletes[next].primaryKey == rows.int64(at: 0) else { return false }
            if !checked, let expected = deletes[next].expectedVersion, expected != rows.int64(at: 1) {
                throw VersionMismatch()
            }
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

    // MARK: - Primary keys

    /// Takes a block of primary keys per entity from the sequence table: the
    /// first key of each entity's block, by entity index (0 for entities without inserts).
    func reserveKeyBlocks(for inserts: [RowInsert], in db: Database) throws -> [Int64] {
        var next = [Int64](repeating: 0, count: schema.entities.count)
        guard !inserts.isEmpty else { return next }
        var counts = [Int64](repeating: 0, count: schema.entities.count)
        for insert in inserts { counts[insert.entityIndex] += 1 }
        let select = RawStatement(
            try db.cachedStatement(sql: "SELECT max_pk FROM \(StorageNaming.sequenceTable) WHERE entity = ?"), in: db)
        let upsert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO \(StorageNaming.sequenceTable) (entity, max_pk) VALUES (?, ?)
            ON CONFLICT(entity) DO UPDATE SET max_pk = excluded.max_pk
            """), in: db)
        for (entityIndex, count) in counts.enumerated() where count > 0 {
            next[entityIndex] = try reserveKeyBlock(entityIndex: entityIndex, count: count, select: select, upsert: upsert)
        }
        return next
    }

    /// Takes `count` primary keys of one entity from the sequence table; returns the first.
    func reserveKeyBlock(entityIndex: Int, count: Int64, in db: Database) throws -> Int64 {
        let select = RawStatement(
            try db.cachedStatement(sql: "SELECT max_pk FROM \(StorageNaming.sequenceTable) WHERE entity = ?"), in: db)
        let upsert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO \(StorageNaming.sequenceTable) (entity, max_pk) VALUES (?, ?)
            ON CONFLICT(entity) DO UPDATE SET max_pk = excluded.max_pk
            """), in: db)
        return try reserveKeyBlock(entityIndex: entityIndex, count: count, select: select, upsert: upsert)
    }

    private func reserveKeyBlock(
        entityIndex: Int, count: Int64, select: RawStatement, upsert: RawStatement
    ) throws -> Int64 {
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

    /// The version an update leaves a row at; a row already at the highest
    /// version (set by another program) is refused rather than wrapped.
    func nextVersion(after expected: Int64, entityIndex: Int, primaryKey: Int64) throws(StrataError) -> Int64 {
        let (next, overflow) = expected.addingReportingOverflow(1)
        guard overflow else { return next }
        let entity = schema.entities[entityIndex]
        let id = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: primaryKey)
        throw StrataError(
            .corruptStore, "A stored \(entity.name) row is at the highest version a row can have; nothing was saved",
            entityName: entity.name, objectIDs: [id])
    }

    /// Takes a block of primary keys per entity from the sequence table (batch inserts).
    func reservePrimaryKeys(for inserts: [RowInsert], in db: Database) throws -> [UInt64: Int64] {
        guard !inserts.isEmpty else { return [:] }
        var next = try reserveKeyBlocks(for: inserts, in: db)
        var keys: [UInt64: Int64] = [:]
        keys.reserveCapacity(inserts.count)
        for insert in inserts {
            let key = next[insert.entityIndex]
            next[insert.entityIndex] = key &+ 1
            keys[insert.temporaryKey] = key
        }
        return keys
    }
}

/// A save's deletes, grouped by entity and sorted by primary key: those that
/// must precede the inserts and updates (they free a unique key), and the rest.
private struct DeletePlan {
    var first: [RowDelete] = []
    var rest: [RowDelete] = []

    init(_ deletes: [RowDelete], first deletesFirst: Set<RowKey>) {
        guard !deletes.isEmpty else { return }
        if deletesFirst.isEmpty {
            rest = Self.ordered(deletes)
        } else {
            first = Self.ordered(deletes.filter { deletesFirst.contains(RowKey($0.entityIndex, $0.primaryKey)) })
            rest = Self.ordered(deletes.filter { !deletesFirst.contains(RowKey($0.entityIndex, $0.primaryKey)) })
        }
    }

    private static func ordered(_ deletes: [RowDelete]) -> [RowDelete] {
        func precedes(_ a: RowDelete, _ b: RowDelete) -> Bool {
            a.entityIndex != b.entityIndex ? a.entityIndex < b.entityIndex : a.primaryKey < b.primaryKey
        }
        var isOrdered = true
        for index in deletes.indices.dropFirst() where precedes(deletes[index], deletes[index - 1]) {
            isOrdered = false
            break
        }
        return isOrdered ? deletes : deletes.sorted(by: precedes)
    }
}
