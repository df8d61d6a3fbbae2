/// Saves into an in-memory store, with the SQLite store's semantics: the same
/// conflicts found before anything is written, the same order of writes
/// (deletions that free a unique key, inserts, updates, to-many order, other
/// deletions), the same change set and history.
extension MemoryStore {
    package func save(_ request: SaveRequest, origin: ObjectIdentifier?) throws(StrataError) -> SaveResult {
        let result = try write { database, history throws(StrataError) in
            var conflicts = StoreConflicts()
            conflicts.rows = versionConflicts(of: request, in: database)
            conflicts.uniqueness = uniquenessViolations(of: request, in: database)
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
            let first = keyFreeingDeletes(of: request, in: database)
            try deleteRows(request.deletes.filter { first.contains(RowKey($0.entityIndex, $0.primaryKey)) }, into: &result, in: database)
            try insertRows(request, into: &result, in: database)
            try updateRows(request, into: &result, in: database)
            writeRelationships(request, into: &result, in: database)
            try deleteRows(request.deletes.filter { !first.contains(RowKey($0.entityIndex, $0.primaryKey)) }, into: &result, in: database)
            for (key, value) in request.metadata { database.setMetadata(value, forKey: key) }
            result.changes.historyToken = recordHistory(of: result.changes, previous: previous, in: &history)
            return result
        }
        if result.conflicts.isEmpty { didCommit(result.changes) }
        return result
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

    /// The unique keys the save writes that another stored row holds (one that
    /// the save neither deletes nor moves off that key).
    private func uniquenessViolations(of request: SaveRequest, in database: MemoryDatabase) -> [UniquenessViolation] {
        let deleted = Set(request.deletes.map { RowKey($0.entityIndex, $0.primaryKey) })
        var rewritten: [RowKey: Set<Int>] = [:]
        for update in request.updates { rewritten[RowKey(update.entityIndex, update.primaryKey)] = Set(update.columns) }
        var violations: [UniquenessViolation] = []
        func check(_ entityIndex: Int, values: (Int) -> StoredValue?, changed: Set<Int>?, temporaryKey: UInt64?, primaryKey: Int64?) {
            let entity = schema.entities[entityIndex]
            for (constraint, key) in entity.uniqueKeyOrdinals.enumerated() {
                let columns = key.map { entity.columnIndexByOrdinal[$0] }
                if let changed, changed.isDisjoint(with: columns) { continue }
                let keyValues = columns.compactMap(values)
                guard keyValues.count == columns.count, !keyValues.contains(where: \.isNull),
                      let holder = database.holder(of: keyValues, constraint: constraint, entityIndex: entityIndex),
                      holder != primaryKey else { continue }
                let holderKey = RowKey(entityIndex, holder)
                if deleted.contains(holderKey) { continue }
                if let moved = rewritten[holderKey], !moved.isDisjoint(with: columns) { continue }
                guard let row = database.row(entityIndex, holder) else { continue }
                violations.append(UniquenessViolation(
                    entityIndex: entityIndex, constraint: key, temporaryKey: temporaryKey, primaryKey: primaryKey,
                    existing: StoredRow(primaryKey: holder, version: row.version, values: row.values)))
            }
        }
        for insert in request.inserts where !schema.entities[insert.entityIndex].uniqueKeyOrdinals.isEmpty {
            let pending = Set(insert.pendingReferences.map(\.column))
            check(insert.entityIndex, values: { pending.contains($0) ? nil : insert.values[$0] },
                  changed: nil, temporaryKey: insert.temporaryKey, primaryKey: nil)
        }
        for update in request.updates where !schema.entities[update.entityIndex].uniqueKeyOrdinals.isEmpty {
            let pending = Set(update.pendingReferences.map(\.column))
            let entity = schema.entities[update.entityIndex]
            let own = database.row(update.entityIndex, update.primaryKey)
            check(update.entityIndex, values: { column in
                if pending.contains(column) { return nil }
                if let position = update.columns.firstIndex(of: column) { return update.values[position] }
                return own?.values[entity.columnOrdinals[column]]
            }, changed: Set(update.columns), temporaryKey: nil, primaryKey: update.primaryKey)
        }
        return violations
    }

    /// Deleted rows whose unique key a row of the same save takes over: they go first.
    private func keyFreeingDeletes(of request: SaveRequest, in database: MemoryDatabase) -> Set<RowKey> {
        guard !request.deletes.isEmpty else { return [] }
        var taken = Set<[StoredValue]>()
        func note(_ entityIndex: Int, _ values: (Int) -> StoredValue?) {
            let entity = schema.entities[entityIndex]
            for (constraint, key) in entity.uniqueKeyOrdinals.enumerated() {
                let keyValues = key.compactMap { values(entity.columnIndexByOrdinal[$0]) }
                guard keyValues.count == key.count, !keyValues.contains(where: \.isNull) else { continue }
                taken.insert([.integer(Int64(entityIndex)), .integer(Int64(constraint))] + keyValues)
            }
        }
        for insert in request.inserts { note(insert.entityIndex) { insert.values[$0] } }
        for update in request.updates {
            note(update.entityIndex) { column in update.columns.firstIndex(of: column).map { update.values[$0] } }
        }
        var first = Set<RowKey>()
        for delete in request.deletes {
            guard let row = database.row(delete.entityIndex, delete.primaryKey) else { continue }
            let entity = schema.entities[delete.entityIndex]
            for (constraint, key) in entity.uniqueKeyOrdinals.enumerated()
            where taken.contains([.integer(Int64(delete.entityIndex)), .integer(Int64(constraint))] + key.map { row.values[$0] }) {
                first.insert(RowKey(delete.entityIndex, delete.primaryKey))
            }
        }
        return first
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
                    throw StrataError(.validation, "A relationship points to an object that is not being saved")
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

    private func updateRows(_ request: SaveRequest, into result: inout SaveResult, in database: MemoryDatabase) throws(StrataError) {
        for update in request.updates {
            let entity = schema.entities[update.entityIndex]
            var values = update.values
            for reference in update.pendingReferences {
                guard let position = update.columns.firstIndex(of: reference.column),
                      let key = result.assignedKeys[reference.temporaryKey] else { continue }
                values[position] = .integer(key)
            }
            guard var row = database.row(update.entityIndex, update.primaryKey),
                  update.expectedVersion.map({ $0 == row.version }) ?? true else {
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
    }

    private func deleteRows(_ deletes: [RowDelete], into result: inout SaveResult, in database: MemoryDatabase) throws(StrataError) {
        for delete in deletes {
            try database.delete(delete.entityIndex, delete.primaryKey)
            let entity = schema.entities[delete.entityIndex]
            result.changes.deleted.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: delete.primaryKey),
                entity: entity, ordinals: [], values: [], version: 0))
        }
    }

    /// To-many order and join membership, as the app's arrays have them.
    private func writeRelationships(_ request: SaveRequest, into result: inout SaveResult, in database: MemoryDatabase) {
        guard !request.toManyWrites.isEmpty || !request.toManyAppends.isEmpty else { return }
        let assigned = result.assignedKeys
        func key(_ reference: RowReference) -> Int64? {
            switch reference {
            case .stored(let key): key
            case .pending(let temporary): assigned[temporary]
            }
        }
        var changes: [ChangeSet.ToManyChange] = []
        func record(_ entityIndex: Int, _ ordinal: Int, _ primaryKey: Int64) {
            guard ordinal >= 0 else { return }
            changes.append(toManyChange(entityIndex: entityIndex, ordinal: ordinal, primaryKey: primaryKey))
        }
        for write in request.toManyWrites {
            guard let owner = key(write.owner),
                  let shape = schema.toManyShape(entityIndex: write.entityIndex, ordinal: write.ordinal) else { continue }
            let members = write.members.compactMap(key)
            record(write.entityIndex, write.ordinal, owner)
            switch shape {
            case .foreignKey(let destination, let inverse):
                for (position, member) in members.enumerated() {
                    database.setPosition(Int64(position), entityIndex: destination, key: member, ordinal: inverse)
                }
            case .join(let join, let ownerIsSource, let destination):
                let inverse = schema.entities[write.entityIndex].inverseOrdinalByOrdinal[write.ordinal]
                let stored = Set(database.members(of: owner, shape: shape))
                let kept = Set(members)
                func pair(_ member: Int64) -> MemoryDatabase.Join.Pair {
                    ownerIsSource ? .init(source: owner, target: member) : .init(source: member, target: owner)
                }
                for member in stored.subtracting(kept).sorted() {
                    database.setPair(join, pair(member), nil)
                    record(destination, inverse, member)
                }
                for (position, member) in members.enumerated() {
                    let existing = database.pairs(join)?.pairs[pair(member)]
                    var positions = existing ?? .init(source: 0, target: 0)
                    if existing == nil {
                        // A new pair goes last among the member's own owners.
                        let others = ownerIsSource ? database.pairs(join)?.byTarget[member] : database.pairs(join)?.bySource[member]
                        let memberPositions = (others ?? []).compactMap { other -> Int64? in
                            let otherPair = ownerIsSource ? MemoryDatabase.Join.Pair(source: other, target: member)
                                : MemoryDatabase.Join.Pair(source: member, target: other)
                            let found = database.pairs(join)?.pairs[otherPair]
                            return ownerIsSource ? found?.target : found?.source
                        }
                        let last = (memberPositions.max() ?? -1) + 1
                        if ownerIsSource { positions.target = last } else { positions.source = last }
                    }
                    if ownerIsSource { positions.source = Int64(position) } else { positions.target = Int64(position) }
                    database.setPair(join, pair(member), positions)
                    if !stored.contains(member) { record(destination, inverse, member) }
                }
            }
        }
        for append in request.toManyAppends {
            guard let owner = key(append.owner), let member = key(append.member),
                  case .foreignKey(let destination, let inverse)? = schema.toManyShape(
                      entityIndex: append.entityIndex, ordinal: append.ordinal) else { continue }
            let positions = database.members(of: owner, shape: .foreignKey(destinationIndex: destination, inverseOrdinal: inverse))
                .filter { $0 != member }.compactMap { database.row(destination, $0)?.positions[inverse] }
            database.setPosition((positions.max() ?? -1) + 1, entityIndex: destination, key: member, ordinal: inverse)
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
