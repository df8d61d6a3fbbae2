import GRDB
import Synchronization

extension SQLiteStore {
    /// Writes a context's changes as one transaction: all or nothing.
    ///
    /// Inserted rows get primary keys from the store's sequence; foreign keys to
    /// rows inserted by the same save are filled in once those keys are known.
    /// On success, observers receive the committed change set.
    package func save(_ request: SaveRequest, origin: ObjectIdentifier?) throws(StrataError) -> SaveResult {
        if isReadOnly {
            throw StrataError(.readOnlyStore, "The store is read-only; nothing was saved")
        }
        let result: SaveResult
        do {
            result = try writer.write { db in try self.write(request, origin: origin, in: db) }
        } catch let abort as ConflictAbort {
            return SaveResult(changes: ChangeSet(storeIdentifier: identifier), conflicts: abort.conflicts)
        } catch {
            throw Self.translate(error)
        }
        didCommit(result.changes)
        return result
    }

    /// Counts a commit of this store instance and tells its observers.
    package func didCommit(_ changes: ChangeSet) {
        ownCommitCount.add(1, ordering: .relaxed)
        guard !changes.isEmpty else { return }
        for observer in observers.current() {
            observer.store(self, didCommit: changes)
        }
    }

    private func write(_ request: SaveRequest, origin: ObjectIdentifier?, in db: Database) throws -> SaveResult {
        // Checked in the write transaction, so no other save can slip in between.
        let check = try checkBeforeWriting(request, in: db)
        if !check.conflicts.isEmpty { throw ConflictAbort(conflicts: check.conflicts) }
        // Tombstones and old values must be read before any row changes.
        let previous = try capturePreviousValues(for: request, in: db)
        var changes = ChangeSet(storeIdentifier: identifier)
        changes.author = request.author
        changes.contextName = request.contextName
        changes.originToken = origin
        var result = SaveResult(changes: changes)
        result.assignedKeys = try reservePrimaryKeys(for: request.inserts, in: db)

        func resolve(_ values: [StoredValue], _ pending: [PendingReference]) throws -> [StoredValue] {
            guard !pending.isEmpty else { return values }
            var values = values
            for reference in pending {
                guard let key = result.assignedKeys[reference.temporaryKey] else {
                    throw StrataError(.validation, "A relationship points to an object that is not being saved")
                }
                values[reference.column] = .integer(key)
            }
            return values
        }

        for delete in request.deletes where check.deletesFirst(delete) {
            try deleteRow(delete, into: &result, in: db)
        }

        for insert in request.inserts {
            let entity = schema.entities[insert.entityIndex]
            let statement = RawStatement(try db.cachedStatement(sql: layout.entities[insert.entityIndex].insertSQL), in: db)
            let key = result.assignedKeys[insert.temporaryKey]!
            let values = try resolve(insert.values, insert.pendingReferences)
            statement.reset()
            statement.bind(.integer(key), at: 1)
            statement.bind(values, startingAt: 2)
            try statement.execute()
            result.changes.inserted.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
                entityIndex: insert.entityIndex, ordinals: entity.columnOrdinals, values: values, version: 1))
        }

        for update in request.updates {
            let entity = schema.entities[update.entityIndex]
            let objectID = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: update.primaryKey)
            var values = update.values
            for reference in update.pendingReferences {
                guard let position = update.columns.firstIndex(of: reference.column),
                      let key = result.assignedKeys[reference.temporaryKey] else { continue }
                values[position] = .integer(key)
            }
            let sql = layout.updateSQL(entityIndex: update.entityIndex, columns: update.columns)
            let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
            statement.reset()
            statement.bind(values)
            statement.bind(.integer(update.primaryKey), at: Int32(values.count + 1))
            guard try statement.step() else {
                statement.reset()
                throw StrataError(
                    .mergeConflict, "\(objectID) was deleted from the store by another context; nothing was saved",
                    entityName: entity.name, objectIDs: [objectID])
            }
            let version = statement.int64(at: 0)
            statement.reset()
            result.updatedVersions.append(version)
            result.changes.updated.append(ChangeSet.Row(
                objectID: objectID, entityIndex: update.entityIndex,
                ordinals: update.columns.map { entity.columnOrdinals[$0] }, values: values, version: version))
        }

        try writeRelationships(request, into: &result, in: db)

        for delete in request.deletes where !check.deletesFirst(delete) {
            try deleteRow(delete, into: &result, in: db)
        }
        result.changes.historyToken = try recordHistory(of: result.changes, previous: previous, in: db)
        return result
    }

    /// Takes a block of primary keys per entity from the sequence table (saves and batch inserts).
    func reservePrimaryKeys(for inserts: [RowInsert], in db: Database) throws -> [UInt64: Int64] {
        guard !inserts.isEmpty else { return [:] }
        var counts: [Int: Int64] = [:]
        for insert in inserts { counts[insert.entityIndex, default: 0] += 1 }
        var next: [Int: Int64] = [:]
        let select = RawStatement(
            try db.cachedStatement(sql: "SELECT max_pk FROM \(StoreLayout.sequenceTable) WHERE entity = ?"), in: db)
        let upsert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO \(StoreLayout.sequenceTable) (entity, max_pk) VALUES (?, ?)
            ON CONFLICT(entity) DO UPDATE SET max_pk = excluded.max_pk
            """), in: db)
        for (entityIndex, count) in counts {
            let name = schema.entities[entityIndex].name
            select.reset()
            select.bind(.text(name), at: 1)
            let current = try select.step() ? select.int64(at: 0) : 0
            select.reset()
            upsert.reset()
            upsert.bind([.text(name), .integer(current + count)])
            try upsert.execute()
            next[entityIndex] = current + 1
        }
        var keys: [UInt64: Int64] = [:]
        keys.reserveCapacity(inserts.count)
        for insert in inserts {
            let key = next[insert.entityIndex]!
            next[insert.entityIndex] = key + 1
            keys[insert.temporaryKey] = key
        }
        return keys
    }
}
