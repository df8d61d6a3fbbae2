/// What a store does for batch inserts and updates, beyond a save's row writes.
///
/// ```swift
/// let updated = try executor.updateMatching(entityIndex: 0, predicate: nil, ordinals: [2], values: [.integer(1)])
/// ```
package protocol BatchWriteExecutor: StoreWriteExecutor {
    /// The keys of an entity's rows a condition matches (nil: every row), in any order.
    func keysMatching(entityIndex: Int, predicate: StoreExpression?) throws(Failure) -> [Int64]
    /// Sets properties at `ordinals` to `values` on every row a condition
    /// matches (nil: every row), raising each row's version; returns each
    /// row's key and new version, in any order.
    func updateMatching(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue]
    ) throws(Failure) -> [(primaryKey: Int64, version: Int64)]
    /// New rows of `entityIndex` (`members`, ascending) go after the other
    /// members of the owner their key at `ordinal` names, an ordered
    /// one-to-many's inverse. The default appends them one by one.
    func appendNewMembers(entityIndex: Int, ordinal: Int, members: [Int64], owners: [Int64?]) throws(Failure)
}

extension BatchWriteExecutor {
    package func appendNewMembers(entityIndex: Int, ordinal: Int, members: [Int64], owners: [Int64?]) throws(Failure) {
        let entity = schema.entities[entityIndex]
        let (ownerIndex, inverse) = (entity.destinationIndexByOrdinal[ordinal], entity.inverseOrdinalByOrdinal[ordinal])
        for (member, owner) in zip(members, owners) {
            guard let owner else { continue }
            try appendMember(entityIndex: ownerIndex, ordinal: inverse, owner: owner, member: member)
        }
    }
}

/// Batch inserts and updates, written once for every store: keys, change
/// sets, ordered members and the old values history needs.
///
/// ```swift
/// try BatchWriter.insert(entityIndex: 0, rows: rows, of: self, into: &result, in: executor)
/// ```
package enum BatchWriter {
    /// Inserts rows of one entity (values in column order) with keys from the
    /// store's sequence. New members of an ordered one-to-many go after their
    /// owner's other members; those owners are to-many changes.
    package static func insert<Executor: BatchWriteExecutor>(
        entityIndex: Int, rows: [[StoredValue]], of store: some PersistentStore, into result: inout BatchWriteResult,
        in executor: Executor
    ) throws(Executor.Failure) {
        guard !rows.isEmpty else { return }
        let schema = store.schema
        let entity = schema.entities[entityIndex]
        let first = try executor.reserveKeys(entityIndex: entityIndex, count: Int64(rows.count))
        let keys = rows.indices.map { first + Int64($0) }
        try executor.insertRows(entityIndex: entityIndex, keys: keys, rows: rows)
        result.primaryKeys += keys
        result.changes.inserted.reserveCapacity(rows.count)
        let changed = ChangedRows(entity, storeIdentifier: store.identifier)
        for (key, values) in zip(keys, rows) {
            result.changes.inserted.append(changed.row(key, ordinals: entity.columnOrdinals, values: values, version: 1))
        }
        var owners: Set<ChangeSet.ToManyChange> = []
        for ordinal in schema.orderedToOneOrdinals(of: entityIndex) {
            let column = entity.columnIndexByOrdinal[ordinal]
            let ownerKeys: [Int64?] = rows.map { if case .integer(let owner) = $0[column] { owner } else { nil } }
            try executor.appendNewMembers(entityIndex: entityIndex, ordinal: ordinal, members: keys, owners: ownerKeys)
            let (ownerIndex, inverse) = (entity.destinationIndexByOrdinal[ordinal], entity.inverseOrdinalByOrdinal[ordinal])
            for case let owner? in ownerKeys {
                owners.insert(store.toManyChange(entityIndex: ownerIndex, ordinal: inverse, primaryKey: owner))
            }
        }
        result.changes.toManyChanges += owners.sorted { $0.objectID.description < $1.objectID.description }
    }

    /// Sets properties of every row a condition matches (nil: every row),
    /// raising each row's version; the change set lists them by key.
    package static func update<Executor: BatchWriteExecutor>(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue], of store: some PersistentStore,
        into result: inout BatchWriteResult, previous: inout PreviousValues, in executor: Executor
    ) throws(Executor.Failure) {
        if store.options.historyTracking, store.options.recordsValueChanges {
            // History records old values: read the matching rows before they change.
            let keys = try executor.keysMatching(entityIndex: entityIndex, predicate: predicate)
            try previous.read(entityIndex: entityIndex, keys: keys, in: executor)
        }
        let updated = try executor.updateMatching(entityIndex: entityIndex, predicate: predicate, ordinals: ordinals, values: values)
            .sorted { $0.primaryKey < $1.primaryKey }
        result.primaryKeys = updated.map(\.primaryKey)
        let changed = ChangedRows(entityIndex: entityIndex, of: store)
        result.changes.updated = updated.map { key, version in changed.row(key, ordinals: ordinals, values: values, version: version) }
    }
}
