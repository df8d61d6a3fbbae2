// Applying a merge policy's resolution to the objects of one conflict. Every
// change here happens in memory; the save then tries again, and the store
// checks versions and keys anew. See MergePolicies.md for the outcomes.

extension ManagedObjectContext {
    // MARK: - Optimistic locking

    /// Settles an object whose row changed (`stored`) or vanished (`nil`) since it was read.
    func resolveLocking(_ object: any PersistentModel, stored: StoredRow?, resolution: MergeResolution, store: any PersistentStore) {
        let backing = object.persistentBacking
        guard let entity = backing.entity, backing.state == .registered || backing.state == .deleted else { return }
        guard let stored else {
            // Deleted elsewhere: the deletion stands under every policy but `.error`;
            // the object leaves the context as when a merge brings the deletion in.
            var changes = ChangeSet(storeIdentifier: store.identifier)
            changes.deleted = [ChangeSet.Row(
                objectID: backing.objectID, entity: entity, ordinals: [], values: [], version: 0)]
            merge(changes)
            return
        }
        if backing.state == .deleted {
            guard resolution == .rollback else {
                // The deletion stands; it now expects the version it has seen.
                backing.committed = stored.values
                backing.version = stored.version
                return
            }
            tracker.undelete(object)
            backing.state = .registered
            rollBack(object, to: stored)
            return
        }
        let read = backing.committed
        let mine = ContiguousArray(backing.values)
        let changed = backing.changedOrdinals
        switch resolution {
        case .error:
            return
        case .rollback:
            rollBack(object, to: stored)
        case .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite:
            // The store's changes to properties this context left alone come in.
            merge(updatedRowChange(entity: entity, objectID: backing.objectID, stored: stored, store: store))
            if resolution == .mergeByPropertyStoreTrump {
                for ordinal in changed.elements where entity.columnIndexByOrdinal[ordinal] >= 0 && stored.values[ordinal] != read[ordinal] {
                    setColumn(of: object, at: ordinal, to: stored.values[ordinal])
                }
            } else if resolution == .overwrite {
                for ordinal in entity.columnOrdinals where !changed.contains(ordinal) {
                    setColumn(of: object, at: ordinal, to: mine[ordinal])
                }
                // The whole object is written, every column.
                for ordinal in entity.columnOrdinals { backing.changedOrdinals.insert(ordinal) }
            }
            if resolution != .overwrite {
                for ordinal in changed.elements where entity.columnIndexByOrdinal[ordinal] >= 0 {
                    backing.noteChange(at: ordinal, owner: object, forceChanged: isPendingReference(backing, ordinal))
                }
            }
        }
    }

    private func updatedRowChange(entity: EntityDescription, objectID: ObjectID, stored: StoredRow, store: any PersistentStore) -> ChangeSet {
        var changes = ChangeSet(storeIdentifier: store.identifier)
        changes.updated = [ChangeSet.Row(
            objectID: objectID, entity: entity, ordinals: entity.columnOrdinals,
            values: entity.columnOrdinals.map { stored.values[$0] }, version: stored.version)]
        return changes
    }

    /// Drops the object's unsaved changes and takes the stored row, in memory.
    private func rollBack(_ object: any PersistentModel, to stored: StoredRow) {
        let backing = object.persistentBacking
        unloadInverseSlots(of: object, keys: ContiguousArray(backing.values))
        unloadInverseSlots(of: object, keys: stored.values)
        tracker.removeChanged(object)
        backing.load(values: stored.values, version: stored.version)
    }

    /// Sets one column's value, reloading a to-one relationship and its inverses.
    private func setColumn(of object: any PersistentModel, at ordinal: Int, to value: StoredValue) {
        let backing = object.persistentBacking
        guard let entity = backing.entity, backing.values[ordinal] != value else { return }
        if entity.relationship(at: ordinal) != nil {
            unloadInverseSlots(of: object, keys: ContiguousArray(backing.values), only: ordinal)
            backing.ensureRelations(count: ordinal + 1)
            backing.relations[ordinal] = .unloaded
            backing.keepOriginal(at: ordinal)
            backing.values[ordinal] = value
            unloadInverseSlots(of: object, keys: ContiguousArray(backing.values), only: ordinal)
        } else {
            backing.keepOriginal(at: ordinal)
            backing.values[ordinal] = value
        }
    }

    private func isPendingReference(_ backing: ModelBacking, _ ordinal: Int) -> Bool {
        PendingSave.columnValue(of: backing, ordinal: ordinal).1 != nil
    }

    /// Marks stale the loaded inverse to-many (or to-one) slots of the objects
    /// that `object`'s foreign keys (or loaded to-one slots) point at, so they
    /// reload from the store plus this context's unsaved changes.
    private func unloadInverseSlots(of object: any PersistentModel, keys: ContiguousArray<StoredValue>, only: Int? = nil) {
        let backing = object.persistentBacking
        guard let entity = backing.entity else { return }
        for ordinal in entity.columnOrdinals where entity.relationship(at: ordinal) != nil && (only == nil || only == ordinal) {
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            guard inverse >= 0 else { continue }
            var targets: [any PersistentModel] = []
            if ordinal < backing.relations.count, case .toOne(let target?) = backing.relations[ordinal] { targets.append(target) }
            if ordinal < keys.count, case .integer(let key) = keys[ordinal],
               let target = registry[entity.destinationIndexByOrdinal[ordinal]][key] {
                targets.append(target)
            }
            for target in targets where inverse < target.persistentBacking.relations.count {
                target.persistentBacking.relations[inverse] = .unloaded
            }
        }
    }

    // MARK: - Uniqueness

    /// Settles an object whose unique key a stored row holds.
    func resolveStoredKey(
        _ object: any PersistentModel, constraint: [Int], holder: StoredRow, resolution: MergeResolution, store: any PersistentStore
    ) {
        let backing = object.persistentBacking
        guard let entity = backing.entity else { return }
        switch backing.state {
        case .registered:
            if resolution.objectWins {
                // One row per key, with this context's values: the other row goes.
                let other = (try? registerRow(
                    entity: entity, primaryKey: holder.primaryKey, values: holder.values, version: holder.version))
                    ?? registerFault(entity: entity, primaryKey: holder.primaryKey)
                deleteObject(other)
            } else {
                revertKey(of: object, constraint: constraint)
            }
        case .inserted:
            if let registered = registry[entity.index][holder.primaryKey], registered.persistentBacking.state == .registered {
                // The row already has its object here: it stays the row's one object.
                fold(object, into: registered, copyingValues: resolution.objectWins)
            } else {
                adoptRow(holder, into: object, resolution: resolution, store: store)
            }
        default:
            return
        }
    }

    /// Settles an object whose unique key an earlier object of the same save has.
    func resolveContextKey(_ object: any PersistentModel, constraint: [Int], holder: any PersistentModel, resolution: MergeResolution) {
        switch object.persistentBacking.state {
        case .registered:
            revertKey(of: object, constraint: constraint)
        case .inserted where holder.persistentBacking.state == .registered || holder.persistentBacking.state == .inserted:
            fold(object, into: holder, copyingValues: resolution.objectWins)
        default:
            return
        }
    }

    /// Takes back a saved object's changes to the properties of a unique key.
    private func revertKey(of object: any PersistentModel, constraint: [Int]) {
        let backing = object.persistentBacking
        for ordinal in constraint where ordinal < backing.values.count {
            setColumn(of: object, at: ordinal, to: backing.committedValue(at: ordinal))
            backing.noteChange(at: ordinal, owner: object)
        }
    }

    /// An inserted object becomes the stored row that holds its key: it takes the
    /// row's ObjectID and version. With object-trump resolutions its in-memory
    /// values are written over the row; otherwise it takes the stored values.
    private func adoptRow(_ row: StoredRow, into object: any PersistentModel, resolution: MergeResolution, store: any PersistentStore) {
        let backing = object.persistentBacking
        guard let entity = backing.entity, let temporary = backing.temporaryKey else { return }
        let objectWins = resolution.objectWins
        if !objectWins { unloadInverseSlots(of: object, keys: ContiguousArray(backing.values)) }
        tracker.removeInserted(key: temporary)
        backing.objectID = ObjectID(entityName: entity.name, storeIdentifier: store.identifier, primaryKey: row.primaryKey)
        permanentKeysByTemporaryKey[temporary] = PermanentKey(entityIndex: entity.index, primaryKey: row.primaryKey)
        backing.state = .registered
        backing.committed = row.values
        backing.version = row.version
        registry[entity.index][row.primaryKey] = object
        backing.ensureRelations(count: entity.properties.count)
        for (ordinal, property) in entity.properties.enumerated() {
            guard case .relationship(let relationship) = property else { continue }
            // To-many members come from the row's stored members plus unsaved ones.
            if relationship.isToMany || !objectWins { backing.relations[ordinal] = .unloaded }
        }
        backing.changedOrdinals.removeAll()
        guard objectWins else {
            backing.assign(row.values)
            backing.commitValues()
            return
        }
        for ordinal in entity.columnOrdinals {
            let (value, reference) = PendingSave.columnValue(of: backing, ordinal: ordinal)
            if reference == nil {
                backing.keepOriginal(at: ordinal)
                backing.values[ordinal] = value
            }
            if resolution == .overwrite || reference != nil || value != row.values[ordinal] {
                backing.changedOrdinals.insert(ordinal)
            }
        }
        if !backing.changedOrdinals.isEmpty { noteChanged(object) }
    }

    /// Merges an inserted object into the object that keeps its key: references
    /// to it move to `survivor`, optionally its values too, and it leaves the context.
    private func fold(_ object: any PersistentModel, into survivor: any PersistentModel, copyingValues: Bool) {
        let backing = object.persistentBacking
        guard let entity = backing.entity, object !== survivor else { return }
        if copyingValues {
            for ordinal in entity.columnOrdinals {
                if entity.relationship(at: ordinal) != nil {
                    ObjectGraph.setToOne(of: survivor, at: ordinal, to: ObjectGraph.toOne(of: object, at: ordinal))
                } else {
                    survivor.setStoredValue(backing.values[ordinal], at: ordinal)
                }
            }
        }
        redirectReferences(from: object, to: survivor)
        // A child context may still name the folded object by its temporary ID.
        if let temporary = backing.temporaryKey, let pk = survivor.persistentBacking.primaryKey {
            permanentKeysByTemporaryKey[temporary] = PermanentKey(entityIndex: entity.index, primaryKey: pk)
        }
        deleteObject(object)
    }

    /// Points every object that refers to `object` through a to-one relationship at `survivor`.
    /// Many-to-many memberships, and to-many relationships without an inverse, are not moved.
    private func redirectReferences(from object: any PersistentModel, to survivor: any PersistentModel) {
        guard let entity = object.persistentBacking.entity else { return }
        for (ordinal, property) in entity.properties.enumerated() {
            guard case .relationship(let relationship) = property else { continue }
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
            guard inverse >= 0, destination.properties[inverse].hasColumn else { continue }
            let referrers: [any PersistentModel] = relationship.isToMany
                ? ObjectGraph.toMany(of: object, at: ordinal)
                : ObjectGraph.toOne(of: object, at: ordinal).map { [$0] } ?? []
            for referrer in referrers where ObjectGraph.toOne(of: referrer, at: inverse) === object {
                ObjectGraph.setToOne(of: referrer, at: inverse, to: survivor)
            }
        }
        redirectReferencesWithoutInverse(from: object, entity: entity, to: survivor)
    }

    /// A to-one relationship without an inverse cannot be followed back from
    /// its target, so the objects whose loaded one points at `object` are
    /// looked for among this context's objects. (`object` is new: no stored
    /// row refers to it.)
    private func redirectReferencesWithoutInverse(
        from object: any PersistentModel, entity: EntityDescription, to survivor: any PersistentModel
    ) {
        for referring in schema.entities {
            let ordinals = referring.toOneColumnOrdinals.filter {
                referring.inverseOrdinalByOrdinal[$0] < 0 && referring.destinationIndexByOrdinal[$0] == entity.index
            }
            guard !ordinals.isEmpty else { continue }
            let inserted = tracker.insertedByKey.values.filter { $0.persistentBacking.entity === referring }
            for referrer in registry[referring.index].values + inserted {
                let backing = referrer.persistentBacking
                for ordinal in ordinals where ordinal < backing.relations.count {
                    if case .toOne(let target?) = backing.relations[ordinal], target === object {
                        ObjectGraph.setToOne(of: referrer, at: ordinal, to: survivor)
                    }
                }
            }
        }
    }
}
