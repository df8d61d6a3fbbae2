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
        try SaveWriter.write(
            request, origin: origin, checkFirst: checkFirst, of: self, in: MemoryWriteExecutor(store: self, database: database),
            recordingHistory: { changes, previous throws(StrataError) in recordHistory(of: changes, previous: previous, in: &history) })
    }
}

/// A save's row writes on the in-memory store's tables.
extension MemoryWriteExecutor {
    func reserveKeys(entityIndex: Int, count: Int64) throws(StrataError) -> Int64 {
        try database.reserveKeys(entityIndex, count: count)
    }

    func insertRows(entityIndex: Int, keys: [Int64], rows: [[StoredValue]]) throws(StrataError) {
        let entity = database.schema.entities[entityIndex]
        for (key, values) in zip(keys, rows) {
            var row = ContiguousArray<StoredValue>(repeating: .null, count: entity.properties.count)
            for (column, ordinal) in entity.columnOrdinals.enumerated() { row[ordinal] = values[column] }
            try database.put(MemoryDatabase.Row(version: 1, values: row), entityIndex: entityIndex, key: key)
        }
    }

    func updateRows(_ updates: [RowUpdate], checked: Bool) throws(StrataError) -> [Int64?] {
        var versions: [Int64?] = []
        versions.reserveCapacity(updates.count)
        for update in updates {
            guard var row = database.row(update.entityIndex, update.primaryKey),
                  update.expectedVersion.map({ $0 == row.version }) ?? true else {
                versions.append(nil)
                if !checked, update.expectedVersion != nil { return versions }
                continue
            }
            let entity = database.schema.entities[update.entityIndex]
            guard row.version < .max else { throw SaveWriter.versionExhausted(entity, update.primaryKey, in: store) }
            row.version += 1
            for (column, value) in zip(update.columns, update.values) { row.values[entity.columnOrdinals[column]] = value }
            try database.put(row, entityIndex: update.entityIndex, key: update.primaryKey)
            versions.append(row.version)
        }
        return versions
    }

    func deleteRows(
        entityIndex: Int, _ rows: ArraySlice<RowDelete>, checked: Bool, whileDeleting: () -> Void
    ) throws(StrataError) -> Bool {
        if !checked {
            for row in rows where row.expectedVersion != nil
            && database.row(entityIndex, row.primaryKey)?.version != row.expectedVersion {
                return false
            }
        }
        for row in rows { try database.delete(entityIndex, row.primaryKey) }
        return true
    }

    func releaseDeniedKeys(_ edges: [ForeignKeyEdge], among deletes: [RowDelete]) {
        var doomed: [Int: Set<Int64>] = [:]
        for delete in deletes { doomed[delete.entityIndex, default: []].insert(delete.primaryKey) }
        database.releaseDeniedKeys(among: doomed)
    }

    func writeMetadata(_ metadata: [String: StoredValue?]) {
        for (key, value) in metadata { database.setMetadata(value, forKey: key) }
    }
}
