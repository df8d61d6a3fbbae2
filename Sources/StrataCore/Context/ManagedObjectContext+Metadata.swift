extension ManagedObjectContext {
    /// Sets an app-defined store metadata value (nil removes it) as part of this
    /// context's next save: it is written in the same transaction as the
    /// objects, or not at all. A child context hands it to its parent.
    ///
    /// ```swift
    /// context.insert(Quake(code: "ci123", magnitude: 4.2))
    /// context.setStoreMetadata(Date(), forKey: "lastImport")
    /// try context.save()        // the quake and the date, together
    /// ```
    public func setStoreMetadata<Value: PersistentValue>(_ value: Value?, forKey key: String) {
        pendingMetadata[key] = .some(value?.storedValue)
    }

    /// Removes an app-defined store metadata value with this context's next save.
    public func removeStoreMetadata(forKey key: String) {
        pendingMetadata[key] = .some(nil)
    }

    /// The metadata values this context will write with its next save, by key
    /// (nil: the key will be removed).
    public var pendingStoreMetadata: [String: StoredValue?] { pendingMetadata }
}
