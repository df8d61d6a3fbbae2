/// The checks every store makes before it writes a save, inside the save's
/// transaction: the unique keys the save writes that another stored row
/// holds, the rows whose version moved since the context read them, and the
/// deleted rows whose unique key a row of the same save takes over (those are
/// deleted first, so no unique index ever sees the key twice). Every conflict
/// is collected, not only the first.
///
/// Versions are read when `versions` is set, or when a unique key is taken
/// (the conflict report then lists both). Without `versions`, a store's writes
/// check versions themselves and the save runs again with them when one misses.
///
/// ```swift
/// let checks = try SaveChecks(request, schema: schema, versions: false, in: executor)
/// let first = request.deletes.filter { checks.deletesFirst.contains(RowKey($0.entityIndex, $0.primaryKey)) }
/// ```
package struct SaveChecks {
    package var conflicts = StoreConflicts()
    package var deletesFirst: Set<RowKey> = []

    package init<Executor: StoreWriteExecutor>(
        _ request: SaveRequest, schema: Schema, versions: Bool, in executor: Executor
    ) throws(Executor.Failure) {
        if schema.hasUniqueKeys {
            var uniqueness = UniquenessCheck(request, schema: schema)
            try uniqueness.run(in: executor)
            conflicts.uniqueness = uniqueness.violations
            deletesFirst = uniqueness.deletesFirst
        }
        if versions || !conflicts.uniqueness.isEmpty {
            conflicts.rows = try Self.versionConflicts(request, in: executor)
        }
    }

    /// Rows the save updates or deletes whose version moved since they were
    /// read, by entity, then key.
    private static func versionConflicts<Executor: StoreWriteExecutor>(
        _ request: SaveRequest, in executor: Executor
    ) throws(Executor.Failure) -> [RowConflict] {
        var expected: [Int: [Int64: Int64]] = [:]
        for update in request.updates {
            if let version = update.expectedVersion { expected[update.entityIndex, default: [:]][update.primaryKey] = version }
        }
        for delete in request.deletes {
            if let version = delete.expectedVersion { expected[delete.entityIndex, default: [:]][delete.primaryKey] = version }
        }
        var conflicts: [RowConflict] = []
        for (entityIndex, versions) in expected.sorted(by: { $0.key < $1.key }) {
            let keys = versions.sorted { $0.key < $1.key }.map { (primaryKey: $0.key, version: $0.value) }
            conflicts += try executor.staleRows(entityIndex: entityIndex, expected: keys)
        }
        return conflicts
    }
}

/// The unique keys a save writes that another stored row holds: one the save
/// neither deletes nor moves off that key. The context checks the save's new
/// keys among themselves; a key moved between two rows of one save is left to
/// the store's own index.
private struct UniquenessCheck {
    let request: SaveRequest
    let schema: Schema
    /// Rows of entities with a unique key that the save deletes, or whose columns it rewrites.
    private var deleted = Set<RowKey>()
    private var rewritten: [RowKey: Set<Int>] = [:]
    var violations: [UniquenessViolation] = []
    var deletesFirst = Set<RowKey>()

    init(_ request: SaveRequest, schema: Schema) {
        self.request = request
        self.schema = schema
        // Only rows of entities with a unique key can hold one: a save of
        // 100,000 rows of an entity without one records nothing here.
        for delete in request.deletes where !schema.uniqueKeys[delete.entityIndex].isEmpty {
            deleted.insert(RowKey(delete.entityIndex, delete.primaryKey))
        }
        for update in request.updates where !schema.uniqueKeys[update.entityIndex].isEmpty {
            rewritten[RowKey(update.entityIndex, update.primaryKey)] = Set(update.columns)
        }
    }

    mutating func run<Executor: StoreWriteExecutor>(in executor: Executor) throws(Executor.Failure) {
        for insert in request.inserts where !schema.uniqueKeys[insert.entityIndex].isEmpty {
            let pending = Set(insert.pendingReferences.map(\.column))
            try check(
                entityIndex: insert.entityIndex, values: { pending.contains($0) ? nil : insert.values[$0] },
                changed: nil, temporaryKey: insert.temporaryKey, primaryKey: nil, in: executor)
        }
        for update in request.updates where !schema.uniqueKeys[update.entityIndex].isEmpty {
            let entity = schema.entities[update.entityIndex]
            let touchesKey = schema.uniqueKeys[update.entityIndex].contains { key in
                key.contains { update.columns.contains(entity.columnIndexByOrdinal[$0]) }
            }
            guard touchesKey else { continue }
            let pending = Set(update.pendingReferences.map(\.column))
            // Columns of a compound key that the update leaves alone keep their stored value.
            var own: StoredRow?
            try executor.readRows(entityIndex: update.entityIndex, keys: [update.primaryKey]) { own = $0 }
            let ordinals = entity.columnOrdinals
            try check(
                entityIndex: update.entityIndex,
                values: { column in
                    if pending.contains(column) { return nil }
                    if let position = update.columns.firstIndex(of: column) { return update.values[position] }
                    return own?.values[ordinals[column]]
                },
                changed: Set(update.columns), temporaryKey: nil, primaryKey: update.primaryKey, in: executor)
        }
    }

    private mutating func check<Executor: StoreWriteExecutor>(
        entityIndex: Int, values: (Int) -> StoredValue?, changed: Set<Int>?, temporaryKey: UInt64?, primaryKey: Int64?,
        in executor: Executor
    ) throws(Executor.Failure) {
        let entity = schema.entities[entityIndex]
        for (constraint, key) in schema.uniqueKeys[entityIndex].enumerated() {
            let columns = key.map { entity.columnIndexByOrdinal[$0] }
            if let changed, changed.isDisjoint(with: columns) { continue }
            let keyValues = columns.compactMap(values)
            // NULLs never collide in a unique index; pending foreign keys are new rows.
            guard keyValues.count == columns.count, !keyValues.contains(where: \.isNull) else { continue }
            var holder: StoredRow?
            var released: RowKey?
            try executor.rowsHolding(entityIndex: entityIndex, constraint: constraint, columns: columns, values: keyValues) { row in
                guard row.primaryKey != primaryKey else { return }
                let rowKey = RowKey(entityIndex, row.primaryKey)
                if !leaves(rowKey, columns) {
                    holder = row
                } else if deleted.contains(rowKey) {
                    released = rowKey
                }
            }
            if let released { deletesFirst.insert(released) }
            if let holder {
                violations.append(UniquenessViolation(
                    entityIndex: entityIndex, constraint: key, temporaryKey: temporaryKey, primaryKey: primaryKey,
                    existing: holder))
            }
        }
    }

    /// Whether a stored row gives up a key: the save deletes it, or rewrites one of the key's columns.
    private func leaves(_ row: RowKey, _ columns: [Int]) -> Bool {
        if deleted.contains(row) { return true }
        guard let changed = rewritten[row] else { return false }
        return !changed.isDisjoint(with: columns)
    }
}
