/// Writes a context's save through a store's executor, inside the store's
/// transaction: the one save pipeline every store runs.
///
/// In order: the checks (unique keys, and versions on a second attempt), the
/// old values history needs, `.deny` keys released among rows deleted
/// together, the deletions that free a unique key, the inserts (a block of
/// keys per entity), the updates (one call per entity and column set), to-many
/// order and membership, the other deletions (each entity before those that
/// cascade to it), app metadata and history. The change set is built here,
/// in the request's order, whatever order the executor writes in.
///
/// A first attempt lets the writes check versions themselves; when one misses,
/// ``write(_:origin:checkFirst:of:in:recordingHistory:)`` returns nil, the
/// store rolls the transaction back and runs it again with `checkFirst`, which
/// reads every expected version first and reports every conflict.
///
/// ```swift
/// let result = try SaveWriter.write(request, origin: origin, checkFirst: false, of: self, in: executor) { changes, previous in
///     try recordHistory(of: changes, previous: previous, in: db)
/// }
/// ```
package enum SaveWriter {
    /// The save's result (with conflicts and nothing written, when it has
    /// some), or nil when a first attempt found a row at another version.
    package static func write<Executor: StoreWriteExecutor>(
        _ request: SaveRequest, origin: ObjectIdentifier?, checkFirst: Bool, of store: some PersistentStore,
        in executor: Executor,
        recordingHistory recordHistory: (ChangeSet, PreviousValues) throws(Executor.Failure) -> HistoryToken?
    ) throws(Executor.Failure) -> SaveResult? {
        let schema = store.schema
        let checks = try SaveChecks(request, schema: schema, versions: checkFirst, in: executor)
        if !checks.conflicts.isEmpty {
            return SaveResult(changes: ChangeSet(storeIdentifier: store.identifier), conflicts: checks.conflicts)
        }
        // Tombstones and old values are read before any row changes.
        let previous = try PreviousValues(for: request, schema: schema, options: store.options, in: executor)
        try releaseDeniedKeys(of: request.deletes, schema: schema, in: executor)
        var writer = Writing(request: request, origin: origin, store: store, checked: checkFirst)
        let deletes = DeletePlan(request.deletes, first: checks.deletesFirst)
        guard try writer.delete(deletes.first, in: executor) else { return nil }
        try writer.insert(in: executor)
        guard try writer.update(in: executor) else { return nil }
        writer.result.changes.toManyChanges += try ToManyWriting.write(
            request, assignedKeys: writer.result.assignedKeys, of: store, in: executor)
        guard try writer.delete(deletes.rest, in: executor) else { return nil }
        if !request.metadata.isEmpty { try executor.writeMetadata(request.metadata) }
        writer.result.changes.historyToken = try recordHistory(writer.result.changes, previous)
        return writer.result
    }

    /// Clears the `.deny`-guarded keys that rows deleted together hold on each
    /// other, so the rule refuses only deletions of rows that stay pointed at.
    private static func releaseDeniedKeys<Executor: StoreWriteExecutor>(
        of deletes: [RowDelete], schema: Schema, in executor: Executor
    ) throws(Executor.Failure) {
        guard !schema.denyEdges.isEmpty, !deletes.isEmpty else { return }
        var entities = Set<Int>()
        for delete in deletes { entities.insert(delete.entityIndex) }
        let edges = schema.denyEdges.filter { entities.contains($0.childIndex) && entities.contains($0.parentIndex) }
        guard !edges.isEmpty else { return }
        try executor.releaseDeniedKeys(edges, among: deletes)
    }

    /// The error of a write to a row already at the highest version a row can
    /// have (set by another program): refused rather than wrapped.
    package static func versionExhausted(_ entity: EntityDescription, _ primaryKey: Int64, in store: some PersistentStore) -> StrataError {
        let id = ObjectID(entityName: entity.name, storeIdentifier: store.identifier, primaryKey: primaryKey)
        return StrataError(
            .corruptStore, "A stored \(entity.name) row is at the highest version a row can have; nothing was saved",
            entityName: entity.name, objectIDs: [id])
    }
}

/// One attempt's writes and the result they build.
///
/// The per-row work here runs once for each row a save writes, through a
/// store the compiler does not specialize for: what it needs of the store is
/// read once, and change-set rows are made directly.
private struct Writing<Store: PersistentStore> {
    let request: SaveRequest
    let store: Store
    let schema: Schema
    let identifier: String
    /// The ID spaces of the save's entities, found once each.
    var spaces: ObjectIDSpaces
    /// Whether versions were checked before writing (the second attempt).
    let checked: Bool
    var result: SaveResult

    init(request: SaveRequest, origin: ObjectIdentifier?, store: Store, checked: Bool) {
        self.request = request
        self.store = store
        schema = store.schema
        identifier = store.identifier
        spaces = ObjectIDSpaces(store: identifier)
        self.checked = checked
        var changes = store.changeSet(author: request.author, contextName: request.contextName, origin: origin)
        changes.inserted.reserveCapacity(request.inserts.count)
        changes.updated.reserveCapacity(request.updates.count)
        changes.deleted.reserveCapacity(request.deletes.count)
        result = SaveResult(changes: changes)
    }

    private mutating func row(
        _ entity: EntityDescription, _ key: Int64, ordinals: [Int], values: [StoredValue], version: Int64
    ) -> ChangeSet.Row {
        ChangeSet.Row(
            objectID: ObjectID(space: spaces[entity], primaryKey: key), entity: entity, ordinals: ordinals, values: values,
            version: version)
    }

    // MARK: Inserts

    /// Reserves a block of keys per entity, fills in the keys of new rows
    /// that rows refer to, and inserts each entity's rows.
    mutating func insert<Executor: StoreWriteExecutor>(in executor: Executor) throws(Executor.Failure) {
        guard let firstInsert = request.inserts.first else { return }
        let inserts = request.inserts
        let singleEntity = !inserts.contains { $0.entityIndex != firstInsert.entityIndex }
        var counts = [Int64](repeating: 0, count: schema.entities.count)
        for insert in inserts { counts[insert.entityIndex] += 1 }
        var next = [Int64](repeating: 0, count: schema.entities.count)
        for (entityIndex, count) in counts.enumerated() where count > 0 {
            next[entityIndex] = try executor.reserveKeys(entityIndex: entityIndex, count: count)
        }
        result.insertedKeys.reserveCapacity(inserts.count)
        for insert in inserts {
            let key = next[insert.entityIndex]
            // Wrapping: the value after a block's last key is never used.
            next[insert.entityIndex] = key &+ 1
            result.insertedKeys.append(key)
        }
        let needsKeyMap = !request.toManyWrites.isEmpty || !request.toManyAppends.isEmpty
            || inserts.contains { !$0.pendingReferences.isEmpty }
            || request.updates.contains { !$0.pendingReferences.isEmpty }
        if needsKeyMap {
            result.assignedKeys.reserveCapacity(inserts.count)
            for (insert, key) in zip(inserts, result.insertedKeys) { result.assignedKeys[insert.temporaryKey] = key }
        }
        // Rows by entity, each entity's in the request's order.
        var rowsByEntity = [[[StoredValue]]](repeating: [], count: singleEntity ? 1 : schema.entities.count)
        var keysByEntity = [[Int64]](repeating: [], count: singleEntity ? 0 : schema.entities.count)
        rowsByEntity[singleEntity ? 0 : firstInsert.entityIndex].reserveCapacity(singleEntity ? inserts.count : 0)
        for (insert, key) in zip(inserts, result.insertedKeys) {
            var values = insert.values
            for reference in insert.pendingReferences {
                guard let target = result.assignedKeys[reference.temporaryKey] else {
                    throw Executor.failure(PendingReference.unsaved)
                }
                values[reference.column] = .integer(target)
            }
            if singleEntity {
                rowsByEntity[0].append(values)
            } else {
                keysByEntity[insert.entityIndex].append(key)
                rowsByEntity[insert.entityIndex].append(values)
            }
            let entity = schema.entities[insert.entityIndex]
            result.changes.inserted.append(row(entity, key, ordinals: entity.columnOrdinals, values: values, version: 1))
        }
        if singleEntity {
            try executor.insertRows(entityIndex: firstInsert.entityIndex, keys: result.insertedKeys, rows: rowsByEntity[0])
            return
        }
        for (entityIndex, count) in counts.enumerated() where count > 0 {
            try executor.insertRows(entityIndex: entityIndex, keys: keysByEntity[entityIndex], rows: rowsByEntity[entityIndex])
        }
    }

    // MARK: Updates

    /// Updates rows by entity and column set, the sets in the order the
    /// request first names them; false when a first attempt found a row at
    /// another version.
    mutating func update<Executor: StoreWriteExecutor>(in executor: Executor) throws(Executor.Failure) -> Bool {
        let updates = request.updates
        guard !updates.isEmpty else { return true }
        var groups: [[Int]] = []
        // Made at the second column set: most saves change one.
        var groupOfShape: [UpdateShape: Int] = [:]
        var last: (shape: UpdateShape, group: Int)?
        var resolved: [RowUpdate]?
        for (position, update) in updates.enumerated() {
            if !update.pendingReferences.isEmpty {
                if resolved == nil { resolved = updates }
                do {
                    resolved![position].values = try update.resolvedValues(assignedKeys: result.assignedKeys)
                } catch {
                    throw Executor.failure(error)
                }
                resolved![position].pendingReferences = []
            }
            if let expected = update.expectedVersion, expected == .max {
                throw Executor.failure(SaveWriter.versionExhausted(schema.entities[update.entityIndex], update.primaryKey, in: store))
            }
            let shape = UpdateShape(entityIndex: update.entityIndex, columns: update.columns, versioned: update.expectedVersion != nil)
            // A save usually changes the same columns of many rows in a row.
            if let last, last.shape == shape {
                groups[last.group].append(position)
                continue
            }
            if let first = last, groupOfShape.isEmpty { groupOfShape[first.shape] = first.group }
            if let group = groupOfShape[shape] {
                groups[group].append(position)
                last = (shape, group)
            } else {
                if !groupOfShape.isEmpty { groupOfShape[shape] = groups.count }
                last = (shape, groups.count)
                groups.append([position])
            }
        }
        let rows = resolved ?? updates
        let versions: [Int64?]
        if groups.count == 1 {
            versions = try executor.updateRows(rows, checked: checked)
        } else {
            var byPosition = [Int64?](repeating: nil, count: updates.count)
            for positions in groups {
                let written = try executor.updateRows(positions.map { rows[$0] }, checked: checked)
                for (position, version) in zip(positions, written) { byPosition[position] = version }
            }
            versions = byPosition
        }
        result.updatedVersions.reserveCapacity(updates.count)
        // The ordinals of the last column set: rows of one set share the array.
        var ordinals: (entityIndex: Int, columns: [Int], ordinals: [Int])?
        for (position, update) in rows.enumerated() {
            let entity = schema.entities[update.entityIndex]
            // A first attempt's executor may stop at its first miss.
            guard position < versions.count, let version = versions[position] else {
                if !checked, update.expectedVersion != nil { return false }
                let objectID = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: update.primaryKey)
                throw Executor.failure(StrataError(
                    .mergeConflict, "\(objectID) was deleted from the store by another context; nothing was saved",
                    entityName: entity.name, objectIDs: [objectID]))
            }
            result.updatedVersions.append(version)
            if ordinals == nil || ordinals!.entityIndex != update.entityIndex || ordinals!.columns != update.columns {
                ordinals = (update.entityIndex, update.columns, update.columns.map { entity.columnOrdinals[$0] })
            }
            result.changes.updated.append(row(entity, update.primaryKey, ordinals: ordinals!.ordinals, values: update.values, version: version))
        }
        return true
    }

    // MARK: Deletes

    /// Deletes rows by entity (each after the entities whose rows cascade to
    /// it), in key order; false when a first attempt found a row at another
    /// version or gone.
    mutating func delete<Executor: StoreWriteExecutor>(
        _ deletes: [RowDelete], in executor: Executor
    ) throws(Executor.Failure) -> Bool {
        guard !deletes.isEmpty else { return true }
        var runs: [(entityIndex: Int, range: Range<Int>)] = []
        var start = 0
        while start < deletes.count {
            let entityIndex = deletes[start].entityIndex
            var end = start + 1
            while end < deletes.count, deletes[end].entityIndex == entityIndex { end += 1 }
            runs.append((entityIndex, start..<end))
            start = end
        }
        let order = runs.count == 1 ? [runs[0].entityIndex]
            : ForeignKeyEdge.deletionOrder(of: runs.map(\.entityIndex), cascades: schema.cascadeEdges)
        for entityIndex in order {
            guard let run = runs.first(where: { $0.entityIndex == entityIndex }) else { continue }
            let rows = deletes[run.range]
            // The change set's rows are made while the store deletes, where it can.
            var recorded = false
            let deleted = try executor.deleteRows(entityIndex: entityIndex, rows, checked: checked) {
                guard !recorded else { return }
                recorded = true
                recordDeletions(of: entityIndex, rows)
            }
            guard deleted else { return false }
            if !recorded { recordDeletions(of: entityIndex, rows) }
        }
        return true
    }

    private mutating func recordDeletions(of entityIndex: Int, _ rows: ArraySlice<RowDelete>) {
        let entity = schema.entities[entityIndex]
        for deleted in rows { result.changes.deleted.append(row(entity, deleted.primaryKey, ordinals: [], values: [], version: 0)) }
    }
}

/// Updates written by one executor call: of one entity and column set, all
/// with an expected version or none.
private struct UpdateShape: Hashable {
    var entityIndex: Int
    var columns: [Int]
    var versioned: Bool
}

/// A save's deletions, by entity and then key, each row once (at the version
/// named last): those that must precede the inserts and updates (they free a
/// unique key), and the rest.
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
        // A context lists its deletions in order, typically: sort only when not.
        var isOrdered = true
        for index in deletes.indices.dropFirst() where !precedes(deletes[index - 1], deletes[index]) {
            isOrdered = false
            break
        }
        guard !isOrdered else { return deletes }
        var unique: [RowDelete] = []
        unique.reserveCapacity(deletes.count)
        let sorted = deletes.indices.sorted {
            (deletes[$0].entityIndex, deletes[$0].primaryKey, $0) < (deletes[$1].entityIndex, deletes[$1].primaryKey, $1)
        }
        for delete in sorted.map({ deletes[$0] }) {
            if let last = unique.last, last.entityIndex == delete.entityIndex, last.primaryKey == delete.primaryKey {
                unique[unique.count - 1] = delete
            } else {
                unique.append(delete)
            }
        }
        return unique
    }
}
