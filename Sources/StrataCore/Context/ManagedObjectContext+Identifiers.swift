// Identifiers without objects, and SwiftData's name for counting.

extension ManagedObjectContext {
    /// The identifiers of the objects a request matches, in its order, without
    /// making objects for stored rows: SwiftData's `fetchIdentifiers`, Core
    /// Data's `.managedObjectIDResultType`. Unsaved objects count as in
    /// ``fetch(_:)`` (`includesPendingChanges`): a new object's identifier is
    /// temporary until it is saved.
    ///
    /// ```swift
    /// let ids = try context.fetchIdentifiers(FetchRequest<Book>(predicate: #Predicate { $0.year < 1900 }))
    /// let first = try context.existingObject(with: ids[0], as: Book.self)
    /// ```
    public func fetchIdentifiers<T: PersistentModel>(_ request: FetchRequest<T>) throws -> [ObjectID] {
        do {
            mergePendingChanges()
            let entity = try schema.entity(for: T.self)
            if request.includesPendingChanges && hasPendingChanges(entityIndex: entity.index) {
                return try fetch(request).map(\.objectID)
            }
            return try parentStore.fetchIdentifiers(request, in: self)
        } catch {
            report(error)
            throw error
        }
    }

    /// ``fetchIdentifiers(_:)``, awaiting the store.
    ///
    /// ```swift
    /// let ids = try await context.fetchIdentifiersAsync(FetchRequest<Book>())
    /// ```
    nonisolated(nonsending) public func fetchIdentifiersAsync<T: PersistentModel>(
        _ request: FetchRequest<T>
    ) async throws -> [ObjectID] {
        do {
            mergePendingChanges()
            let entity = try schema.entity(for: T.self)
            if request.includesPendingChanges && hasPendingChanges(entityIndex: entity.index) {
                return try await fetchAsync(request).map(\.objectID)
            }
            return try await parentStore.fetchIdentifiersAsync(request, in: self)
        } catch {
            report(error)
            throw error
        }
    }

    /// The number of objects matching a request: SwiftData's name for ``count(for:)``.
    ///
    /// ```swift
    /// let modern = try context.fetchCount(FetchRequest<Book>(predicate: #Predicate { $0.year >= 2000 }))
    /// ```
    public func fetchCount<T: PersistentModel>(_ request: FetchRequest<T>) throws -> Int {
        try count(for: request)
    }
}
