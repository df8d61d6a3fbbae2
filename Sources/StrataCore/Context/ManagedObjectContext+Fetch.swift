import Foundation

extension ManagedObjectContext {
    /// The objects matching a request, in its order.
    ///
    /// With `includesPendingChanges` (the default), unsaved inserts, changes and
    /// deletes of this context count: they are checked against the predicate in
    /// memory and merged with the store's results.
    public func fetch<T: PersistentModel>(_ request: FetchRequest<T>) throws -> [T] {
        do {
            return try fetchObjects(request)
        } catch {
            report(error)
            throw error
        }
    }

    /// The objects matching a request, loaded in batches of `batchSize` as they
    /// are used (see ``FetchResultsCollection``).
    ///
    /// Only the matching keys are read now; each batch is read when one of its
    /// objects is first used, and the previous batch's objects are let go unless
    /// the app holds them or they have unsaved changes. A `batchSize` of zero or
    /// less loads every object at once.
    ///
    /// ```swift
    /// for book in try context.fetch(FetchRequest<Book>(), batchSize: 500) {
    ///     print(book.title)
    /// }
    /// ```
    public func fetch<T: PersistentModel>(_ request: FetchRequest<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        do {
            mergePendingChanges()
            let entity = try schema.entity(for: T.self)
            if batchSize <= 0 || (request.includesPendingChanges && hasPendingChanges(entityIndex: entity.index)) {
                return FetchResultsCollection(try fetchObjects(request))
            }
            return try parentStore.fetch(request, batchSize: batchSize, in: self)
        } catch {
            report(error)
            throw error
        }
    }

    /// The number of objects matching a request.
    public func count<T: PersistentModel>(for request: FetchRequest<T>) throws -> Int {
        do {
            mergePendingChanges()
            let entity = try schema.entity(for: T.self)
            if request.includesPendingChanges, hasPendingChanges(entityIndex: entity.index) {
                return try fetchObjects(request).count
            }
            return try parentStore.count(request, in: self)
        } catch {
            report(error)
            throw error
        }
    }

    /// A request's matches: the parent store's, with this context's unsaved
    /// changes applied when the request includes them.
    func fetchObjects<T: PersistentModel>(_ request: FetchRequest<T>) throws -> [T] {
        mergePendingChanges()
        let entity = try schema.entity(for: T.self)
        let results: [T]
        if request.includesPendingChanges && hasPendingChanges(entityIndex: entity.index) {
            // The parent store's matches, then this context's changes, ordered
            // and limited together in memory.
            results = try applyPendingChanges(to: parentStore.fetch(request.wholeResults, in: self), request: request)
        } else {
            results = try parentStore.fetch(request, in: self)
        }
        try prefetch(for: request, of: results, entity: entity)
        return results
    }

    /// The store's matches for a request, as registered objects (or batched faults).
    func fetchFromStore<T: PersistentModel>(_ request: FetchRequest<T>, store: any PersistentStore) throws -> [T] {
        let entity = try schema.entity(for: T.self)
        let plan = try PredicateCompiler(schema: schema, entity: entity).plan(for: request)
        return try load(plan: plan, batchSize: request.fetchBatchSize, entity: entity, store: store)
    }

    /// The store's matches for a request, loaded in batches as they are used.
    func fetchFromStore<T: PersistentModel>(
        _ request: FetchRequest<T>, batchSize: Int, store: any PersistentStore
    ) throws -> FetchResultsCollection<T> {
        let entity = try schema.entity(for: T.self)
        let plan = try PredicateCompiler(schema: schema, entity: entity).plan(for: request)
        let prefetchOrdinals = try prefetchOrdinals(request.relationshipKeyPathsForPrefetching, entity: entity)
        let keys = try store.fetchKeys(plan)
        return FetchResultsCollection(batches: BatchedFetch(
            context: self, entity: entity, keys: keys, batchSize: batchSize, prefetchOrdinals: prefetchOrdinals))
    }

    /// Whether this context has unsaved changes that a fetch of the entity must see.
    func hasPendingChanges(entityIndex: Int) -> Bool {
        if tracker.insertedByKey.values.contains(where: { $0.persistentBacking.entity?.index == entityIndex }) { return true }
        if tracker.deleted.contains(where: { $0.persistentBacking.entity?.index == entityIndex }) { return true }
        return tracker.changed.contains { object in
            object.persistentBacking.entity?.index == entityIndex && !object.persistentBacking.changedOrdinals.isEmpty
        }
    }

    /// Runs a plan and turns rows into registered objects (or batched faults).
    ///
    /// The per-row work is non-generic (``loadObjects(into:plan:batchSize:entity:store:)``);
    /// the typed array is made once at the end by moving the references in.
    private func load<T: PersistentModel>(
        plan: FetchPlan, batchSize: Int, entity: EntityDescription, store: any PersistentStore
    ) throws -> [T] {
        // Every object registered for an entity is made by its model type
        // (`entity.modelType == T.self`, from `schema.entity(for: T.self)`).
        precondition(entity.modelType == T.self, "Strata: \(T.self) is not the model type of \(entity.name)")
        var buffer = ObjectBuffer()
        defer { buffer.release() }
        try loadObjects(into: &buffer, plan: plan, batchSize: batchSize, entity: entity, store: store)
        return buffer.moveOut(as: T.self)
    }

    private func loadObjects(
        into objects: inout ObjectBuffer, plan: FetchPlan, batchSize: Int,
        entity: EntityDescription, store: any PersistentStore
    ) throws {
        let entityIndex = entity.index
        if batchSize > 0 {
            let keys = try store.fetchKeys(plan)
            objects.reserve(keys.count)
            registry[entityIndex].reserveCapacity(keys.count)
            let batches = FaultBatch.make(keys: keys, size: batchSize)
            for (offset, pk) in keys.enumerated() {
                let object = registerFault(entity: entity, primaryKey: pk)
                if object.persistentBacking.isFault {
                    object.persistentBacking.faultBatch = batches[offset / batchSize]
                }
                objects.append(object)
            }
            return
        }
        if let limit = plan.limit {
            objects.reserve(min(limit, 4096))
        }
        let storeIdentifier = store.identifier
        // Positions of objects that were registered and loaded already: every
        // other object gets `awakeFromFetch()` once the read is over (hooks may
        // touch other objects), or once it failed partway, for what it loaded.
        var alreadyLoaded = ContiguousArray<Int>()
        defer { objects.awakeFromFetch(skipping: alreadyLoaded, token: contextToken) }
        do {
            let registered = registry[entityIndex]
            if let limit = plan.limit {
                registered.reserveCapacity(min(limit, 4096))
            }
            // A context with none of the entity's objects yet skips the lookup.
            let lookUp = !registered.isEmpty
            try store.fetchRows(plan) { row in
                let pk = row.primaryKey
                if lookUp, let existing = registered[pk] {
                    let backing = existing.persistentBacking
                    if backing.isFault {
                        try load(row, into: backing)
                    } else {
                        alreadyLoaded.append(objects.count)
                    }
                    objects.append(existing)
                    return
                }
                let object = try makeObject(entity: entity, storeIdentifier: storeIdentifier, row: row, primaryKey: pk)
                // Registered while the new object is still in the cache.
                registered[pk] = object
                objects.append(object)
            }
        }
    }
}

/// The objects of one fetch while it runs: a growable buffer of references,
/// moved (not copied) into the typed result array at the end.
private struct ObjectBuffer {
    private var base: UnsafeMutablePointer<any PersistentModel>?
    private(set) var count = 0
    private var capacity = 0

    mutating func reserve(_ minimum: Int) {
        guard minimum > capacity else { return }
        let grown = UnsafeMutablePointer<any PersistentModel>.allocate(capacity: minimum)
        if let base {
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = grown
        capacity = minimum
    }

    @inline(__always)
    mutating func append(_ object: any PersistentModel) {
        if count == capacity { reserve(Swift.max(16, capacity * 2)) }
        (base! + count).initialize(to: object)
        count += 1
    }

    /// Calls `awakeFromFetch()` on every object but those at the ascending
    /// `positions`; none after the first when their type keeps the empty
    /// default (the objects of one fetch are of one type).
    func awakeFromFetch(skipping positions: ContiguousArray<Int>, token: ContextToken) {
        var skip = positions.makeIterator()
        var nextSkip = skip.next()
        var hooks = FetchHooks(token: token)
        for position in 0..<count {
            if position == nextSkip {
                nextSkip = skip.next()
                continue
            }
            guard hooks.awake(base![position]) else { return }
        }
    }

    /// The objects as `[T]`, leaving the buffer empty. Each object is a `T`.
    mutating func moveOut<T: PersistentModel>(as type: T.Type) -> [T] {
        guard let base, count > 0 else { return [] }
        let moved = count
        let result = [T](unsafeUninitializedCapacity: moved) { target, initialized in
            for position in 0..<moved {
                // The reference moves out of the buffer; its retain moves with it.
                let object = (base + position).move()
                (target.baseAddress! + position).initialize(to: unsafeDowncast(object as AnyObject, to: T.self))
            }
            initialized = moved
        }
        count = 0
        return result
    }

    /// Releases what is left (after an error) and frees the buffer.
    mutating func release() {
        guard let base else { return }
        base.deinitialize(count: count)
        base.deallocate()
        self.base = nil
        count = 0
        capacity = 0
    }
}

extension ManagedObjectContext {
    /// Combines results that do not know this context's unsaved changes with
    /// those changes: drops what the context deleted or changed, adds the
    /// inserted and changed objects the predicate matches in memory, then sorts,
    /// offsets and limits the whole.
    func applyPendingChanges<T: PersistentModel>(to results: [T], request: FetchRequest<T>) throws -> [T] {
        var results = results
        results.removeAll { object in
            let backing = object.persistentBacking
            return backing.state == .deleted || backing.state == .invalidated || !backing.changedOrdinals.isEmpty
        }
        var candidates: [T] = insertedObjects.compactMap { $0 as? T }
        candidates += tracker.changed.objects.compactMap { object in
            guard let typed = object as? T, typed.persistentBacking.state == .registered,
                  !typed.persistentBacking.changedOrdinals.isEmpty else { return nil }
            return typed
        }
        var added = false
        for candidate in candidates where try Self.matches(candidate, request.predicate) {
            results.append(candidate)
            added = true
        }
        if added {
            // The store breaks ties by primary key, and new objects get keys above
            // every saved one, in the order they were inserted: put the list in
            // that order so the sort below (which keeps ties in place) agrees.
            results.sort { Self.keyOrder($0.objectID.key, $1.objectID.key) }
        }
        if !request.sortBy.isEmpty {
            // Ordered as the store orders (raw values, decimals, collations), so
            // pending objects fall where a save would put them.
            try PredicateCompiler(schema: schema, entity: schema.entity(for: T.self)).sortKeys(request.sortBy).sort(&results)
        }
        return limited(results, request: request)
    }

    /// Saved objects by primary key, then unsaved ones in insertion order.
    static func keyOrder(_ lhs: ObjectID.Key, _ rhs: ObjectID.Key) -> Bool {
        switch (lhs, rhs) {
        case (.permanent(let a), .permanent(let b)): a < b
        case (.temporary(let a), .temporary(let b)): a < b
        case (.permanent, .temporary): true
        case (.temporary, .permanent): false
        }
    }

    /// Whether an unsaved object meets a predicate, evaluated in Swift with the
    /// stores' meaning. An evaluation that fails (a force unwrap of `nil`,
    /// integer overflow) fails the fetch, as the store fails the query.
    private static func matches<T: PersistentModel>(_ object: T, _ predicate: Predicate<T>?) throws(StrataError) -> Bool {
        guard let predicate else { return true }
        do {
            return try PredicateEvaluation.evaluate(predicate, for: object)
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(
                .unsupportedPredicate, "The predicate could not be evaluated for an unsaved \(T.entityName)",
                underlyingError: SendableDescription(error))
        }
    }

    /// The page of `results` that a request's offset and limit select.
    func limited<T>(_ results: [T], request: FetchRequest<some PersistentModel>) -> [T] {
        let start = min(max(0, request.fetchOffset), results.count)
        var slice = Array(results[start...])
        if let limit = request.fetchLimit, limit >= 0, slice.count > limit {
            slice = Array(slice.prefix(limit))
        }
        return slice
    }
}
