import StrataCore
import StrataSQL
import GRDB

/// One uniqueness constraint's values in one row.
private struct UniqueKeyValue: Hashable {
    var constraint: Int
    var values: [StoredValue]
}

extension SQLiteStore {
    /// Rows per multi-row upsert statement: well inside SQLite's bound-variable limit.
    private func upsertChunkSize(columns: Int) -> Int { max(1, min(256, 30_000 / (columns + 1))) }

    /// Inserts rows of one entity, settling each unique key a stored row holds
    /// by `action`, with one multi-row statement per chunk:
    /// `INSERT … ON CONFLICT(key) DO UPDATE SET <columns>` or
    /// `… ON CONFLICT DO NOTHING`. Inserted rows come back in `changes.inserted`,
    /// updated ones in `changes.updated` with the properties written.
    ///
    /// Rows of the request linked by a shared unique key are one row: the last
    /// wins when updating, the first when keeping. A stored row two request
    /// rows reach through different keys is reported once, with both writes.
    func batchUpsert(
        entityIndex: Int, rows: BatchRows, action: UpsertAction, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { db, result, previous in
            let entity = schema.entities[entityIndex]
            let keys = entity.uniqueKeyColumns
            let kept = BatchRows.deduplicated(rows.values, keys: keys, keepLast: action != .keep)
            guard !kept.isEmpty else { return }
            let firstKey = try reserveKeyBlock(entityIndex: entityIndex, count: Int64(kept.count), in: db)
            let hasOrdered = !schema.orderedToOneOrdinals(of: entityIndex).isEmpty
            if action != .keep, (options.historyTracking && options.recordsValueChanges) || hasOrdered {
                // Old values of the rows about to change, for history and to-many order.
                let holders = try keyHolders(of: kept.map { rows.values[$0] }, keys: keys, entityIndex: entityIndex, in: db)
                try capturePreviousValues(entityIndex: entityIndex, primaryKeys: holders, into: &previous, in: db)
            }
            // Rows that write the same columns share a statement.
            var outcomes: [UpsertOutcome] = []
            let size = upsertChunkSize(columns: entity.columnOrdinals.count)
            for (written, positions) in rows.groupedByWrittenColumns(kept, action: action, allColumns: schema.batchColumns(of: entity)) {
                for start in stride(from: 0, to: positions.count, by: size) {
                    let chunk = positions[start..<min(start + size, positions.count)].map { position in
                        (row: kept[position], key: firstKey + Int64(position), values: rows.values[kept[position]])
                    }
                    outcomes += try upsertChunk(
                        chunk, written: written, keys: keys, action: action, entity: entity, cached: chunk.count == size, in: db)
                }
            }
            try UpsertRecording.record(
                outcomes, rows: rows.values, entityIndex: entityIndex, old: previous.rows[entityIndex] ?? [:], of: self,
                into: &result, in: SQLiteWriteExecutor(store: self, db: db))
        }
    }

    /// Primary keys of stored rows holding any unique key of `rows`.
    private func keyHolders(of rows: [[StoredValue]], keys: [[Int]], entityIndex: Int, in db: Database) throws -> [Int64] {
        let table = layout.entities[entityIndex]
        var holders = Set<Int64>()
        for key in keys {
            let condition = key.map { "\(table.columns[$0]) = ?" }.joined(separator: " AND ")
            let statement = RawStatement(try db.cachedStatement(sql: "SELECT pk FROM \(table.table) WHERE \(condition)"), in: db)
            defer { statement.reset() }
            for row in rows {
                let values = key.map { row[$0] }
                if values.contains(where: \.isNull) { continue }
                statement.reset()
                try statement.bind(values)
                while try statement.step() { holders.insert(statement.int64(at: 0)) }
            }
        }
        return holders.sorted()
    }

    /// Whether values equal in a column's unique index are the same value: integers
    /// (foreign keys too), text (compared byte by byte) and blobs; not reals, where
    /// `0.0` and `-0.0` are equal.
    private func comparesExactly(column: Int, of entity: EntityDescription) -> Bool {
        guard let attribute = entity.attribute(at: entity.columnOrdinals[column]) else { return true }
        return attribute.type.storageKind != .real
    }

    /// Runs one multi-row upsert statement; returns which request row each
    /// returned row is. Inserted rows keep the key they were given; updated
    /// rows are found by a unique key they share with their request row.
    private func upsertChunk(
        _ chunk: [(row: Int, key: Int64, values: [StoredValue])], written: [Int], keys: [[Int]], action: UpsertAction,
        entity: EntityDescription, cached: Bool, in db: Database
    ) throws -> [UpsertOutcome] {
        let table = layout.entities[entity.index]
        let version = StorageNaming.versionColumn
        let rowPlaceholder = "(" + Array(repeating: "?", count: table.columns.count + 1).joined(separator: ", ") + ")"
        var sql = "INSERT INTO \(table.table) (pk, \(table.columns.joined(separator: ", "))) VALUES "
            + Array(repeating: rowPlaceholder, count: chunk.count).joined(separator: ", ")
        let keyColumns = Array(Set(keys.joined())).sorted()
        if action == .keep {
            sql += " ON CONFLICT DO NOTHING"
        } else {
            for key in keys {
                // A key column that compares exactly already holds the row's value (that is
                // the conflict): rewriting it would only make SQLite rewrite its index entry.
                let assignments = written.filter { !(key.contains($0) && comparesExactly(column: $0, of: entity)) }
                    .map { "\(table.columns[$0]) = excluded.\(table.columns[$0])" }
                    + ["\(version) = \(StoreLayout.nextVersionSQL)"]
                sql += " ON CONFLICT(\(key.map { table.columns[$0] }.joined(separator: ", "))) DO UPDATE SET "
                    + assignments.joined(separator: ", ")
            }
        }
        sql += " RETURNING pk, \(version)" + keyColumns.map { ", \(table.columns[$0])" }.joined()
        // Full chunks repeat and are cached; a last, shorter one is not kept
        // (`prepared` owns it: the raw handle dies with it).
        let prepared = cached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        let statement = RawStatement(prepared, in: db)
        statement.reset()
        defer {
            statement.reset()
            withExtendedLifetime(prepared) {}
        }
        var index: Int32 = 1
        for row in chunk {
            try statement.bind(.integer(row.key), at: index)
            try statement.bind(row.values, startingAt: index + 1)
            index += Int32(row.values.count + 1)
        }
        // The usual unique key is one column: its values find rows without an array per row.
        let keyColumn = keys.count == 1 && keys[0].count == 1 ? keys[0][0] : nil
        var byProposedKey: [Int64: Int] = [:]
        byProposedKey.reserveCapacity(chunk.count)
        var byKeyValue: [StoredValue: Int] = [:]
        var byUniqueKey: [UniqueKeyValue: Int] = [:]
        for row in chunk {
            byProposedKey[row.key] = row.row
            guard action != .keep else { continue }
            if let keyColumn {
                if !row.values[keyColumn].isNull { byKeyValue[row.values[keyColumn]] = row.row }
                continue
            }
            for (constraint, key) in keys.enumerated() {
                let values = key.map { row.values[$0] }
                if !values.contains(where: \.isNull) { byUniqueKey[UniqueKeyValue(constraint: constraint, values: values)] = row.row }
            }
        }
        var outcomes: [UpsertOutcome] = []
        outcomes.reserveCapacity(chunk.count)
        while try statement.step() {
            let pk = statement.int64(at: 0), rowVersion = statement.int64(at: 1)
            if let row = byProposedKey[pk] {
                outcomes.append(UpsertOutcome(primaryKey: pk, version: rowVersion, row: row, inserted: true, columns: written))
                continue
            }
            let match: Int?
            if keyColumn != nil {
                match = byKeyValue[statement.value(at: 2)]
            } else {
                var stored: [Int: StoredValue] = [:]
                for (offset, column) in keyColumns.enumerated() { stored[column] = statement.value(at: Int32(offset + 2)) }
                match = keys.indices.lazy.compactMap { constraint in
                    byUniqueKey[UniqueKeyValue(constraint: constraint, values: keys[constraint].map { stored[$0] ?? .null })]
                }.first
            }
            guard let row = match else {
                throw StrataError(.sqlite, "A batch insert of \(entity.name) updated a row it cannot match to one of its rows; nothing was written")
            }
            outcomes.append(UpsertOutcome(primaryKey: pk, version: rowVersion, row: row, inserted: false, columns: written))
        }
        return outcomes
    }
}
