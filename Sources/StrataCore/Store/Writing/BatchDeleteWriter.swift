/// What a store does for a batch delete: it keeps the set of rows the delete
/// will remove (its marked rows: a scratch table in SQL stores) and answers
/// questions about them, inside the batch's transaction.
///
/// ```swift
/// let roots = try executor.markRoots(entityIndex: book.index, selection: .keys([1, 2]))
/// try executor.markCascades(schema.cascadeEdges)
/// ```
package protocol BatchDeleteExecutor: StoreWriteExecutor {
    /// Marks the rows of an entity the selection picks (marks of an earlier
    /// delete in the transaction are gone); returns their keys, ascending.
    func markRoots(entityIndex: Int, selection: BatchDeleteSelection) throws(Failure) -> [Int64]
    /// Marks every row the edges' cascades reach from marked rows, transitively.
    func markCascades(_ edges: [ForeignKeyEdge]) throws(Failure)
    /// The marked rows' keys by entity, each ascending.
    func markedKeys() throws(Failure) -> [Int: [Int64]]
    /// Rows not marked that point at a marked row through `edge`, ascending, at most `limit`.
    func survivors(of edge: ForeignKeyEdge, limit: Int) throws(Failure) -> [Int64]
    /// Owners (not marked) of marked members through the to-many at
    /// `ordinal` of `entityIndex`, in any order.
    func ownersLosingMembers(entityIndex: Int, ordinal: Int) throws(Failure) -> [Int64]
    /// Clears `edge`'s key on the rows not marked that point at a marked row,
    /// raising their versions; returns each row's key and new version.
    func nullifySurvivors(of edge: ForeignKeyEdge) throws(Failure) -> [(primaryKey: Int64, version: Int64)]
    /// Clears the keys of `edges` (`.deny` rules) that marked rows hold on each other.
    func releaseDeniedKeysAmongMarked(_ edges: [ForeignKeyEdge]) throws(Failure)
    /// Deletes an entity's marked rows.
    func deleteMarked(entityIndex: Int) throws(Failure)
}

/// Deletes rows of one entity and everything their cascade rules reach, in
/// the store's transaction, reporting the exact effect. The one batch-delete
/// pipeline every store runs.
///
/// The rows that will go are found first. A `.deny` rule that still protects
/// one fails with `.validation` and deletes nothing. Keys pointing at them
/// from surviving rows are cleared, which raises those rows' versions (they
/// are updates). Owners that survive and lose members are to-many changes.
/// The old values history needs are read before anything goes.
///
/// ```swift
/// try BatchDeleteWriter.delete(entityIndex: 0, selection: .matching(nil), of: self,
///                              into: &result, previous: &previous, in: executor)
/// ```
package enum BatchDeleteWriter {
    package static func delete<Executor: BatchDeleteExecutor>(
        entityIndex: Int, selection: BatchDeleteSelection, of store: some PersistentStore,
        into result: inout BatchWriteResult, previous: inout PreviousValues, in executor: Executor
    ) throws(Executor.Failure) {
        let schema = store.schema
        result.primaryKeys = try executor.markRoots(entityIndex: entityIndex, selection: selection)
        guard !result.primaryKeys.isEmpty else { return }
        try executor.markCascades(schema.cascadeEdges)
        let marked = try executor.markedKeys()
        for edge in schema.denyEdges where marked[edge.parentIndex] != nil {
            let blockers = try executor.survivors(of: edge, limit: 100)
            guard blockers.isEmpty else {
                throw Executor.failure(edge.denial(blockers: blockers, in: schema, storeIdentifier: store.identifier))
            }
        }
        result.changes.toManyChanges = try survivingOwners(of: marked, schema: schema, store: store, in: executor)
        for (doomedIndex, keys) in marked.sorted(by: { $0.key < $1.key }) {
            result.changes.deleted += keys.map(ChangedRows(entityIndex: doomedIndex, of: store).deleted)
            if PreviousValues.needed(forDeleting: doomedIndex, schema: schema, options: store.options) {
                try previous.read(entityIndex: doomedIndex, keys: keys, in: executor)
            }
        }
        result.changes.updated = try nullify(around: marked, of: store, in: executor)
        let denied = schema.denyEdges.filter { marked[$0.childIndex] != nil && marked[$0.parentIndex] != nil }
        if !denied.isEmpty { try executor.releaseDeniedKeysAmongMarked(denied) }
        for doomedIndex in marked.keys.sorted() { try executor.deleteMarked(entityIndex: doomedIndex) }
    }

    /// Owners that stay but lose members: their to-many relationships change.
    private static func survivingOwners<Executor: BatchDeleteExecutor>(
        of marked: [Int: [Int64]], schema: Schema, store: some PersistentStore, in executor: Executor
    ) throws(Executor.Failure) -> [ChangeSet.ToManyChange] {
        var changes: [ChangeSet.ToManyChange] = []
        for owner in schema.entities {
            let markedOwners = Set(marked[owner.index] ?? [])
            for ordinal in owner.relationshipOrdinals {
                guard let shape = schema.toManyShape(entityIndex: owner.index, ordinal: ordinal),
                      marked[shape.destinationIndex] != nil else { continue }
                let keys = Set(try executor.ownersLosingMembers(entityIndex: owner.index, ordinal: ordinal))
                for key in keys.sorted() where !markedOwners.contains(key) {
                    changes.append(store.toManyChange(entityIndex: owner.index, ordinal: ordinal, primaryKey: key))
                }
            }
        }
        return changes
    }

    /// Clears the keys surviving rows hold on marked ones (`.nullify`), each
    /// such row one update however many keys it loses, by entity and key.
    private static func nullify<Executor: BatchDeleteExecutor>(
        around marked: [Int: [Int64]], of store: some PersistentStore, in executor: Executor
    ) throws(Executor.Failure) -> [ChangeSet.Row] {
        var rows: [ChangeSet.Row] = []
        var positions: [RowKey: Int] = [:]
        for edge in ForeignKeyEdge.all(in: store.schema) where edge.rule == .nullify && marked[edge.parentIndex] != nil {
            let changed = ChangedRows(entityIndex: edge.childIndex, of: store)
            for (key, version) in try executor.nullifySurvivors(of: edge) {
                if let position = positions[RowKey(edge.childIndex, key)] {
                    rows[position].ordinals.append(edge.ordinal)
                    rows[position].values.append(.null)
                    rows[position].version = version
                } else {
                    positions[RowKey(edge.childIndex, key)] = rows.count
                    rows.append(changed.row(key, ordinals: [edge.ordinal], values: [.null], version: version))
                }
            }
        }
        return rows.sorted { ($0.entityIndex, $0.objectID.primaryKey ?? 0) < ($1.entityIndex, $1.objectID.primaryKey ?? 0) }
    }
}
