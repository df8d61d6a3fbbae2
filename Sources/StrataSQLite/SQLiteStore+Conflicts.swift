import StrataCore
import StrataSQL
import GRDB

/// What the checks before a write found: conflicts, or the order rows must be written in.
struct SaveCheck {
    var conflicts = StoreConflicts()
    /// Deleted rows whose unique key a row of the same save takes over: they go
    /// first, so the unique index never sees the key twice.
    var deletesFirst: [Int: Set<Int64>] = [:]

    func deletesFirst(_ delete: RowDelete) -> Bool {
        deletesFirst[delete.entityIndex]?.contains(delete.primaryKey) == true
    }
}

/// Thrown inside the write closure so GRDB rolls the transaction back.
struct ConflictAbort: Error {
    let conflicts: StoreConflicts
}

extension SQLiteStore {
    /// Checks the unique keys the save writes and, when `versions` is true or a
    /// key conflicts, the versions it expects, collecting every conflict rather
    /// than stopping at the first.
    ///
    /// Without `versions`, the writes check versions themselves (`WHERE pk = ?
    /// AND _version = ?`) and the save runs again with `versions` when one misses.
    func checkBeforeWriting(_ request: SaveRequest, versions: Bool = true, in db: Database) throws -> SaveCheck {
        var check = SaveCheck()
        check.conflicts.uniqueness = try uniquenessViolations(request, deletesFirst: &check.deletesFirst, in: db)
        if versions || !check.conflicts.uniqueness.isEmpty {
            check.conflicts.rows = try versionConflicts(request, in: db)
        }
        return check
    }

    private func versionConflicts(_ request: SaveRequest, in db: Database) throws -> [RowConflict] {
        var expected: [Int: [Int64: Int64]] = [:]
        for update in request.updates {
            if let version = update.expectedVersion { expected[update.entityIndex, default: [:]][update.primaryKey] = version }
        }
        for delete in request.deletes {
            if let version = delete.expectedVersion { expected[delete.entityIndex, default: [:]][delete.primaryKey] = version }
        }
        var conflicts: [RowConflict] = []
        for (entityIndex, versions) in expected.sorted(by: { $0.key < $1.key }) {
            let keys = versions.keys.sorted()
            var found: [Int64: StoredRow] = [:]
            try forEachRow(entityIndex: entityIndex, primaryKeys: keys, in: db) { cursor in
                found[cursor.primaryKey] = cursor.stored()
            }
            for key in keys {
                let stored = found[key]
                if stored?.version != versions[key] {
                    conflicts.append(RowConflict(entityIndex: entityIndex, primaryKey: key, stored: stored))
                }
            }
        }
        return conflicts
    }

    private func uniquenessViolations(
        _ request: SaveRequest, deletesFirst: inout [Int: Set<Int64>], in db: Database
    ) throws -> [UniquenessViolation] {
        var violations: [UniquenessViolation] = []
        var keysByEntity: [Int: [[Int]]] = [:]
        func uniqueKeys(_ entityIndex: Int) -> [[Int]] {
            if let keys = keysByEntity[entityIndex] { return keys }
            let keys = schema.entities[entityIndex].uniqueKeyOrdinals
            keysByEntity[entityIndex] = keys
            return keys
        }
        // Most schemas have no unique key: nothing to read.
        guard schema.entities.contains(where: { !uniqueKeys($0.index).isEmpty }) else { return violations }
        // Rows this save deletes, or whose key columns it rewrites, do not count
        // as holders here (the context checks the new keys among themselves).
        // Deleted holders are deleted first; a key moved between two updated rows
        // of one save is still rejected by SQLite's index.
        // Only entities with a unique key have holders: a save of 100,000 rows
        // of an entity without one records nothing here.
        var deleted: [Int: Set<Int64>] = [:]
        for delete in request.deletes where !uniqueKeys(delete.entityIndex).isEmpty {
            deleted[delete.entityIndex, default: []].insert(delete.primaryKey)
        }
        var rewritten: [Int: [Int64: Set<Int>]] = [:]
        for update in request.updates where !uniqueKeys(update.entityIndex).isEmpty {
            rewritten[update.entityIndex, default: [:]][update.primaryKey] = Set(update.columns)
        }
        func leaves(_ entityIndex: Int, _ primaryKey: Int64, _ columns: [Int]) -> Bool {
            if deleted[entityIndex]?.contains(primaryKey) == true { return true }
            guard let changed = rewritten[entityIndex]?[primaryKey] else { return false }
            return !changed.isDisjoint(with: columns)
        }

        func check(entityIndex: Int, columnValues: (Int) -> StoredValue?, changedColumns: Set<Int>?,
                   temporaryKey: UInt64?, primaryKey: Int64?) throws {
            let entity = schema.entities[entityIndex]
            for key in uniqueKeys(entityIndex) {
                let columns = key.map { entity.columnIndexByOrdinal[$0] }
                if let changedColumns, changedColumns.isDisjoint(with: columns) { continue }
                let values = columns.compactMap(columnValues)
                // NULLs never collide in a unique index; pending foreign keys are new rows.
                guard values.count == columns.count, !values.contains(where: \.isNull) else { continue }
                let layoutEntity = layout.entities[entityIndex]
                let condition = columns.map { "t0.\(layoutEntity.columns[$0]) = ?" }.joined(separator: " AND ")
                let sql = "SELECT \(layoutEntity.selectList) FROM \(layoutEntity.table) AS t0 WHERE \(condition)"
                var holder: StoredRow?
                var released: Int64?
                try readRows(sql: sql, arguments: values, entityIndex: entityIndex, in: db) { row in
                    guard row.primaryKey != primaryKey else { return }
                    if !leaves(entityIndex, row.primaryKey, columns) {
                        holder = row
                    } else if deleted[entityIndex]?.contains(row.primaryKey) == true {
                        released = row.primaryKey
                    }
                }
                if let released { deletesFirst[entityIndex, default: []].insert(released) }
                if let holder {
                    violations.append(UniquenessViolation(
                        entityIndex: entityIndex, constraint: key, temporaryKey: temporaryKey,
                        primaryKey: primaryKey, existing: holder))
                }
            }
        }

        for insert in request.inserts where !uniqueKeys(insert.entityIndex).isEmpty {
            let pending = Set(insert.pendingReferences.map(\.column))
            try check(entityIndex: insert.entityIndex,
                      columnValues: { pending.contains($0) ? nil : insert.values[$0] },
                      changedColumns: nil, temporaryKey: insert.temporaryKey, primaryKey: nil)
        }
        for update in request.updates where !uniqueKeys(update.entityIndex).isEmpty {
            let pending = Set(update.pendingReferences.map(\.column))
            let entity = schema.entities[update.entityIndex]
            let touchesKey = uniqueKeys(update.entityIndex).contains { key in
                key.contains { update.columns.contains(entity.columnIndexByOrdinal[$0]) }
            }
            guard touchesKey else { continue }
            // Columns of a compound key that the update leaves alone keep their stored value.
            var own: StoredRow?
            try readRows(sql: layout.entities[update.entityIndex].selectByKeySQL, arguments: [.integer(update.primaryKey)],
                         entityIndex: update.entityIndex, in: db) { own = $0 }
            let ordinals = entity.columnOrdinals
            try check(entityIndex: update.entityIndex,
                      columnValues: { column in
                          if pending.contains(column) { return nil }
                          if let position = update.columns.firstIndex(of: column) { return update.values[position] }
                          return own?.values[ordinals[column]]
                      },
                      changedColumns: Set(update.columns), temporaryKey: nil, primaryKey: update.primaryKey)
        }
        return violations
    }

    private func readRows(
        sql: String, arguments: [StoredValue], entityIndex: Int, in db: Database, _ body: (StoredRow) -> Void
    ) throws {
        try forEachRow(entityIndex: entityIndex, sql: sql, arguments: arguments, in: db) { cursor in
            body(cursor.stored())
        }
    }
}
