extension PersistentContainer {
    /// The app-defined metadata kept in the store, by key — values the app set
    /// with ``setMetadata(_:forKey:)`` or a context's
    /// ``ManagedObjectContext/setStoreMetadata(_:forKey:)``, such as the last
    /// import's date or a sync cursor (Core Data's store metadata).
    ///
    /// ```swift
    /// let cursor = try container.metadata()["syncCursor"]
    /// ```
    public func metadata() throws -> [String: StoredValue] {
        do {
            return try persistentStoreCoordinator.loadedStore().appMetadata()
        } catch {
            report(error)
            throw error
        }
    }

    /// One metadata value as the type it was set as, or nil when the key is
    /// missing or its value is not of that type.
    ///
    /// ```swift
    /// let lastImport = try container.metadataValue(forKey: "lastImport", as: Date.self)
    /// ```
    public func metadataValue<Value: PersistentValue>(forKey key: String, as type: Value.Type = Value.self) throws -> Value? {
        try metadata()[key].flatMap(Value.init(storedValue:))
    }

    /// Sets an app-defined metadata value in the store at once, in a
    /// transaction of its own; nil removes the key. To write it together with
    /// objects, use ``ManagedObjectContext/setStoreMetadata(_:forKey:)``.
    ///
    /// ```swift
    /// try container.setMetadata("c-1042", forKey: "syncCursor")
    /// ```
    public func setMetadata<Value: PersistentValue>(_ value: Value?, forKey key: String) throws {
        try writeMetadata([key: value?.storedValue])
    }

    /// Removes an app-defined metadata value from the store at once.
    public func removeMetadata(forKey key: String) throws {
        try writeMetadata([key: nil])
    }

    private func writeMetadata(_ changes: [String: StoredValue?]) throws {
        do {
            try persistentStoreCoordinator.loadedStore().setAppMetadata(changes)
        } catch {
            report(error)
            throw error
        }
    }
}
