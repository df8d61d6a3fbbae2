/// Saves into an in-memory store, with the SQLite store's semantics: the same
/// conflicts found before anything is written, the same two attempts (writes
/// check versions themselves; when one misses, everything is taken back and
/// the save runs again reporting every conflict), the same order of writes
/// (deletions that free a unique key, inserts, updates, to-many order, other
/// deletions, each group by entity and key), the same change set and history.
extension MemoryStore {
    package func save(_ request: SaveRequest, origin: ObjectIdentifier?) throws(StrataError) -> SaveResult {
        // First without reading versions (the writes check them); when one
        // misses, everything is taken back and the save runs again reporting
        // every conflict. The second attempt checks first, so it cannot miss.
        var outcome = try writeOrTakeBack { database, history throws(StrataError) in
            try attempt(request, origin: origin, checkFirst: false, in: database, history: &history)
        }
        if outcome == nil {
            outcome = try writeOrTakeBack { database, history throws(StrataError) in
                try attempt(request, origin: origin, checkFirst: true, in: database, history: &history)
            }
        }
        let result = outcome ?? SaveResult(changes: ChangeSet(storeIdentifier: identifier))
        if result.conflicts.isEmpty { didCommit(result.changes) }
        return result
    }

    private func attempt(
        _ request: SaveRequest, origin: ObjectIdentifier?, checkFirst: Bool, in database: MemoryDatabase,
        history: inout MemoryHistory
    ) throws(StrataError) -> SaveResult? {
        var conflicts = StoreConflicts()
        let unique = uniquenessCheck(of: request, in: database)
        conflicts.uniqueness = unique.violations
        if checkFirst || !conflicts.uniqueness.isEmpty {
            conflicts.rows = versionConflicts(of: request, in: database)
        }
        if !conflicts.isEmpty {
            return SaveResult(changes: ChangeSet(storeIdentifier: identifier), conflicts: conflicts)
        }
        let previous = previousValues(
            deleting: request.deletes.map { ($0.entityIndex, $0.primaryKey) },
            updating: request.updates.map { ($0.entityIndex, $0.primaryKey) }, in: database)
        var changes = ChangeSet(storeIdentifier: identifier)
        changes.author = request.author
        changes.contextName = request.contextName
        changes.originToken = origin
        var result = SaveResult(changes: changes)
        if database.hasDenyRules {
            var doomed: [Int: Set<Int64>] = [:]
            for delete in request.deletes { doomed[delete.entityIndex, default: []].insert(delete.primaryKey) }
            database.releaseDeniedKeys(among: doomed)
        }
        let first = Self.ordered(request.deletes.filter { unique.deletesFirst.contains(RowKey($0.entityIndex, $0.primaryKey)) })
        let rest = Self.ordered(request.deletes.filter { !unique.deletesFirst.contains(RowKey($0.entityIndex, $0.primaryKey)) })
        guard try deleteRows(first, checked: checkFirst, into: &result, in: database) else { return nil }
        try insertRows(request, into: &result, in: database)
        guard try updateRows(request, checked: checkFirst, into: &result, in: database) else { return nil }
        try writeRelationships(request, into: &result, in: database)
        guard try deleteRows(rest, checked: checkFirst, into: &result, in: database) else { return nil }
        for (key, value) in request.metadata { database.setMetadata(value, forKey: key) }
        result.changes.historyToken = recordHistory(of: result.changes, previous: previous, in: &history)
        return result
    }

    /// Deletions by entity, then primary key, as the SQLite store runs them.
    private static func ordered(_ deletes: [RowDelete]) -> [RowDelete] {
        deletes.sorted { ($0.entityIndex, $0.primaryKey) < ($1.entityIndex, $1.primaryKey) }
    }

    struct RowKey: Hashable {
        var entityIndex: Int
        var primaryKey: Int64
        init(_ entityIndex: Int, _ primaryKey: Int64) {
            self.entityIndex = entityIndex
            self.primaryKey = primaryKey
        }
    }

    // MARK: Checks before writing

    /// Rows the save updates or deletes whose version moved since they were read.
    private func versionConflicts(of request: SaveRequest, in database: MemoryDatabase) -> [RowConflict] {
        var expected: [RowKey: Int64] = [:]
        for update in request.updates { if let version = update.expectedVersion { expected[RowKey(update.entityIndex, update.primaryKey)] = version } }
        for delete in request.deletes { if let version = delete.expectedVersion { expected[RowKey(delete.entityIndex, delete.primaryKey)] = version } }
        return expected.keys.sorted { ($0.entityIndex, $0.primaryKey) < ($1.entityIndex, $1.primaryKey) }.compactMap { key in
            let row = database.row(key.entityIndex, key.primaryKey)
            guard row?.version != expected[key] else { return nil }
            return RowConflict(
                entityIndex: key.entityIndex, primaryKey: key.primaryKey,
                stored: row.map { StoredRow(primaryKey: key.primaryKey, version: $0.version, values: $0.values) })
        }
    }

    /// The unique keys the save writes that another stored row holds (one the
    /// save neither deletes nor moves off that key), and the deleted rows whose
    /// key a row of the save takes over: those are deleted first.
    private func uniquenessCheck(
        of request: SaveRequest, in database: MemoryDatabase
    ) -> (violations: [UniquenessViolation], deletesFirst: Set<RowKey>) {
        // Only rows of entities with a unique key can hold one.
        let deleted = Set(request.deletes.lazy.filter { !database.uniqueKeys[$0.entityIndex].isEmpty }
            .map { RowKey($0.entityIndex, $0.primaryKey) })
        var rewritten: [RowKey: Set<Int>] = [:]
        for update in request.updates where !database.uniqueKeys[update.entityIndex].isEmpty {
            rewritten[RowKey(update.entityIndex, update.primaryKey)] = Set(update.columns)
        }
        var violations: [UniquenessViolation] = []
        var deletesFirst = Set<RowKey>()
        func check(_ entityIndex: Int, values: (Int) -> StoredValue?, changed: Set<Int>?, temporaryKey: UInt64?, primaryKey: Int64?) {
            let entity = schema.entities[entityIndex]
            for (constraint, key) in database.uniqueKeys[entityIndex].enumerated() {
                let columns = key.map { entity.columnIndexByOrdinal[$0] }
                if let changed, changed.isDisjoint(with: columns) { continue }
                let keyValues = columns.compactMap(values)
                guard keyValues.count == columns.count, !keyValues.contains(where: \.isNull),
                      let holder = database.holder(of: keyValues, constraint: constraint, entityIndex: entityIndex),
                      holder != primaryKey else { continue }
                let holderKey = RowKey(entityIndex, holder)
                if deleted.contains(holderKey) {
                    deletesFirst.insert(holderKey)
                    continue
                }
                if let moved = rewritten[holderKey], !moved.isDisjoint(with: columns) { continue }
                guard let row = database.row(entityIndex, holder) else { continue }
                violations.append(UniquenessViolation(
                    entityIndex: entityIndex, constraint: key, temporaryKey: temporaryKey, primaryKey: primaryKey,
                    existing: StoredRow(primaryKey: holder, version: row.version, values: row.values)))
            }
        }
        for insert in request.inserts where !database.uniqueKeys[insert.entityIndex].isEmpty {
            let pending = Set(insert.pendingReferences.map(\.column))
            check(insert.entityIndex, values: { pending.contains($0) ? nil : insert.values[$0] },
                  changed: nil, temporaryKey: insert.temporaryKey, primaryKey: nil)
        }
        for update in request.updates where !database.uniqueKeys[update.entityIndex].isEmpty {
            let pending = Set(update.pendingReferences.map(\.column))
            let entity = schema.entities[update.entityIndex]
            // Columns of a compound key that the update leaves alone keep their stored value.
            let own = database.row(update.entityIndex, update.primaryKey)
            check(update.entityIndex, values: { column in
                if pending.contains(column) { return nil }
                if let position = update.columns.firstIndex(of: column) { return update.values[position] }
                return own?.values[entity.columnOrdinals[column]]
            }, changed: Set(update.columns), temporaryKey: nil, primaryKey: update.primaryKey)
        }
        return (violations, deletesFirst)
    }

    // MARK: Writing

    private func insertRows(_ request: SaveRequest, into result: inout SaveResult, in database: MemoryDatabase) throws(StrataError) {
        guard !request.inserts.isEmpty else { return }
        var counts: [Int: Int64] = [:]
        for insert in request.inserts { counts[insert.entityIndex, default: 0] += 1 }
        var next: [Int: Int64] = [:]
        for (entityIndex, count) in counts.sorted(by: { $0.key < $1.key }) {
            next[entityIndex] = database.reserveKeys(entityIndex, count: count)
        }
        for insert in request.inserts {
            let key = next[insert.entityIndex]!
            next[insert.entityIndex] = key + 1
            result.insertedKeys.append(key)
        }
        let needsKeyMap = !request.toManyWrites.isEmpty || !request.toManyAppends.isEmpty
            || request.inserts.contains { !$0.pendingReferences.isEmpty }
            || request.updates.contains { !$0.pendingReferences.isEmpty }
        if needsKeyMap {
            for (insert, key) in zip(request.inserts, result.insertedKeys) { result.assignedKeys[insert.temporaryKey] = key }
        }
        for (insert, key) in zip(request.inserts, result.insertedKeys) {
            let entity = schema.entities[insert.entityIndex]
            var values = insert.values
            for reference in insert.pendingReferences {
                guard let target = result.assignedKeys[reference.temporaryKey] else {
                    throw PendingReference.unsaved
                }
                values[reference.column] = .integer(target)
            }
            var row = ContiguousArray<StoredValue>(repeating: .null, count: entity.properties.count)
            for (column, ordinal) in entity.columnOrdinals.enumerated() { row[ordinal] = values[column] }
            try database.put(MemoryDatabase.Row(version: 1, values: row), entityIndex: entity.index, key: key)
            result.changes.inserted.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
                entity: entity, ordinals: entity.columnOrdinals, values: values, version: 1))
        }
    }

    /// Writes the updates; false when a versioned one missed (before checks were made).
    private func updateRows(
        _ request: SaveRequest, checked: Bool, into result: inout SaveResult, in database: MemoryDatabase
    ) throws(StrataError) -> Bool {
        for update in request.updates {
            let entity = schema.entities[update.entityIndex]
            let values = try update.resolvedValues(assignedKeys: result.assignedKeys)
            guard var row = database.row(update.entityIndex, update.primaryKey),
                  update.expectedVersion.map({ $0 == row.version }) ?? true else {
                if !checked, update.expectedVersion != nil { return false }
                let objectID = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: update.primaryKey)
                throw StrataError(
                    .mergeConflict, "\(objectID) was deleted from the store by another context; nothing was saved",
                    entityName: entity.name, objectIDs: [objectID])
            }
            row.version += 1
            let ordinals = update.columns.map { entity.columnOrdinals[$0] }
            for (ordinal, value) in zip(ordinals, values) { row.values[ordinal] = value }
            try database.put(row, entityIndex: update.entityIndex, key: update.primaryKey)
            result.updatedVersions.append(row.version)
            result.changes.updated.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: update.primaryKey),
                entity: entity, ordinals: ordinals, values: values, version: row.version))
        }
        return true
    }

    /// Deletes rows; false when one's version moved or a versioned row is
    /// gone (before checks were made). Checked deletions skip rows that are gone.
    private func deleteRows(
        _ deletes: [RowDelete], checked: Bool, into result: inout SaveResult, in database: MemoryDatabase
    ) throws(StrataError) -> Bool {
        if !checked {
            for delete in deletes where delete.expectedVersion != nil
            && database.row(delete.entityIndex, delete.primaryKey)?.version != delete.expectedVersion {
                return false
            }
        }
        for delete in deletes {
            try database.delete(delete.entityIndex, delete.primaryKey)
            let entity = schema.entities[delete.entityIndex]
            result.changes.deleted.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: delete.primaryKey),
                entity: entity, ordinals: [], values: [], version: 0))
        }
        return true
    }

    /// To-many order and join membership, as the app's arrays have them.
    private func writeRelationships(
        _ request: SaveRequest, into result: inout SaveResult, in database: MemoryDatabase
    ) throws(StrataError) {
        guard !request.toManyWrites.isEmpty || !request.toManyAppends.isEmpty else { return }
        let assigned = result.assignedKeys
        func key(_ reference: RowReference) throws(StrataError) -> Int64 {
            switch reference {
            case .stored(let key):
                return key
            case .pending(let temporary):
                guard let key = assigned[temporary] else {
                    throw StrataError(.validation, "A relationship holds an object that is not being saved")
                }
                return key
            }
        }
        var changes: [ChangeSet.ToManyChange] = []
        func record(_ entityIndex: Int, _ ordinal: Int, _ primaryKey: Int64) {
            guard ordinal >= 0 else { return }
            changes.append(toManyChange(entityIndex: entityIndex, ordinal: ordinal, primaryKey: primaryKey))
        }
        for write in request.toManyWrites {
            guard let shape = schema.toManyShape(entityIndex: write.entityIndex, ordinal: write.ordinal) else { continue }
            let owner = try key(write.owner)
            var members: [Int64] = []
            for member in write.members { members.append(try key(member)) }
            record(write.entityIndex, write.ordinal, owner)
            switch shape {
            case .foreignKey(let destination, let inverse):
                for (position, member) in members.enumerated() {
                    database.setPosition(Int64(position), entityIndex: destination, key: member, ordinal: inverse)
                }
            case .join(let join, let ownerIsSource, let destination):
                let inverse = schema.entities[write.entityIndex].inverseOrdinalByOrdinal[write.ordinal]
                let stored = Set(database.members(of: owner, shape: shape))
                func pair(_ member: Int64) -> MemoryDatabase.Join.Pair {
                    ownerIsSource ? .init(source: owner, target: member) : .init(source: member, target: owner)
                }
                for member in stored.subtracting(members).sorted() {
                    database.removePair(join, pair(member))
                    record(destination, inverse, member)
                }
                for (position, member) in members.enumerated() {
                    var positions = database.pairs(join)?.pairs[pair(member)]
                        // A new pair goes last among the member's own owners.
                        ?? .init(source: 0, target: 0).placingMember(
                            after: database.highestPosition(in: join, of: member, asTarget: ownerIsSource),
                            asTarget: ownerIsSource)
                    if ownerIsSource { positions.source = Int64(position) } else { positions.target = Int64(position) }
                    try database.setPair(join, pair(member), positions)
                    if !stored.contains(member) { record(destination, inverse, member) }
                }
            }
        }
        for append in request.toManyAppends {
            guard case .foreignKey(let destination, let inverse)? = schema.toManyShape(
                entityIndex: append.entityIndex, ordinal: append.ordinal) else { continue }
            let owner = try key(append.owner)
            database.appendPosition(entityIndex: destination, key: try key(append.member), ordinal: inverse)
            record(append.entityIndex, append.ordinal, owner)
        }
        result.changes.toManyChanges += changes
    }

    /// The change record of one owner's to-many relationship.
    func toManyChange(entityIndex: Int, ordinal: Int, primaryKey: Int64) -> ChangeSet.ToManyChange {
        let entity = schema.entities[entityIndex]
        return ChangeSet.ToManyChange(
            objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: primaryKey),
            relationshipName: entity.properties[ordinal].name, entityIndex: entityIndex, ordinal: ordinal)
    }
}
