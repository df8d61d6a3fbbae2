import StrataCore
import StrataSQL

/// What a save's checks found: conflicts, and the deleted rows whose unique
/// key a row of the save takes over (they are deleted first).
struct PostgresSaveCheck {
    var conflicts = StoreConflicts()
    var deletesFirst: Set<RowKey> = []
}

extension PostgresStore {
    /// The checks the SQLite store makes, made under the write lock so that
    /// no other server's save can slip in before this one writes.
    /// Versions are read only when `versions` is set, or when a unique key is
    /// taken (the conflict report then lists both).
    func checkBeforeWriting(_ request: SaveRequest, versions: Bool, in session: PostgresSession) throws(StrataError) -> PostgresSaveCheck {
        var check = PostgresSaveCheck()
        check.conflicts.uniqueness = try uniquenessViolations(request, deletesFirst: &check.deletesFirst, in: session)
        if versions || !check.conflicts.uniqueness.isEmpty {
            check.conflicts.rows = try versionConflicts(request, in: session)
        }
        return check
    }

    /// Rows the save updates or deletes whose version moved since they were read.
    private func versionConflicts(_ request: SaveRequest, in session: PostgresSession) throws(StrataError) -> [RowConflict] {
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
            // Cheap first: the versions alone; whole rows only for conflicts.
            let entity = layout.entities[entityIndex]
            var stale: [Int64] = []
            var found: Set<Int64> = []
            for row in try session.rows(
                "SELECT pk, \(StorageNaming.versionColumn) FROM \(entity.table) WHERE pk = ANY($1)",
                arguments: [.keys(keys)]) {
                var cells = row.makeIterator()
                guard let key = try cells.next().flatMap({ cell throws(StrataError) in try PostgresSession.integer(cell) }),
                      let version = try cells.next().flatMap({ cell throws(StrataError) in try PostgresSession.integer(cell) })
                else { continue }
                found.insert(key)
                if versions[key] != version { stale.append(key) }
            }
            var rows: [Int64: StoredRow] = [:]
            try fetchRows(entityIndex: entityIndex, primaryKeys: stale, in: session) { cursor, _ in rows[cursor.primaryKey] = cursor.stored() }
            for key in keys where !found.contains(key) || rows[key] != nil {
                conflicts.append(RowConflict(entityIndex: entityIndex, primaryKey: key, stored: rows[key]))
            }
        }
        return conflicts
    }

    /// The unique keys the save writes that another stored row holds (one the
    /// save neither deletes nor moves off that key).
    private func uniquenessViolations(
        _ request: SaveRequest, deletesFirst: inout Set<RowKey>, in session: PostgresSession
    ) throws(StrataError) -> [UniquenessViolation] {
        var violations: [UniquenessViolation] = []
        let uniqueKeys = schema.entities.map(\.uniqueKeyOrdinals)
        guard uniqueKeys.contains(where: { !$0.isEmpty }) else { return violations }
        var deleted = Set<RowKey>()
        for delete in request.deletes where !uniqueKeys[delete.entityIndex].isEmpty {
            deleted.insert(RowKey(delete.entityIndex, delete.primaryKey))
        }
        var rewritten: [RowKey: Set<Int>] = [:]
        for update in request.updates where !uniqueKeys[update.entityIndex].isEmpty {
            rewritten[RowKey(update.entityIndex, update.primaryKey)] = Set(update.columns)
        }
        func leaves(_ key: RowKey, _ columns: [Int]) -> Bool {
            if deleted.contains(key) { return true }
            guard let changed = rewritten[key] else { return false }
            return !changed.isDisjoint(with: columns)
        }
        func check(
            entityIndex: Int, columnValues: (Int) -> StoredValue?, changedColumns: Set<Int>?, temporaryKey: UInt64?, primaryKey: Int64?
        ) throws(StrataError) {
            let entity = schema.entities[entityIndex]
            let table = layout.entities[entityIndex]
            for key in uniqueKeys[entityIndex] {
                let columns = key.map { entity.columnIndexByOrdinal[$0] }
                if let changedColumns, changedColumns.isDisjoint(with: columns) { continue }
                let values = columns.compactMap(columnValues)
                // NULLs never collide in a unique index; pending foreign keys are new rows.
                guard values.count == columns.count, !values.contains(where: \.isNull) else { continue }
                let condition = columns.enumerated().map { "t0.\(table.columns[$0.element]) = $\($0.offset + 1)" }
                    .joined(separator: " AND ")
                var holder: StoredRow?
                var released: Int64?
                try readRows(
                    entityIndex: entityIndex, sql: "SELECT \(table.selectList) FROM \(table.table) AS t0 WHERE \(condition)",
                    arguments: values.map(PostgresArgument.value), in: session) { cursor, _ in
                    guard cursor.primaryKey != primaryKey else { return }
                    let rowKey = RowKey(entityIndex, cursor.primaryKey)
                    if !leaves(rowKey, columns) {
                        holder = cursor.stored()
                    } else if deleted.contains(rowKey) {
                        released = cursor.primaryKey
                    }
                }
                if let released { deletesFirst.insert(RowKey(entityIndex, released)) }
                if let holder {
                    violations.append(UniquenessViolation(
                        entityIndex: entityIndex, constraint: key, temporaryKey: temporaryKey, primaryKey: primaryKey, existing: holder))
                }
            }
        }
        for insert in request.inserts where !uniqueKeys[insert.entityIndex].isEmpty {
            let pending = Set(insert.pendingReferences.map(\.column))
            try check(
                entityIndex: insert.entityIndex, columnValues: { pending.contains($0) ? nil : insert.values[$0] },
                changedColumns: nil, temporaryKey: insert.temporaryKey, primaryKey: nil)
        }
        for update in request.updates where !uniqueKeys[update.entityIndex].isEmpty {
            let pending = Set(update.pendingReferences.map(\.column))
            let entity = schema.entities[update.entityIndex]
            let touchesKey = uniqueKeys[update.entityIndex].contains { key in
                key.contains { update.columns.contains(entity.columnIndexByOrdinal[$0]) }
            }
            guard touchesKey else { continue }
            // Columns of a compound key that the update leaves alone keep their stored value.
            var own: StoredRow?
            try fetchRows(entityIndex: update.entityIndex, primaryKeys: [update.primaryKey], in: session) { cursor, _ in
                own = cursor.stored()
            }
            let ordinals = entity.columnOrdinals
            try check(
                entityIndex: update.entityIndex,
                columnValues: { column in
                    if pending.contains(column) { return nil }
                    if let position = update.columns.firstIndex(of: column) { return update.values[position] }
                    return own?.values[ordinals[column]]
                },
                changedColumns: Set(update.columns), temporaryKey: nil, primaryKey: update.primaryKey)
        }
        return violations
    }
}
