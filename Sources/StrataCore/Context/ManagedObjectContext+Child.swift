// Child contexts: a child reads its parent's current state (saved or not) and
// saves into the parent only; the parent's own save persists the changes.

extension ManagedObjectContext {
    /// A context that sees this context's state, unsaved changes included, and
    /// whose `save()` pushes its changes into this context only. Discarding the
    /// child discards its edits. Use it in this context's isolation domain.
    ///
    /// ```swift
    /// let editor = context.newChildContext()
    /// let draft = try editor.existingObject(with: book.objectID, as: Book.self)
    /// draft.title = "Edited"
    /// try editor.save()          // context now holds the edit, unsaved
    /// try context.save()         // persisted
    /// ```
    public func newChildContext() -> ManagedObjectContext {
        let child = ManagedObjectContext(coordinator: coordinator)
        child.parent = self
        child.logError = logError
        return child
    }

    /// This context's object for an object of the parent (a fault until used).
    func childObject(for parentObject: any PersistentModel) -> any PersistentModel {
        let id = parentObject.objectID
        let entity = parentObject.persistentBacking.entity!
        if let pk = id.primaryKey {
            return registerFault(entity: entity, primaryKey: pk)
        }
        let key = id.temporaryKey!
        if let existing = tracker.insertedByKey[key] ?? registeredByTemporaryKey[key] { return existing }
        let backing = ModelBacking.stored(entity: entity, objectID: id, coordinator: self, values: nil, version: 0)
        let object = entity.modelType.init(backing: backing)
        registeredByTemporaryKey[key] = object
        return object
    }

    /// The parent's object for an ID, following IDs that became permanent.
    func parentObject(for id: ObjectID) throws -> any PersistentModel {
        guard let parent else { preconditionFailure("Strata: not a child context") }
        if let key = id.temporaryKey, parent.registeredObject(for: id) == nil,
           let permanent = parent.resolvedPermanentID(forTemporaryKey: key) {
            return try parent.existingAnyObject(with: permanent)
        }
        return try parent.existingAnyObject(with: id)
    }

    /// The permanent ID an object saved with a temporary key now has, looking up the chain.
    func resolvedPermanentID(forTemporaryKey key: UInt64) -> ObjectID? {
        guard let permanent = permanentKeysByTemporaryKey[key] else {
            return parent?.resolvedPermanentID(forTemporaryKey: key)
        }
        return ObjectID(
            entityName: schema.entities[permanent.entityIndex].name,
            storeIdentifier: (try? coordinator.loadedStore())?.identifier ?? "", primaryKey: permanent.primaryKey)
    }

    /// Loads a child's fault from the parent's current values.
    func fulfillFromParent(_ backing: ModelBacking) throws {
        let source = try parentObject(for: backing.objectID)
        let sourceBacking = source.persistentBacking
        sourceBacking.willAccess()
        backing.load(values: sourceBacking.values, version: sourceBacking.version)
        // Foreign keys to objects the parent has not saved are only in its slots.
        if let entity = backing.entity {
            backing.ensureRelations(count: entity.properties.count)
            for ordinal in entity.columnOrdinals where entity.relationship(at: ordinal) != nil {
                guard ordinal < sourceBacking.relations.count,
                      case .toOne(let target?) = sourceBacking.relations[ordinal],
                      target.objectID.isTemporary else { continue }
                backing.relations[ordinal] = .toOne(childObject(for: target))
            }
        }
    }

    /// A fetch in a child: the parent's results (its pending changes count),
    /// then this context's own pending changes, order and limits.
    func childFetch<T: PersistentModel>(_ request: FetchRequest<T>) throws -> [T] {
        guard let parent else { return [] }
        var parentRequest = request
        parentRequest.fetchLimit = nil
        parentRequest.fetchOffset = 0
        parentRequest.fetchBatchSize = 0
        parentRequest.includesPendingChanges = true
        parentRequest.relationshipKeyPathsForPrefetching = []
        let results = try parent.fetch(parentRequest).map { childObject(for: $0) as! T }
        let entity = try schema.entity(for: T.self)
        if request.includesPendingChanges, hasPendingChanges(entityIndex: entity.index) {
            return try applyPendingChanges(to: results, request: request)
        }
        return limited(results, request: request)
    }

    /// A child's to-many: the parent's members, adjusted by this context's changes.
    func childLoadToMany(of owner: any PersistentModel, ordinal: Int) -> [any PersistentModel] {
        guard let entity = owner.persistentBacking.entity else { return [] }
        var members: [any PersistentModel] = []
        if owner.persistentBacking.state != .inserted {
            do {
                let source = try parentObject(for: owner.objectID)
                members = ObjectGraph.toMany(of: source, at: ordinal).map { childObject(for: $0) }
            } catch {
                report(error)
            }
        }
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        guard inverse >= 0 else { return members }
        let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
        guard destination.properties[inverse].hasColumn else { return members }
        members.removeAll { member in
            let state = member.persistentBacking.state
            return state == .deleted || state == .invalidated
                || (member.persistentBacking.changedOrdinals.contains(inverse) && ObjectGraph.toOne(of: member, at: inverse) !== owner)
        }
        var present = Set(members.map { ObjectIdentifier($0) })
        for candidate in tracker.insertedObjects() + tracker.changed.objects
        where candidate.persistentBacking.entity === destination && !present.contains(ObjectIdentifier(candidate)) {
            guard candidate.persistentBacking.state != .deleted, ObjectGraph.toOne(of: candidate, at: inverse) === owner else { continue }
            members.append(candidate)
            present.insert(ObjectIdentifier(candidate))
        }
        return members
    }

    /// Pushes this child's changes into its parent, as unsaved changes there.
    func saveToParent() throws {
        guard let parent else { return }
        let pending = try prepareForSave()

        // The parent's counterpart of each object this save touches.
        var counterparts: [ObjectIdentifier: any PersistentModel] = [:]
        func counterpart(_ object: any PersistentModel) throws -> any PersistentModel {
            if let known = counterparts[ObjectIdentifier(object)] { return known }
            let found = try parentObject(for: object.objectID)
            counterparts[ObjectIdentifier(object)] = found
            return found
        }
        for object in pending.inserted {
            let entity = object.persistentBacking.entity!
            let copy = entity.modelType.init(backing: ModelBacking(for: entity.modelType))
            parent.insertObject(copy, temporaryKey: object.objectID.temporaryKey!)
            counterparts[ObjectIdentifier(object)] = copy
        }
        let changes: [(any PersistentModel, [Int])] =
            pending.inserted.map { ($0, Array($0.persistentBacking.entity!.properties.indices)) }
            + pending.updated.map { ($0, $0.persistentBacking.changedOrdinals.elements) }
        // Attributes first, then relationships, so inverses see complete objects.
        for (object, ordinals) in changes {
            let target = try counterpart(object)
            let entity = object.persistentBacking.entity!
            for ordinal in ordinals where entity.attribute(at: ordinal) != nil {
                target.setStoredValue(object.persistentBacking.values[ordinal], at: ordinal)
            }
        }
        for (object, ordinals) in changes {
            let target = try counterpart(object)
            let entity = object.persistentBacking.entity!
            let backing = object.persistentBacking
            for ordinal in ordinals where entity.relationship(at: ordinal) != nil {
                guard ordinal < backing.relations.count else { continue }
                switch backing.relations[ordinal] {
                case .toOne(let member):
                    ObjectGraph.setToOne(of: target, at: ordinal, to: try member.map(counterpart))
                case .toMany(let members):
                    ObjectGraph.setToMany(of: target, at: ordinal, to: try members.map(counterpart))
                case .unloaded:
                    if entity.properties[ordinal].hasColumn, case .integer(let pk) = backing.values[ordinal] {
                        let destination = entity.destinationIndexByOrdinal[ordinal]
                        ObjectGraph.setToOne(of: target, at: ordinal, to: parent.object(entityIndex: destination, primaryKey: pk))
                    } else if entity.properties[ordinal].hasColumn {
                        ObjectGraph.setToOne(of: target, at: ordinal, to: nil)
                    }
                }
            }
        }
        for object in pending.deleted {
            parent.deleteObject(try counterpart(object))
        }

        // The child's baseline is now the parent's state.
        for object in pending.inserted {
            let backing = object.persistentBacking
            registeredByTemporaryKey[backing.temporaryKey!] = object
            backing.state = .registered
        }
        for object in pending.inserted + pending.updated {
            let backing = object.persistentBacking
            backing.commitValues()
            backing.changedOrdinals.removeAll()
        }
        tracker.didSave(
            insertedKeys: pending.inserted.lazy.map { $0.persistentBacking.temporaryKey! },
            removesAllInserted: tracker.insertedByKey.count == pending.inserted.count)
        for object in pending.deleted {
            let backing = object.persistentBacking
            if let pk = backing.primaryKey { registry[backing.entity!.index][pk] = nil }
            if let key = backing.temporaryKey { registeredByTemporaryKey[key] = nil }
            backing.invalidate()
        }
        // Metadata travels up with the objects and reaches the store with the parent's save.
        parent.pendingMetadata.merge(pending.metadata) { _, child in child }
        pendingMetadata = [:]
        pending.notifyDidSave()
    }
}
