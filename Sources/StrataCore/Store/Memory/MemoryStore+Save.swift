/// Saves into an in-memory store, with the SQLite store's semantics: the same
/// conflicts found before anything is written, the same two attempts (writes
/// check versions themselves; when one misses, everything is taken back and
/// the save runs again reporting every conflict), the same order of writes
/// (deletions that free a unique key, inserts, updates, to-many order, other
/// deletions, each group by entity and key), the same change set and history.
extension MemoryStore {
    package func save(_ request: SaveRequest, origin: ObjectIdentifier?) throws(StrataError) -> SaveResult {
        // First without reading versions (the writes check them); when one
        // misses, everything is taken back and the save runs again reporting
        // every conflict. The second attempt checks first, so it cannot miss.
        var outcome = try writeOrTakeBack { database, history throws(StrataError) in
            try attempt(request, origin: origin, checkFirst: false, in: database, history: &history)
        }
        if outcome == nil {
            outcome = try writeOrTakeBack { database, history throws(StrataError) in
                try attempt(request, origin: origin, checkFirst: true, in: database, history: &history)
            }
        }
        let result = outcome ?? SaveResult(changes: ChangeSet(storeIdentifier: identifier))
        if result.conflicts.isEmpty { didCommit(result.changes) }
        return result
    }

    private func attempt(
        _ request: SaveRequest, origin: ObjectIdentifier?, checkFirst: Bool, in database: MemoryDatabase,
        history: inout MemoryHistory
    ) throws(StrataError) -> SaveResult? {
        let checks = try SaveChecks(request, schema: schema, versions: checkFirst, in: MemoryWriteExecutor(database: database))
        if !checks.conflicts.isEmpty {
            return SaveResult(changes: ChangeSet(storeIdentifier: identifier), conflicts: checks.conflicts)
        }
        let previous = try PreviousValues(for: request, schema: schema, options: options, in: MemoryWriteExecutor(database: database))
        let changes = changeSet(author: request.author, contextName: request.contextName, origin: origin)
        var result = SaveResult(changes: changes)
        if database.hasDenyRules {
            var doomed: [Int: Set<Int64>] = [:]
            for delete in request.deletes { doomed[delete.entityIndex, default: []].insert(delete.primaryKey) }
            database.releaseDeniedKeys(among: doomed)
        }
        let first = Self.ordered(request.deletes.filter(checks.deletesFirst))
        let rest = Self.ordered(request.deletes.filter { !checks.deletesFirst($0) })
        guard try deleteRows(first, checked: checkFirst, into: &result, in: database) else { return nil }
        try insertRows(request, into: &result, in: database)
        guard try updateRows(request, checked: checkFirst, into: &result, in: database) else { return nil }
        result.changes.toManyChanges += try ToManyWriting.write(
            request, assignedKeys: result.assignedKeys, of: self, in: MemoryWriteExecutor(database: database))
        guard try deleteRows(rest, checked: checkFirst, into: &result, in: database) else { return nil }
        for (key, value) in request.metadata { database.setMetadata(value, forKey: key) }
        result.changes.historyToken = recordHistory(of: result.changes, previous: previous, in: &history)
        return result
    }

    /// Deletions by entity, then primary key, as the SQLite store runs them.
    private static func ordered(_ deletes: [RowDelete]) -> [RowDelete] {
        deletes.sorted { ($0.entityIndex, $0.primaryKey) < ($1.entityIndex, $1.primaryKey) }
    }

    // MARK: Writing

    private func insertRows(_ request: SaveRequest, into result: inout SaveResult, in database: MemoryDatabase) throws(StrataError) {
        guard !request.inserts.isEmpty else { return }
        var counts: [Int: Int64] = [:]
        for insert in request.inserts { counts[insert.entityIndex, default: 0] += 1 }
        var next: [Int: Int64] = [:]
        for (entityIndex, count) in counts.sorted(by: { $0.key < $1.key }) {
            next[entityIndex] = database.reserveKeys(entityIndex, count: count)
        }
        for insert in request.inserts {
            let key = next[insert.entityIndex]!
            next[insert.entityIndex] = key + 1
            result.insertedKeys.append(key)
        }
        let needsKeyMap = !request.toManyWrites.isEmpty || !request.toManyAppends.isEmpty
            || request.inserts.contains { !$0.pendingReferences.isEmpty }
            || request.updates.contains { !$0.pendingReferences.isEmpty }
        if needsKeyMap {
            for (insert, key) in zip(request.inserts, result.insertedKeys) { result.assignedKeys[insert.temporaryKey] = key }
        }
        for (insert, key) in zip(request.inserts, result.insertedKeys) {
            let entity = schema.entities[insert.entityIndex]
            var values = insert.values
            for reference in insert.pendingReferences {
                guard let target = result.assignedKeys[reference.temporaryKey] else {
                    throw PendingReference.unsaved
                }
                values[reference.column] = .integer(target)
            }
            var row = ContiguousArray<StoredValue>(repeating: .null, count: entity.properties.count)
            for (column, ordinal) in entity.columnOrdinals.enumerated() { row[ordinal] = values[column] }
            try database.put(MemoryDatabase.Row(version: 1, values: row), entityIndex: entity.index, key: key)
            result.changes.inserted.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
                entity: entity, ordinals: entity.columnOrdinals, values: values, version: 1))
        }
    }

    /// Writes the updates; false when a versioned one missed (before checks were made).
    private func updateRows(
        _ request: SaveRequest, checked: Bool, into result: inout SaveResult, in database: MemoryDatabase
    ) throws(StrataError) -> Bool {
        for update in request.updates {
            let entity = schema.entities[update.entityIndex]
            let values = try update.resolvedValues(assignedKeys: result.assignedKeys)
            guard var row = database.row(update.entityIndex, update.primaryKey),
                  update.expectedVersion.map({ $0 == row.version }) ?? true else {
                if !checked, update.expectedVersion != nil { return false }
                let objectID = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: update.primaryKey)
                throw StrataError(
                    .mergeConflict, "\(objectID) was deleted from the store by another context; nothing was saved",
                    entityName: entity.name, objectIDs: [objectID])
            }
            row.version += 1
            let ordinals = update.columns.map { entity.columnOrdinals[$0] }
            for (ordinal, value) in zip(ordinals, values) { row.values[ordinal] = value }
            try database.put(row, entityIndex: update.entityIndex, key: update.primaryKey)
            result.updatedVersions.append(row.version)
            result.changes.updated.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: update.primaryKey),
                entity: entity, ordinals: ordinals, values: values, version: row.version))
        }
        return true
    }

    /// Deletes rows; false when one's version moved or a versioned row is
    /// gone (before checks were made). Checked deletions skip rows that are gone.
    private func deleteRows(
        _ deletes: [RowDelete], checked: Bool, into result: inout SaveResult, in database: MemoryDatabase
    ) throws(StrataError) -> Bool {
        if !checked {
            for delete in deletes where delete.expectedVersion != nil
            && database.row(delete.entityIndex, delete.primaryKey)?.version != delete.expectedVersion {
                return false
            }
        }
        for delete in deletes {
            try database.delete(delete.entityIndex, delete.primaryKey)
            let entity = schema.entities[delete.entityIndex]
            result.changes.deleted.append(deletedRow(entityIndex: entity.index, primaryKey: delete.primaryKey))
        }
        return true
    }


}
