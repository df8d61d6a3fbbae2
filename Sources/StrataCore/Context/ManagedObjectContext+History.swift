extension ManagedObjectContext {
    /// Takes in a transaction from persistent history, as if this context had
    /// seen that save: registered objects it updated are refreshed from the store
    /// (keeping this context's unsaved changes), objects it deleted leave the
    /// context, and loaded to-many relationships that may now hold objects it
    /// inserted or moved reload on next use.
    ///
    /// Use it for saves this context did not see: other processes' (see
    /// <doc:History>), or saves made while the app was not running.
    ///
    /// ```swift
    /// for transaction in try container.fetchHistory(after: lastToken) {
    ///     container.viewContext.merge(transaction)
    /// }
    /// ```
    public func merge(_ transaction: HistoryTransaction) {
        merge([transaction])
    }

    /// Takes in several history transactions at once, oldest first; each object
    /// is read from the store at most once. When the store cannot be read,
    /// nothing is merged and the error goes to ``PersistentContainer/logError``:
    /// keep your token where it was and merge again.
    ///
    /// ```swift
    /// container.viewContext.merge(try container.fetchHistory(after: lastToken))
    /// ```
    public func merge(_ transactions: [HistoryTransaction]) {
        do {
            try mergeHistory(transactions)
        } catch {
            reportUnthrown(error)
        }
    }

    /// Merges history as `merge(_:)` does, throwing when the rows it needs
    /// cannot be read (nothing is merged then).
    func mergeHistory(_ transactions: [HistoryTransaction]) throws {
        guard let storeIdentifier = parentStore.storeIdentifier else { return }
        var outcome = HistoryOutcome()
        for transaction in transactions where transaction.token.storeIdentifier == storeIdentifier {
            for change in transaction.changes { outcome.add(change, schema: schema) }
        }
        guard !outcome.isEmpty else { return }
        var changes = ChangeSet(storeIdentifier: storeIdentifier)
        changes.author = transactions.last?.author
        changes.contextName = transactions.last?.contextName
        changes.historyToken = transactions.last?.token
        try readRows(for: outcome, storeIdentifier: storeIdentifier, into: &changes)
        // The change set path does the rest: deletions, inverse relationships,
        // to-many reloads and merge observers.
        merge(changes)
    }

    /// Turns the settled outcome into change-set rows holding the objects'
    /// current stored values, reading only rows this context can use.
    private func readRows(for outcome: HistoryOutcome, storeIdentifier: String, into changes: inout ChangeSet) throws {
        var deleted = outcome.deleted
        var needed: [Int: [Int64]] = [:]
        // Listeners (a results controller) hear of every row; otherwise only
        // rows that registered objects or loaded relationships need are read.
        let listens = hasEventListeners
        // A row inserted by these transactions may already be registered here:
        // this context fetched it between the insert and now (the transactions
        // arrived together). It merges as an update, so later changes reach it.
        var registeredInserts = Set<HistoryOutcome.Key>()
        for key in outcome.inserted {
            let registered = registry[key.entityIndex][key.primaryKey] != nil
            guard listens || registered || affectsLoadedInverse(entityIndex: key.entityIndex, names: nil) else { continue }
            if registered { registeredInserts.insert(key) }
            needed[key.entityIndex, default: []].append(key.primaryKey)
        }
        for (key, names) in outcome.updated {
            if !listens, registry[key.entityIndex][key.primaryKey] == nil, !affectsLoadedInverse(entityIndex: key.entityIndex, names: names) {
                continue
            }
            needed[key.entityIndex, default: []].append(key.primaryKey)
        }
        for (entityIndex, keys) in needed.sorted(by: { $0.key < $1.key }) {
            let entity = schema.entities[entityIndex]
            var found = Set<Int64>()
            // Read through the parent store: a child context sees its parent's
            // current values, as a refresh does.
            try parentStore.readValues(entityIndex: entityIndex, primaryKeys: keys, in: self) { cursor in
                let values = cursor.values
                let key = HistoryOutcome.Key(entityIndex: entityIndex, primaryKey: cursor.primaryKey)
                let row = ChangeSet.Row(
                    objectID: ObjectID(entityName: entity.name, storeIdentifier: storeIdentifier, primaryKey: key.primaryKey),
                    entity: entity, ordinals: entity.columnOrdinals,
                    values: entity.columnOrdinals.map { values[$0] }, version: cursor.version)
                found.insert(key.primaryKey)
                if outcome.updated[key] != nil || registeredInserts.contains(key) {
                    changes.updated.append(row)
                } else {
                    changes.inserted.append(row)
                }
            }
            // Rows a later save deleted are gone for this context too.
            for key in keys where !found.contains(key) {
                deleted.append(HistoryOutcome.Key(entityIndex: entityIndex, primaryKey: key))
            }
        }
        for key in deleted {
            let entity = schema.entities[key.entityIndex]
            changes.deleted.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: storeIdentifier, primaryKey: key.primaryKey),
                entity: schema.entities[key.entityIndex], ordinals: [], values: [], version: 0))
        }
        for (key, names) in outcome.updated {
            let entity = schema.entities[key.entityIndex]
            for name in names {
                guard let ordinal = entity.ordinalByName[name], !entity.properties[ordinal].hasColumn else { continue }
                changes.toManyChanges.append(ChangeSet.ToManyChange(
                    objectID: ObjectID(entityName: entity.name, storeIdentifier: storeIdentifier, primaryKey: key.primaryKey),
                    relationshipName: name, entityIndex: key.entityIndex, ordinal: ordinal))
            }
        }
    }

    /// Whether a row's to-one relationships (all of them, or those named) have
    /// an inverse to-many whose destination has objects in this context, which
    /// may need to reload.
    private func affectsLoadedInverse(entityIndex: Int, names: Set<String>?) -> Bool {
        let entity = schema.entities[entityIndex]
        for ordinal in entity.columnOrdinals where entity.relationship(at: ordinal) != nil {
            guard entity.inverseOrdinalByOrdinal[ordinal] >= 0,
                  !registry[entity.destinationIndexByOrdinal[ordinal]].isEmpty else { continue }
            if names == nil || names!.contains(entity.properties[ordinal].name) { return true }
        }
        return false
    }
}

/// What a run of history changes amounts to per object: a deletion wins over
/// everything, an insert absorbs later updates.
private struct HistoryOutcome {
    struct Key: Hashable {
        let entityIndex: Int
        let primaryKey: Int64
    }

    var inserted: [Key] = []
    var updated: [Key: Set<String>] = [:]
    var deleted: [Key] = []
    private var insertedKeys = Set<Key>()
    private var deletedKeys = Set<Key>()

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    mutating func add(_ change: HistoryChange, schema: Schema) {
        guard let entity = schema.entity(named: change.entityName), let pk = change.objectID.primaryKey else { return }
        let key = Key(entityIndex: entity.index, primaryKey: pk)
        guard !deletedKeys.contains(key) else { return }
        switch change.changeType {
        case .insert:
            if insertedKeys.insert(key).inserted { inserted.append(key) }
        case .update:
            if !insertedKeys.contains(key) { updated[key, default: []].formUnion(change.updatedProperties) }
        case .delete:
            deletedKeys.insert(key)
            deleted.append(key)
            updated[key] = nil
            if insertedKeys.remove(key) != nil { inserted.removeAll { $0 == key } }
        }
    }
}
