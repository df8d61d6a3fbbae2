// A context as its child's parent store: the child reads this context's
// current state (saved or not) and saves into it only; this context's own save
// persists the changes.

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
        let child = ManagedObjectContext(coordinator: coordinator, parent: self)
        child.logError = logError
        return child
    }

    /// In a child context: this context's object for an object of its parent
    /// (a fault until used).
    func object(forParentObject parentObject: any PersistentModel) -> any PersistentModel {
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

    /// This context's object for an ID a child holds, following IDs that
    /// became permanent when this context saved.
    func existingObject(forChildID id: ObjectID) throws -> any PersistentModel {
        if let key = id.temporaryKey, registeredObject(for: id) == nil,
           let permanent = resolvedPermanentID(forTemporaryKey: key) {
            return try existingAnyObject(with: permanent)
        }
        return try existingAnyObject(with: id)
    }

    /// The permanent ID an object saved with a temporary key now has, looking up the chain.
    func resolvedPermanentID(forTemporaryKey key: UInt64) -> ObjectID? {
        guard let permanent = permanentKeysByTemporaryKey[key] else {
            return parent?.resolvedPermanentID(forTemporaryKey: key)
        }
        return ObjectID(
            entityName: schema.entities[permanent.entityIndex].name,
            storeIdentifier: parentStore.storeIdentifier ?? "", primaryKey: permanent.primaryKey)
    }
}

extension ManagedObjectContext: ParentStore {
    package var storeIdentifier: String? { parentStore.storeIdentifier }

    package func storedRows(
        entityIndex: Int, keys: StoredRowKeys, in child: ManagedObjectContext, _ body: (any StoreRow) throws -> Void
    ) throws {
        try parentStore.storedRows(entityIndex: entityIndex, keys: keys, in: child, body)
    }

    package func execute(_ operation: some BatchOperation, in child: ManagedObjectContext) throws -> BatchResult {
        try parentStore.execute(operation, in: child)
    }

    package func fetch<T: PersistentModel>(_ request: FetchRequest<T>, in child: ManagedObjectContext) throws -> [T] {
        // This context's matches, its unsaved changes included, paged after
        // the child's objects for them are made.
        var whole = request.wholeResults
        whole.includesPendingChanges = true
        let results = try fetch(whole).map { child.object(forParentObject: $0) as! T }
        return limited(results, request: request)
    }

    nonisolated(nonsending) package func fetchAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, in child: ManagedObjectContext
    ) async throws -> [T] {
        try fetch(request, in: child)
    }

    package func fetch<T: PersistentModel>(
        _ request: FetchRequest<T>, batchSize: Int, in child: ManagedObjectContext
    ) throws -> FetchResultsCollection<T> {
        // The parent's state is in memory already: no batches to defer.
        FetchResultsCollection(try child.fetchObjects(request))
    }

    package func count<T: PersistentModel>(_ request: FetchRequest<T>, in child: ManagedObjectContext) throws -> Int {
        try fetch(request, in: child).count
    }

    nonisolated(nonsending) package func countAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, in child: ManagedObjectContext
    ) async throws -> Int {
        try count(request, in: child)
    }

    package func fetchIdentifiers<T: PersistentModel>(
        _ request: FetchRequest<T>, in child: ManagedObjectContext
    ) throws -> [ObjectID] {
        var whole = request.wholeResults
        whole.includesPendingChanges = true
        return limited(try fetchIdentifiers(whole), request: request)
    }

    nonisolated(nonsending) package func fetchIdentifiersAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, in child: ManagedObjectContext
    ) async throws -> [ObjectID] {
        try fetchIdentifiers(request, in: child)
    }

    package func aggregate<T: PersistentModel, Value>(
        _ aggregate: Aggregate<T, Value>, of request: FetchRequest<T>, collation: Collation, in child: ManagedObjectContext
    ) throws -> Value {
        // Over the child's objects: this context's unsaved values count.
        try child.aggregateInMemory(aggregate, of: request, collation: collation)
    }

    package func fetchValues<T: PersistentModel>(
        _ request: FetchRequest<T>, ordinals: [Int], in child: ManagedObjectContext,
        _ body: (inout ProjectionRow) throws -> Void
    ) throws {
        // This context's state is in memory: read the child's objects.
        try child.valuesInMemory(request, ordinals: ordinals, body)
    }

    nonisolated(nonsending) package func fetchValuesAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, ordinals: [Int], in child: ManagedObjectContext,
        _ body: (inout ProjectionRow) throws -> Void
    ) async throws {
        try child.valuesInMemory(request, ordinals: ordinals, body)
    }

    package func fetchGroups<T: PersistentModel>(
        _ request: FetchRequest<T>, _ group: GroupedFetch<T>, in child: ManagedObjectContext
    ) throws -> [[StoredValue]] {
        // Over the child's objects: this context's unsaved values count.
        try child.groupsInMemory(request, group)
    }

    package func object(with id: ObjectID, in child: ManagedObjectContext) throws -> any PersistentModel {
        let object = child.object(forParentObject: try existingAnyObject(with: id))
        if object.persistentBacking.isFault { try child.fulfill(object.persistentBacking) }
        return object
    }

    package func fulfill(_ backing: ModelBacking, in child: ManagedObjectContext) throws {
        let sourceBacking = try existingObject(forChildID: backing.objectID).persistentBacking
        sourceBacking.willAccess()
        backing.load(values: sourceBacking.values, version: sourceBacking.version)
        // Foreign keys to objects this context has not saved are only in its slots.
        if let entity = backing.entity {
            backing.ensureRelations(count: entity.properties.count)
            for ordinal in entity.columnOrdinals where entity.relationship(at: ordinal) != nil {
                guard ordinal < sourceBacking.relations.count,
                      case .toOne(let target?) = sourceBacking.relations[ordinal],
                      target.objectID.isTemporary else { continue }
                backing.relations[ordinal] = .toOne(child.object(forParentObject: target))
            }
        }
    }

    package func currentValues(
        of backing: ModelBacking, in child: ManagedObjectContext
    ) throws -> (values: ContiguousArray<StoredValue>, version: Int64)? {
        let source = try existingObject(forChildID: backing.objectID).persistentBacking
        source.willAccess()
        return (ContiguousArray(source.values), source.version)
    }

    package func readValues(
        entityIndex: Int, primaryKeys: [Int64], in child: ManagedObjectContext, _ body: (StoredRow) throws -> Void
    ) throws {
        // Objects this context holds answer with their current values (none
        // when deleted here); the rest are read from this context's own parent store.
        var unregistered: [Int64] = []
        for key in primaryKeys {
            guard let object = registry[entityIndex][key] else {
                unregistered.append(key)
                continue
            }
            let backing = object.persistentBacking
            guard backing.state == .registered else { continue }
            if backing.isFault { try fulfill(backing) }
            try body(StoredRow(primaryKey: key, version: backing.version, values: ContiguousArray(backing.values)))
        }
        guard !unregistered.isEmpty else { return }
        try parentStore.readValues(entityIndex: entityIndex, primaryKeys: unregistered, in: self, body)
    }

    package func members(
        of owners: [any PersistentModel], ordinal: Int, everyOwner: Bool, in child: ManagedObjectContext
    ) throws -> [[any PersistentModel]] {
        // This context's relationships load together when several are not loaded yet.
        let sources = try owners.map { try existingObject(forChildID: $0.objectID) }
        if let entity = sources.first?.persistentBacking.entity {
            try prefetch([ordinal], of: sources, entity: entity, everyOwner: everyOwner)
        }
        return sources.map { source in ObjectGraph.toMany(of: source, at: ordinal).map { child.object(forParentObject: $0) } }
    }

    nonisolated(nonsending) package func saveAsync(changesOf child: ManagedObjectContext) async throws {
        try save(changesOf: child)
    }
    /// Takes a child's changes in as unsaved changes of this context.
    package func save(changesOf child: ManagedObjectContext) throws {
        try child.pushChanges(into: self)
    }
}

extension ManagedObjectContext {
    /// In a child context: applies this context's changes to `parent`, as
    /// unsaved changes there, and makes the parent's state this context's baseline.
    private func pushChanges(into parent: ManagedObjectContext) throws {
        let pending = try prepareForSave()

        // The parent's counterpart of each object this save touches.
        var counterparts: [ObjectIdentifier: any PersistentModel] = [:]
        func counterpart(_ object: any PersistentModel) throws -> any PersistentModel {
            if let known = counterparts[ObjectIdentifier(object)] { return known }
            let found = try parent.existingObject(forChildID: object.objectID)
            counterparts[ObjectIdentifier(object)] = found
            return found
        }
        let changes: [(any PersistentModel, [Int])] =
            pending.inserted.map { ($0, Array($0.persistentBacking.entity!.properties.indices)) }
            + pending.updated.map { ($0, $0.persistentBacking.changedOrdinals.elements) }
        // Every counterpart is found before the parent changes: when one is
        // gone (the parent deleted it), the save fails having changed nothing,
        // and the child keeps its changes to fix and save again.
        let inserted = Set(pending.inserted.lazy.map { ObjectIdentifier($0) })
        for object in pending.updated { _ = try counterpart(object) }
        // An object the parent no longer has (it deleted it too) is deleted already.
        var goneFromParent = Set<ObjectIdentifier>()
        for object in pending.deleted {
            do {
                _ = try counterpart(object)
            } catch let error as StrataError where error.code == .objectNotFound {
                goneFromParent.insert(ObjectIdentifier(object))
            }
        }
        for (object, ordinals) in changes {
            for related in Self.relatedObjects(of: object, at: ordinals) where !inserted.contains(ObjectIdentifier(related)) {
                _ = try counterpart(related)
            }
        }

        for object in pending.inserted {
            let entity = object.persistentBacking.entity!
            let copy = entity.modelType.init(backing: ModelBacking(for: entity.modelType))
            parent.insertObject(copy, temporaryKey: object.objectID.temporaryKey!)
            counterparts[ObjectIdentifier(object)] = copy
        }
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
        for object in pending.deleted where !goneFromParent.contains(ObjectIdentifier(object)) {
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

    /// The objects the loaded relationships at `ordinals` of `object` hold.
    private static func relatedObjects(of object: any PersistentModel, at ordinals: [Int]) -> [any PersistentModel] {
        let backing = object.persistentBacking
        var related: [any PersistentModel] = []
        for ordinal in ordinals where ordinal < backing.relations.count {
            switch backing.relations[ordinal] {
            case .toOne(let member?): related.append(member)
            case .toMany(let members): related += members
            case .toOne(nil), .unloaded: break
            }
        }
        return related
    }
}
