/// Batch requests on an in-memory store, with the SQLite store's results:
/// the same keys, versions, change sets, history and errors.
extension MemoryStore {
    /// Runs one batch as a transaction and records it, as the SQLite store's `runBatch` does.
    private func runBatch(
        _ transaction: BatchTransaction,
        _ body: (MemoryDatabase, inout BatchWriteResult, inout PreviousValues) throws(StrataError) -> Void
    ) throws(StrataError) -> BatchWriteResult {
        let changes = changeSet(author: transaction.author, contextName: transaction.contextName, origin: transaction.origin)
        let result = try write { database, history throws(StrataError) in
            var result = BatchWriteResult(changes: changes)
            var previous = PreviousValues()
            try body(database, &result, &previous)
            result.changes.historyToken = recordHistory(of: result.changes, previous: previous, in: &history)
            return result
        }
        didCommit(result.changes)
        return result
    }

    package func batchInsert(
        entityIndex: Int, rows: [[StoredValue]], transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { database, result, _ throws(StrataError) in
            try BatchWriter.insert(
                entityIndex: entityIndex, rows: rows, of: self, into: &result, in: MemoryWriteExecutor(store: self, database: database))
        }
    }

    package func batchUpsert(
        entityIndex: Int, rows: BatchRows, action: UpsertAction, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { database, result, previous throws(StrataError) in
            let entity = schema.entities[entityIndex]
            let kept = BatchRows.deduplicated(rows.values, keys: entity.uniqueKeyColumns, keepLast: action != .keep)
            guard !kept.isEmpty else { return }
            let firstKey = try database.reserveKeys(entityIndex, count: Int64(kept.count))
            let holders = kept.map { holder(of: rows.values[$0], entity: entity, in: database) }
            if action != .keep, options.historyTracking, options.recordsValueChanges {
                try previous.read(entityIndex: entityIndex, keys: Array(Set(holders.compactMap { $0 })), in: MemoryWriteExecutor(store: self, database: database))
            }
            let old = Dictionary(uniqueKeysWithValues: Set(holders.compactMap { $0 }).compactMap { key in
                database.row(entityIndex, key).map { (key, $0.values) }
            })
            // Rows that write the same columns go together, in the SQLite store's order.
            var outcomes: [UpsertOutcome] = []
            for (written, positions) in rows.groupedByWrittenColumns(kept, action: action, allColumns: schema.batchColumns(of: entity)) {
                for position in positions {
                    let values = rows.values[kept[position]]
                    if let stored = holder(of: values, entity: entity, in: database) {
                        guard action != .keep, var row = database.row(entityIndex, stored) else { continue }
                        guard row.version < .max else { throw SaveWriter.versionExhausted(entity, stored, in: self) }
                        row.version += 1
                        for column in written { row.values[entity.columnOrdinals[column]] = values[column] }
                        try database.put(row, entityIndex: entityIndex, key: stored)
                        outcomes.append(UpsertOutcome(primaryKey: stored, version: row.version, row: kept[position], inserted: false, columns: written))
                    } else {
                        let key = firstKey + Int64(position)
                        try database.put(MemoryDatabase.Row(version: 1, values: byOrdinal(values, entity)), entityIndex: entityIndex, key: key)
                        outcomes.append(UpsertOutcome(primaryKey: key, version: 1, row: kept[position], inserted: true, columns: written))
                    }
                }
            }
            try UpsertRecording.record(
                outcomes, rows: rows.values, entityIndex: entityIndex, old: old, of: self, into: &result,
                in: MemoryWriteExecutor(store: self, database: database))
        }
    }

    package func batchUpdate(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue], transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { database, result, previous throws(StrataError) in
            try BatchWriter.update(
                entityIndex: entityIndex, predicate: predicate, ordinals: ordinals, values: values, of: self,
                into: &result, previous: &previous, in: MemoryWriteExecutor(store: self, database: database))
        }
    }

    package func batchDelete(
        entityIndex: Int, selection: BatchDeleteSelection, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { database, result, previous throws(StrataError) in
            try BatchDeleteWriter.delete(
                entityIndex: entityIndex, selection: selection, of: self, into: &result, previous: &previous,
                in: MemoryWriteExecutor(store: self, database: database))
        }
    }

    // MARK: Helpers

    /// A row in column order, laid out by property ordinal.
    private func byOrdinal(_ values: [StoredValue], _ entity: EntityDescription) -> ContiguousArray<StoredValue> {
        var row = ContiguousArray<StoredValue>(repeating: .null, count: entity.properties.count)
        for (column, ordinal) in entity.columnOrdinals.enumerated() { row[ordinal] = values[column] }
        return row
    }

    /// The stored row holding one of the unique keys of `values` (column order), by constraint order.
    private func holder(of values: [StoredValue], entity: EntityDescription, in database: MemoryDatabase) -> Int64? {
        for (constraint, columns) in entity.uniqueKeyColumns.enumerated() {
            let key = columns.map { values[$0] }
            guard !key.contains(where: \.isNull) else { continue }
            if let holder = database.holder(of: key, constraint: constraint, entityIndex: entity.index) { return holder }
        }
        return nil
    }
}
