extension PersistentContainer {
    /// Commits to this container's store by other processes or other containers,
    /// noticed within tens of milliseconds when the store description has
    /// `remoteChangeNotifications` on (file stores only).
    ///
    /// With `historyTracking` also on, each event carries the store's latest
    /// history token and the other writers' transactions, and contexts that merge
    /// automatically — `viewContext` included — take the changes in without a call
    /// from the app. Each access returns a new stream.
    ///
    /// ```swift
    /// for await change in container.remoteChanges {
    ///     lastToken = change.historyToken
    /// }
    /// ```
    public var remoteChanges: AsyncStream<RemoteChange> {
        persistentStoreCoordinator.remoteChanges()
    }
}
