import StrataCore
import StrataSQL

extension PostgresStore {
    /// Inserts rows of one entity, settling taken unique keys by `action`, with
    /// the SQLite store's meaning: rows of the request sharing a key count once
    /// (the last, or with `.keep` the first); a row whose key a stored row holds
    /// updates that row (its written columns, a new version) or, with `.keep`,
    /// leaves it alone; the rest are inserted.
    ///
    /// PostgreSQL allows one `ON CONFLICT` target per statement, so the holders
    /// are looked up under the write lock: for every row at once, one statement
    /// per uniqueness constraint, then one update per set of written columns
    /// and the inserts as arrays. When the rows' updates would change a unique
    /// value, or two rows reach one stored row, each row is looked up and
    /// written by itself instead, since an update then decides what the next
    /// row's lookup finds.
    func batchUpsert(
        entityIndex: Int, rows: BatchRows, action: UpsertAction, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { session, result, previous throws(StrataError) in
            let entity = schema.entities[entityIndex]
            let keys = entity.uniqueKeyColumns
            let kept = BatchRows.deduplicated(rows.values, keys: keys, keepLast: action != .keep)
            guard !kept.isEmpty else { return }
            let allColumns = schema.batchColumns(of: entity)
            var outcomes: [UpsertOutcome] = []
            var old: [Int64: ContiguousArray<StoredValue>] = [:]
            var inserts: [Int] = []
            let holders = try holdersOfAll(kept.map { rows.values[$0] }, keys: keys, entity: entity, in: session)
            if let holders, action == .keep || Self.updatesKeepKeys(
                kept: kept, holders: holders, rows: rows.values, written: { rows.writtenColumns(ofRow: $0, action: action, allColumns: allColumns) },
                keys: keys, entity: entity) {
                var updates: [(row: Int, holder: StoredRow)] = []
                for (position, row) in kept.enumerated() {
                    guard let holder = holders[position] else {
                        inserts.append(row)
                        continue
                    }
                    if action == .keep { continue }
                    old[holder.primaryKey] = holder.values
                    updates.append((row, holder))
                }
                let updated = updates.map(\.row)
                for (columns, positions) in rows.groupedByWrittenColumns(updated, action: action, allColumns: allColumns) {
                    let group = positions.map { updates[$0] }
                    let versions = try updateHolders(
                        group.map { update in (update.holder.primaryKey, columns.map { rows.values[update.row][$0] }) },
                        columns: columns, entityIndex: entityIndex, in: session)
                    for (row, holder) in group {
                        outcomes.append(UpsertOutcome(
                            primaryKey: holder.primaryKey, version: versions[holder.primaryKey] ?? holder.version + 1, row: row,
                            inserted: false, columns: columns))
                    }
                }
            } else {
                for row in kept {
                    let values = rows.values[row]
                    guard let holder = try holder(of: values, keys: keys, entityIndex: entityIndex, in: session) else {
                        inserts.append(row)
                        continue
                    }
                    if action == .keep { continue }
                    let columns = rows.writtenColumns(ofRow: row, action: action, allColumns: allColumns)
                    if old[holder.primaryKey] == nil { old[holder.primaryKey] = holder.values }
                    let sql = layout.updateSQL(entityIndex: entityIndex, columns: columns, checkingVersion: false)
                    let arguments = [StoredValue.integer(holder.primaryKey)]
                        + layout.updateValues(entityIndex: entityIndex, columns: columns, values: columns.map { values[$0] })
                    let version = try integers(sql, arguments, in: session).first ?? holder.version + 1
                    outcomes.append(UpsertOutcome(primaryKey: holder.primaryKey, version: version, row: row, inserted: false, columns: columns))
                }
            }
            if !inserts.isEmpty {
                let first = try reserveKeyBlock(entityIndex: entityIndex, count: Int64(inserts.count), in: session)
                let keys = inserts.indices.map { first + Int64($0) }
                for (key, row) in zip(keys, inserts) {
                    outcomes.append(UpsertOutcome(primaryKey: key, version: 1, row: row, inserted: true, columns: allColumns))
                }
                try insertRows(keys: keys, rows: inserts.map { rows.values[$0] }, entityIndex: entityIndex, in: session)
            }
            if options.historyTracking, options.recordsValueChanges { previous.rows[entityIndex] = old }
            try UpsertRecording.record(
                outcomes, rows: rows.values, entityIndex: entityIndex, old: old, of: self, into: &result,
                in: PostgresWriteExecutor(store: self, session: session))
        }
    }

    /// The stored row holding a unique key of each row (by position in
    /// `rows`), found as ``holder(of:keys:entityIndex:in:)`` finds one, with
    /// one statement per uniqueness constraint for all rows; nil when a key's
    /// values cannot be bound as arrays.
    private func holdersOfAll(
        _ rows: [[StoredValue]], keys: [[Int]], entity: EntityDescription, in session: PostgresSession
    ) throws(StrataError) -> [StoredRow?]? {
        var holders = [StoredRow?](repeating: nil, count: rows.count)
        let table = layout.entities[entity.index]
        for key in keys {
            // A row's first constraint with a holder decides, as row by row.
            let positions = rows.indices.filter { position in
                holders[position] == nil && !key.contains { rows[position][$0].isNull }
            }
            guard !positions.isEmpty else { continue }
            let types = key.map { column in
                entity.attribute(at: entity.columnOrdinals[column]).map { PostgresLayout.bindType($0.type) } ?? "bigint"
            } + ["bigint"]
            let values = positions.map { position in key.map { rows[position][$0] } + [.integer(Int64(position))] }
            guard let arguments = Self.columnArrays(values[...], types: types) else { return nil }
            let names = key.indices.map { "k\($0)" } + ["position"]
            let condition = key.enumerated().map { "t0.\(table.columns[$0.element]) = e.k\($0.offset)" }.joined(separator: " AND ")
            let positionColumn = table.columns.count + 2
            var found: [(Int, StoredRow)] = []
            try readRows(
                entityIndex: entity.index,
                sql: "SELECT \(table.selectList), e.position FROM \(table.table) AS t0 "
                    + "JOIN \(Self.unnestSource(types)) AS e(\(names.joined(separator: ", "))) ON \(condition)",
                arguments: arguments, in: session
            ) { cursor, row in
                var cells = row.makeIterator()
                for _ in 0..<positionColumn { _ = cells.next() }
                guard let cell = cells.next(), let position = try PostgresSession.integer(cell) else { return }
                found.append((Int(position), cursor.stored()))
            }
            for (position, holder) in found where holders.indices.contains(position) { holders[position] = holder }
        }
        return holders
    }

    /// Whether updating each row's holder leaves every unique value as it
    /// was, and no stored row is reached twice: then no update changes what
    /// another row's lookup finds, and all rows can be looked up at once.
    private static func updatesKeepKeys(
        kept: [Int], holders: [StoredRow?], rows: [[StoredValue]], written: (Int) -> [Int], keys: [[Int]],
        entity: EntityDescription
    ) -> Bool {
        let keyColumns = Set(keys.joined())
        var reached = Set<Int64>()
        for (position, row) in kept.enumerated() {
            guard let holder = holders[position] else { continue }
            guard reached.insert(holder.primaryKey).inserted else { return false }
            for column in written(row) where keyColumns.contains(column) {
                let ordinal = entity.columnOrdinals[column]
                guard holder.values.indices.contains(ordinal),
                      StoredValueOrder.compare(rows[row][column], holder.values[ordinal], collation: .binary) == .orderedSame
                else { return false }
            }
        }
        return true
    }

    /// Writes `columns` of each holder (key, values) with one statement per
    /// 100,000 rows; returns each row's new version by key.
    private func updateHolders(
        _ updates: [(primaryKey: Int64, values: [StoredValue])], columns: [Int], entityIndex: Int, in session: PostgresSession
    ) throws(StrataError) -> [Int64: Int64] {
        let types = ["bigint", "bigint"] + columnTypes(entityIndex: entityIndex, columns: columns)
        let rows = updates.map { update in
            [StoredValue.integer(update.primaryKey), .integer(0)]
                + layout.updateValues(entityIndex: entityIndex, columns: columns, values: update.values)
        }
        var versions: [Int64: Int64] = [:]
        versions.reserveCapacity(rows.count)
        for start in stride(from: 0, to: rows.count, by: 100_000) {
            let updated = try updateRows(
                rows[start..<min(start + 100_000, rows.count)], types: types, entityIndex: entityIndex, columns: columns,
                checkingVersion: false, in: session)
            for (key, version) in try PostgresSession.integerPairs(updated) { versions[key] = version }
        }
        return versions
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
}
