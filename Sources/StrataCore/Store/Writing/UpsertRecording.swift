/// What one request row of a batch upsert did: the stored row it inserted or
/// updated, at which version, with which columns.
package struct UpsertOutcome: Sendable {
    package var primaryKey: Int64
    package var version: Int64
    /// The row's index in the request's `BatchRows.values`.
    package var row: Int
    package var inserted: Bool
    /// The columns the row wrote.
    package var columns: [Int]

    package init(primaryKey: Int64, version: Int64, row: Int, inserted: Bool, columns: [Int]) {
        self.primaryKey = primaryKey
        self.version = version
        self.row = row
        self.inserted = inserted
        self.columns = columns
    }
}

extension BatchRows {
    /// The columns a request row writes: every batch column, or with
    /// `.update(allColumns: false)` those the row sets.
    package func writtenColumns(ofRow row: Int, action: UpsertAction, allColumns: [Int]) -> [Int] {
        guard action == .update(allColumns: false), !columnSets.isEmpty else { return allColumns }
        return columnSets[columnSetOfRow[row]]
    }

    /// Positions in `kept` by the columns their rows write, the column sets in
    /// lexicographic order: rows that write the same columns go together.
    package func groupedByWrittenColumns(
        _ kept: [Int], action: UpsertAction, allColumns: [Int]
    ) -> [(columns: [Int], positions: [Int])] {
        if action != .update(allColumns: false) || columnSets.count <= 1, let first = kept.first {
            return [(writtenColumns(ofRow: first, action: action, allColumns: allColumns), Array(kept.indices))]
        }
        var groups: [[Int]: [Int]] = [:]
        for (position, row) in kept.enumerated() {
            groups[writtenColumns(ofRow: row, action: action, allColumns: allColumns), default: []].append(position)
        }
        return groups.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { ($0, groups[$0]!) }
    }
}

/// Turns what a batch upsert did into its change set, written once for every
/// store: one record per stored row (by key), and ordered one-to-many
/// members appended after their new owner's others.
///
/// ```swift
/// try UpsertRecording.record(outcomes, rows: rows.values, entityIndex: 0, old: [:], of: self, into: &result, in: executor)
/// ```
package enum UpsertRecording {
    /// `old`: the stored values of updated rows before the upsert, by key
    /// (needed where the entity has ordered to-ones: a member that moves
    /// leaves its previous owner).
    package static func record<Executor: StoreWriteExecutor>(
        _ outcomes: [UpsertOutcome], rows: [[StoredValue]], entityIndex: Int, old: [Int64: ContiguousArray<StoredValue>],
        of store: some PersistentStore, into result: inout BatchWriteResult, in executor: Executor
    ) throws(Executor.Failure) {
        let entity = store.schema.entities[entityIndex]
        let ordered = store.schema.orderedToOneOrdinals(of: entityIndex)
        let changed = ChangedRows(entity, storeIdentifier: store.identifier)
        // Rows mostly write one set of columns: its ordinals are made once.
        var lastColumns: [Int] = [], lastOrdinals: [Int] = []
        func append(_ key: Int64, inserted: Bool, columns: [Int], values: [StoredValue], version: Int64) {
            result.primaryKeys.append(key)
            if columns != lastColumns {
                lastColumns = columns
                lastOrdinals = columns.map { entity.columnOrdinals[$0] }
            }
            let change = changed.row(key, ordinals: lastOrdinals, values: values, version: version)
            if inserted { result.changes.inserted.append(change) } else { result.changes.updated.append(change) }
        }
        // Each stored row reached once (the usual case): its change is its
        // row's written columns, with no merging of writes.
        var reached = Set<Int64>(minimumCapacity: outcomes.count)
        if ordered.isEmpty, outcomes.allSatisfy({ reached.insert($0.primaryKey).inserted }) {
            for outcome in outcomes.sorted(by: { $0.primaryKey < $1.primaryKey }) {
                let row = rows[outcome.row]
                // Columns are ascending and distinct: as many as the row has are all of them.
                let values = outcome.columns.count == row.count ? row : outcome.columns.map { row[$0] }
                append(outcome.primaryKey, inserted: outcome.inserted, columns: outcome.columns, values: values, version: outcome.version)
            }
            return
        }
        // A stored row reached twice (through different keys, by rows that set
        // different columns) is one change holding both writes, the later on top.
        var folded: [Int64: (inserted: Bool, version: Int64, values: [Int: StoredValue])] = [:]
        for outcome in outcomes {
            var entry = folded[outcome.primaryKey] ?? (outcome.inserted, outcome.version, [:])
            entry.version = max(entry.version, outcome.version)
            for column in outcome.columns { entry.values[column] = rows[outcome.row][column] }
            folded[outcome.primaryKey] = entry
        }
        var owners: Set<ChangeSet.ToManyChange> = []
        for key in folded.keys.sorted() {
            let entry = folded[key]!
            let columns = entry.values.keys.sorted()
            append(key, inserted: entry.inserted, columns: columns, values: columns.map { entry.values[$0]! }, version: entry.version)
            // A member of an ordered one-to-many goes after its new owner's other members.
            for ordinal in ordered {
                guard let now = entry.values[entity.columnIndexByOrdinal[ordinal]] else { continue }
                let before = entry.inserted ? StoredValue.null : old[key]?[ordinal] ?? .null
                guard before != now else { continue }
                let (ownerIndex, inverse) = (entity.destinationIndexByOrdinal[ordinal], entity.inverseOrdinalByOrdinal[ordinal])
                if case .integer(let previousOwner) = before {
                    owners.insert(store.toManyChange(entityIndex: ownerIndex, ordinal: inverse, primaryKey: previousOwner))
                }
                guard case .integer(let owner) = now else { continue }
                try executor.appendMember(entityIndex: ownerIndex, ordinal: inverse, owner: owner, member: key)
                owners.insert(store.toManyChange(entityIndex: ownerIndex, ordinal: inverse, primaryKey: owner))
            }
        }
        result.changes.toManyChanges += owners.sorted { $0.objectID.description < $1.objectID.description }
    }
}
