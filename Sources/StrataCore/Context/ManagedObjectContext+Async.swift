// The awaiting forms of fetch, count and save: they suspend while the store
// answers instead of blocking the thread, for stores that answer over a
// network. On the SQLite store they answer at once, like their synchronous
// counterparts; a child context reads from and saves into its parent at once.

extension ManagedObjectContext {
    /// The objects matching a request, in its order, awaiting the store.
    ///
    /// Runs in the caller's isolation domain, like the context itself; the
    /// results are the same as ``fetch(_:)``'s.
    ///
    /// ```swift
    /// let recent = try await context.fetchAsync(FetchRequest<Book>(predicate: #Predicate { $0.year > 2000 }))
    /// ```
    nonisolated(nonsending) public func fetchAsync<T: PersistentModel>(_ request: FetchRequest<T>) async throws -> [T] {
        do {
            return try await fetchObjectsAsync(request)
        } catch {
            report(error)
            throw error
        }
    }

    /// The number of objects matching a request, awaiting the store.
    ///
    /// ```swift
    /// let total = try await context.countAsync(for: FetchRequest<Book>())
    /// ```
    nonisolated(nonsending) public func countAsync<T: PersistentModel>(for request: FetchRequest<T>) async throws -> Int {
        do {
            mergePendingChanges()
            let entity = try schema.entity(for: T.self)
            if request.includesPendingChanges && hasPendingChanges(entityIndex: entity.index) {
                return try await fetchObjectsAsync(request).count
            }
            return try await parentStore.countAsync(request, in: self)
        } catch {
            report(error)
            throw error
        }
    }

    /// Saves every insert, change and deletion as one transaction, awaiting
    /// the store; all or nothing, as ``save()``.
    ///
    /// Leave the context's objects alone until it returns: the save writes
    /// them as they were when it started, and marks them saved when it ends.
    ///
    /// ```swift
    /// context.insert(Book(title: "Dune", year: 1965))
    /// try await context.saveAsync()
    /// ```
    nonisolated(nonsending) public func saveAsync() async throws {
        mergePendingChanges()
        if hasEventListeners { processPendingChanges() }
        guard hasChanges else { return }
        do {
            try await parentStore.saveAsync(changesOf: self)
        } catch {
            report(error)
            throw error
        }
    }

    /// Writes this context's changes to the store, awaiting it, settling
    /// conflicts as ``save()`` does.
    nonisolated(nonsending) func saveToStoreAsync(_ store: any PersistentStore) async throws {
        var pending = try prepareForSave()
        for _ in 0..<Self.maximumConflictRounds {
            var clashes = contextUniquenessClashes(of: pending)
            if clashes.isEmpty {
                let request = pending.makeRequest()
                let result = try await store.awaitable.saveAsync(request.request, origin: ObjectIdentifier(originMarker))
                if result.conflicts.isEmpty {
                    apply(
                        result, of: pending, deletes: request.request.deletes, updatedWithColumns: request.updatedWithColumns,
                        store: store)
                    pending.notifyDidSave()
                    return
                }
                clashes = storeClashes(result.conflicts, store: store)
            }
            try settle(clashes, store: store)
            pending = PendingSave(context: self)
            if !hasChanges { return }
        }
        throw Self.recurringConflicts
    }

    nonisolated(nonsending) private func fetchObjectsAsync<T: PersistentModel>(_ request: FetchRequest<T>) async throws -> [T] {
        mergePendingChanges()
        let entity = try schema.entity(for: T.self)
        let results: [T]
        if request.includesPendingChanges && hasPendingChanges(entityIndex: entity.index) {
            let stored = try await parentStore.fetchAsync(request.wholeResults, in: self)
            results = try applyPendingChanges(to: stored, request: request)
        } else {
            results = try await parentStore.fetchAsync(request, in: self)
        }
        try prefetch(for: request, of: results, entity: entity)
        return results
    }

    /// The store's matches for a request as registered objects, awaiting the store.
    nonisolated(nonsending) func fetchFromStoreAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, store: any PersistentStore
    ) async throws -> [T] {
        let entity = try schema.entity(for: T.self)
        let plan = try PredicateCompiler(schema: schema, entity: entity).plan(for: request)
        let rows = try await store.awaitable.fetchRowsAsync(plan)
        // Every model object of the entity is made by its model type.
        return try rows.map { row throws(StrataError) in
            try registerRow(entity: entity, primaryKey: row.primaryKey, values: row.values, version: row.version) as! T
        }
    }
}
