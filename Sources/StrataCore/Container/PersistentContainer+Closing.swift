extension PersistentContainer {
    /// Closes the container's store gracefully: it stops listening for other
    /// processes' changes, lets the fetches, saves and batch requests in
    /// flight finish while refusing new ones, then closes its connections
    /// (a PostgreSQL store's pool, a SQLite file's reader and writer). Later
    /// use throws `.storeNotLoaded`; loading again opens the store anew.
    ///
    /// A cancelled task stops waiting for operations in flight and closes at
    /// once; those still running then fail with `.storeNotLoaded`. Closing a
    /// container that has no store loaded does nothing.
    ///
    /// ```swift
    /// try await container.close()   // on shutdown, after the server stopped taking requests
    /// ```
    public func close() async throws {
        guard let store = try? persistentStoreCoordinator.loadedStore() else { return }
        store.stopWatchingRemoteChanges()
        await store.telemetry.gate.drain()
        // The coordinator lets go of the store even when closing it fails.
        defer { loading.withLock { $0 = .notLoaded } }
        do {
            try persistentStoreCoordinator.close()
        } catch {
            report(error)
            throw error
        }
    }
}
