/// One conflict of a save attempt, with the objects it concerns.
struct SaveClash {
    enum Detail {
        /// The object's row changed (or, when nil, was deleted) since it was read.
        case locking(stored: StoredRow?)
        /// The object's unique key is held by a stored row.
        case storedKey(constraint: [Int], holder: StoredRow)
        /// The object's unique key is also the key of an earlier object of the same save.
        case contextKey(constraint: [Int], holder: any PersistentModel)
    }

    var object: any PersistentModel
    var detail: Detail
    var conflict: MergeConflict
}

extension ManagedObjectContext {
    /// How many times a save settles conflicts and tries again before giving up.
    static let maximumConflictRounds = 10

    /// Writes a save, settling conflicts with ``mergePolicy`` and retrying.
    /// Returns the save that was finally written.
    ///
    /// Conflicts are found before anything is written (within the context, then
    /// inside the store's write transaction), so a failed attempt writes nothing.
    func writeResolvingConflicts(_ first: PendingSave, store: any PersistentStore) throws -> PendingSave {
        var pending = first
        for _ in 0..<Self.maximumConflictRounds {
            var clashes = contextUniquenessClashes(of: pending)
            if clashes.isEmpty {
                let request = pending.makeRequest()
                let result = try store.save(request.request, origin: ObjectIdentifier(originMarker))
                if result.conflicts.isEmpty {
                    apply(
                        result, of: pending, deletes: request.request.deletes, updatedWithColumns: request.updatedWithColumns,
                        store: store)
                    return pending
                }
                clashes = storeClashes(result.conflicts, store: store)
            }
            try settle(clashes, store: store)
            pending = PendingSave(context: self)
            if !hasChanges { return pending }
        }
        throw Self.recurringConflicts
    }

    static let recurringConflicts = StrataError(
        .mergeConflict, "Conflicts kept recurring after \(maximumConflictRounds) attempts to save; nothing was saved")

    /// Settles every clash by the merge policy, or throws when any resolves as `.error`
    /// (then nothing in the context changes).
    func settle(_ clashes: [SaveClash], store: any PersistentStore) throws {
        let resolutions = mergePolicy.resolutions(for: clashes.map(\.conflict))
        let failed = zip(clashes, resolutions).filter { $0.1 == .error }.map(\.0)
        if !failed.isEmpty { throw conflictError(failed) }
        // Locking first: an object may also clash on a key, and its stored values come first.
        let pairs = Array(zip(clashes, resolutions))
        func isLocking(_ clash: SaveClash) -> Bool {
            if case .locking = clash.detail { return true }
            return false
        }
        // A saved object that keeps a key deletes the row that held it: that
        // deletion must pass the row's `.deny` rules, checked before anything changes.
        for (clash, resolution) in pairs where resolution.objectWins {
            guard case .storedKey(_, let holder) = clash.detail, clash.object.persistentBacking.state == .registered,
                  let entity = clash.object.persistentBacking.entity else { continue }
            let other = (try? registerRow(entity: entity, primaryKey: holder.primaryKey, values: holder.values, version: holder.version))
                ?? registerFault(entity: entity, primaryKey: holder.primaryKey)
            if let denial = denials(ofDeleting: other).first { throw denial }
        }
        for (clash, resolution) in pairs.filter({ isLocking($0.0) }) + pairs.filter({ !isLocking($0.0) }) {
            switch clash.detail {
            case .locking(let stored):
                resolveLocking(clash.object, stored: stored, resolution: resolution, store: store)
            case .storedKey(let constraint, let holder):
                resolveStoredKey(clash.object, constraint: constraint, holder: holder, resolution: resolution, store: store)
            case .contextKey(let constraint, let holder):
                resolveContextKey(clash.object, constraint: constraint, holder: holder, resolution: resolution)
            }
        }
    }

    /// The error for conflicts the policy leaves unresolved; values go in `conflicts`, not the message.
    private func conflictError(_ clashes: [SaveClash]) -> StrataError {
        let conflicts = clashes.map(\.conflict)
        let entities = Set(conflicts.map(\.entityName))
        let entityName = entities.count == 1 ? entities.first : nil
        var error: StrataError
        let locking = conflicts.filter { $0.kind == .optimisticLocking }
        if !locking.isEmpty {
            let deleted = locking.filter(\.isDeletedInStore).count
            var message = "\(locking.count) object\(locking.count == 1 ? "" : "s") changed in the store since this context read them"
            if deleted > 0 { message += " (\(deleted) deleted)" }
            error = StrataError(
                .mergeConflict, message + "; nothing was saved",
                entityName: entityName, objectIDs: locking.map(\.objectID))
        } else {
            let constraints = Set(conflicts.map { "\($0.entityName) (\($0.constraint.joined(separator: ", ")))" }).sorted()
            let objectIDs = conflicts.flatMap { [$0.objectID] + ($0.conflictingObjectID.map { [$0] } ?? []) }
            error = StrataError(
                .uniquenessConflict,
                "\(conflicts.count) object\(conflicts.count == 1 ? "" : "s") would break the uniqueness constraint "
                    + constraints.joined(separator: ", ") + "; nothing was saved",
                entityName: entityName,
                propertyName: Set(conflicts.map(\.constraint)).count == 1 ? conflicts[0].constraint.joined(separator: ", ") : nil,
                objectIDs: objectIDs)
        }
        error.conflicts = conflicts
        return error
    }

    // MARK: - Finding conflicts

    /// Objects of one save that share a unique key. The first holder of a key
    /// (changed saved objects before inserted ones, inserted ones in insertion
    /// order) is the holder; each later one is a clash.
    func contextUniquenessClashes(of pending: PendingSave) -> [SaveClash] {
        var clashes: [SaveClash] = []
        guard schema.hasUniqueKeys else { return clashes }
        struct KeySlot: Hashable { var entity: Int; var constraint: Int }
        var holders: [KeySlot: [[StoredValue]: any PersistentModel]] = [:]
        for object in [pending.updated, pending.inserted].joined() {
            let backing = object.persistentBacking
            guard let entity = backing.entity else { continue }
            let keys = schema.uniqueKeys[entity.index]
            for (position, key) in keys.enumerated() {
                if backing.state == .registered, !key.contains(where: backing.changedOrdinals.contains) { continue }
                var values: [StoredValue] = []
                for ordinal in key {
                    let (value, reference) = PendingSave.columnValue(of: backing, ordinal: ordinal)
                    guard reference == nil, !value.isNull else { break }
                    values.append(value)
                }
                guard values.count == key.count else { continue }
                let slot = KeySlot(entity: entity.index, constraint: position)
                if let holder = holders[slot]?[values] {
                    clashes.append(SaveClash(
                        object: object, detail: .contextKey(constraint: key, holder: holder),
                        conflict: makeConflict(.uniqueness, object, constraint: key, other: holder.objectID, stored: nil)))
                } else {
                    holders[slot, default: [:]][values] = object
                }
            }
        }
        return clashes
    }

    /// The store's conflicts, matched to this context's objects.
    func storeClashes(_ conflicts: StoreConflicts, store: any PersistentStore) -> [SaveClash] {
        store.telemetry.recordConflicts(conflicts.rows.count, kind: "merge")
        store.telemetry.recordConflicts(conflicts.uniqueness.count, kind: "uniqueness")
        var clashes: [SaveClash] = []
        for row in conflicts.rows {
            guard let object = registry[row.entityIndex][row.primaryKey] else { continue }
            clashes.append(SaveClash(
                object: object, detail: .locking(stored: row.stored),
                conflict: makeConflict(.optimisticLocking, object, constraint: [], other: nil, stored: row.stored)))
        }
        for violation in conflicts.uniqueness {
            let object: (any PersistentModel)?
            if let key = violation.temporaryKey {
                object = tracker.insertedByKey[key]
            } else {
                object = violation.primaryKey.flatMap { registry[violation.entityIndex][$0] }
            }
            guard let object else { continue }
            let entity = schema.entities[violation.entityIndex]
            let holderID = ObjectID(entityName: entity.name, storeIdentifier: store.identifier, primaryKey: violation.existing.primaryKey)
            clashes.append(SaveClash(
                object: object, detail: .storedKey(constraint: violation.constraint, holder: violation.existing),
                conflict: makeConflict(.uniqueness, object, constraint: violation.constraint, other: holderID, stored: violation.existing)))
        }
        return clashes
    }

    private func makeConflict(
        _ kind: MergeConflict.Kind, _ object: any PersistentModel, constraint: [Int], other: ObjectID?, stored: StoredRow?
    ) -> MergeConflict {
        let backing = object.persistentBacking
        let entity = backing.entity!
        func named(_ values: ContiguousArray<StoredValue>) -> [String: StoredValue] {
            guard values.count == entity.properties.count else { return [:] }
            return Dictionary(uniqueKeysWithValues: entity.columnOrdinals.map { (entity.properties[$0].name, values[$0]) })
        }
        var current: [String: StoredValue] = [:]
        for ordinal in entity.columnOrdinals {
            current[entity.properties[ordinal].name] = PendingSave.columnValue(of: backing, ordinal: ordinal).0
        }
        return MergeConflict(
            kind: kind, objectID: backing.objectID, entityName: entity.name,
            constraint: constraint.map { entity.properties[$0].name }, conflictingObjectID: other,
            objectValues: current, cachedValues: backing.state == .inserted ? [:] : named(backing.committed),
            storedValues: stored.map { named($0.values) },
            cachedVersion: backing.state == .inserted ? 0 : backing.version, storedVersion: stored?.version,
            isDeletedInContext: backing.state == .deleted)
    }
}
