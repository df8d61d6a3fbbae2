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

    /// Every commit to this container's store, as Core Data posts its
    /// remote-change notification: this container's saves and batch requests
    /// (``RemoteChange/Origin/thisContainer``, with their change set) and, when
    /// `remoteChangeNotifications` is on, other writers' commits
    /// (``RemoteChange/Origin/otherWriter``). A commit that changed no object
    /// (store metadata alone) comes with an empty change set. Each access
    /// returns a new stream, which keeps the newest 64 events it has not
    /// delivered yet. Events of concurrent commits from different contexts may
    /// arrive out of commit order; compare their history tokens when it matters.
    ///
    /// ```swift
    /// for await change in container.storeChanges {
    ///     let newHistory = try container.fetchHistory(after: lastToken)   // own batch inserts too
    ///     lastToken = newHistory.last?.token ?? lastToken
    /// }
    /// ```
    public var storeChanges: AsyncStream<RemoteChange> {
        persistentStoreCoordinator.remoteChanges(includingOwnCommits: true)
    }
}
