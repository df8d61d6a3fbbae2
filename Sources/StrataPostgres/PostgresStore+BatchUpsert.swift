import StrataCore

extension PostgresStore {
    /// Inserts rows of one entity, settling taken unique keys by `action`, with
    /// the SQLite store's meaning: rows of the request sharing a key count once
    /// (the last, or with `.keep` the first); a row whose key a stored row holds
    /// updates that row (its written columns, a new version) or, with `.keep`,
    /// leaves it alone; the rest are inserted.
    ///
    /// PostgreSQL allows one `ON CONFLICT` target per statement, so each row's
    /// holder is looked up under the write lock and the row is updated or
    /// inserted by itself.
    func batchUpsert(
        entityIndex: Int, rows: BatchRows, action: UpsertAction, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { session, result, previous throws(StrataError) in
            let entity = schema.entities[entityIndex]
            let keys = entity.uniqueKeyColumns
            let kept = BatchRows.deduplicated(rows.values, keys: keys, keepLast: action != .keep)
            guard !kept.isEmpty else { return }
            let allColumns = schema.batchColumns(of: entity)
            var folded: [Int64: (inserted: Bool, version: Int64, values: [Int: StoredValue])] = [:]
            var old: [Int64: ContiguousArray<StoredValue>] = [:]
            var inserts: [Int] = []
            for row in kept {
                let values = rows.values[row]
                guard let holder = try holder(of: values, keys: keys, entityIndex: entityIndex, in: session) else {
                    inserts.append(row)
                    continue
                }
                if action == .keep { continue }
                let written: [Int] = switch action {
                case .update(allColumns: false) where !rows.columnSets.isEmpty: rows.columnSets[rows.columnSetOfRow[row]]
                default: allColumns
                }
                if old[holder.primaryKey] == nil { old[holder.primaryKey] = holder.values }
                let sql = layout.updateSQL(entityIndex: entityIndex, columns: written, checkingVersion: false)
                let arguments = [StoredValue.integer(holder.primaryKey)]
                    + layout.updateValues(entityIndex: entityIndex, columns: written, values: written.map { values[$0] })
                let version = try integers(sql, arguments, in: session).first ?? holder.version + 1
                var entry = folded[holder.primaryKey] ?? (false, version, [:])
                entry.version = max(entry.version, version)
                for column in written { entry.values[column] = values[column] }
                folded[holder.primaryKey] = entry
            }
            if !inserts.isEmpty {
                let first = try reserveKeyBlock(entityIndex: entityIndex, count: Int64(inserts.count), in: session)
                var bound: [[StoredValue]] = []
                for (offset, row) in inserts.enumerated() {
                    let key = first + Int64(offset)
                    bound.append(layout.insertValues(entityIndex: entityIndex, primaryKey: key, values: rows.values[row]))
                    folded[key] = (true, 1, Dictionary(uniqueKeysWithValues: allColumns.map { ($0, rows.values[row][$0]) }))
                }
                try insertRows(bound, entityIndex: entityIndex, in: session)
            }
            if options.historyTracking, options.recordsValueChanges { previous.rows[entityIndex] = old }
            try record(folded, entity: entity, old: old, into: &result, in: session)
        }
    }

    /// The stored row holding one of the row's unique keys, if any.
    private func holder(
        of values: [StoredValue], keys: [[Int]], entityIndex: Int, in session: PostgresSession
    ) throws(StrataError) -> StoredRow? {
        let table = layout.entities[entityIndex]
        var found: StoredRow?
        for key in keys {
            let keyValues = key.map { values[$0] }
            if keyValues.contains(where: \.isNull) { continue }
            let condition = key.enumerated().map { "t0.\(table.columns[$0.element]) = $\($0.offset + 1)" }.joined(separator: " AND ")
            try readRows(
                entityIndex: entityIndex,
                sql: "SELECT \(table.selectList) FROM \(table.table) AS t0 WHERE \(condition) LIMIT 1",
                arguments: keyValues.map(PostgresArgument.value), in: session) { cursor, _ in found = cursor.stored() }
            if found != nil { return found }
        }
        return nil
    }

    /// The change set of an upsert, and the order of ordered one-to-many
    /// relationships whose owner a row joined.
    private func record(
        _ folded: [Int64: (inserted: Bool, version: Int64, values: [Int: StoredValue])], entity: EntityDescription,
        old: [Int64: ContiguousArray<StoredValue>], into result: inout BatchWriteResult, in session: PostgresSession
    ) throws(StrataError) {
        let ordered = orderedOwners(of: entity.index)
        var owners: Set<ChangeSet.ToManyChange> = []
        for pk in folded.keys.sorted() {
            let entry = folded[pk]!
            let columns = entry.values.keys.sorted()
            result.primaryKeys.append(pk)
            let change = ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: pk), entity: entity,
                ordinals: columns.map { entity.columnOrdinals[$0] }, values: columns.map { entry.values[$0]! }, version: entry.version)
            if entry.inserted { result.changes.inserted.append(change) } else { result.changes.updated.append(change) }
            for owner in ordered {
                guard let now = entry.values[owner.column] else { continue }
                let before = entry.inserted ? StoredValue.null : old[pk]?[entity.columnOrdinals[owner.column]] ?? .null
                guard before != now else { continue }
                if case .integer(let previousOwner) = before {
                    owners.insert(toManyChange(entityIndex: owner.entityIndex, ordinal: owner.ordinal, primaryKey: previousOwner))
                }
                guard case .integer(let newOwner) = now else { continue }
                try appendMember(
                    pk, to: newOwner, column: layout.entities[entity.index].columns[owner.column], position: owner.position,
                    table: layout.entities[entity.index].table, in: session)
                owners.insert(toManyChange(entityIndex: owner.entityIndex, ordinal: owner.ordinal, primaryKey: newOwner))
            }
        }
        result.changes.toManyChanges += owners.sorted { $0.objectID.description < $1.objectID.description }
    }
}
