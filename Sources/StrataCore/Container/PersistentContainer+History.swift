import Foundation

extension PersistentContainer {
    /// The transactions recorded after `token`, oldest first; every transaction
    /// still kept when `token` is nil.
    ///
    /// Throws `.historyTrackingDisabled` when the store was loaded without
    /// `historyTracking`, `.historyTokenExpired` when history after `token` was
    /// deleted, and `.invalidHistoryToken` for a token of another store.
    ///
    /// ```swift
    /// let transactions = try container.fetchHistory(after: lastToken)
    /// try await MainActor.run {
    ///     container.viewContext.merge(transactions)
    /// }
    /// lastToken = transactions.last?.token ?? lastToken
    /// ```
    public func fetchHistory(after token: HistoryToken?) throws -> [HistoryTransaction] {
        try fetchHistory(HistoryRequest(after: token))
    }

    /// The transactions saved after `date`, oldest first.
    ///
    /// ```swift
    /// let lastHour = try container.fetchHistory(after: Date().addingTimeInterval(-3600))
    /// ```
    public func fetchHistory(after date: Date) throws -> [HistoryTransaction] {
        try fetchHistory(HistoryRequest(after: date))
    }

    /// The transactions a request selects: after a token or a date, by author,
    /// by entity, skipping an origin, up to a limit.
    ///
    /// ```swift
    /// var request = HistoryRequest(after: lastToken)
    /// request.authors = ["extension"]
    /// request.entityNames = ["Book"]
    /// let fromExtension = try container.fetchHistory(request)
    /// ```
    public func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] {
        try reporting { try persistentStoreCoordinator.loadedStore().fetchHistory(request) }
    }

    /// Deletes the transactions before `token`; the token's own transaction and
    /// later ones stay. Fetching after a token older than `token` then throws
    /// `.historyTokenExpired`. Returns the number of transactions deleted.
    ///
    /// ```swift
    /// // Once every reader has processed up to `processed`:
    /// try container.deleteHistory(before: processed)
    /// ```
    @discardableResult
    public func deleteHistory(before token: HistoryToken) throws -> Int {
        try reporting { try persistentStoreCoordinator.loadedStore().deleteHistory(before: token) }
    }

    /// Deletes the transactions saved before `date` (and any numbered before
    /// them, so kept history has no holes). Returns the number deleted.
    ///
    /// ```swift
    /// try container.deleteHistory(before: Date().addingTimeInterval(-7 * 24 * 3600))
    /// ```
    @discardableResult
    public func deleteHistory(before date: Date) throws -> Int {
        try reporting { try persistentStoreCoordinator.loadedStore().deleteHistory(before: date) }
    }

    /// The token of the latest transaction, or nil when none was recorded.
    ///
    /// ```swift
    /// // A fresh install has nothing to catch up on:
    /// lastToken = lastToken ?? container.currentHistoryToken()
    /// ```
    public func currentHistoryToken() throws -> HistoryToken? {
        try reporting { try persistentStoreCoordinator.loadedStore().currentHistoryToken() }
    }

    /// The origin this container's saves are recorded with
    /// (``HistoryTransaction/origin``); nil before the store is loaded. It is new
    /// for every load, so it tells this container's transactions from those of
    /// other processes and other containers on the same file.
    ///
    /// ```swift
    /// let others = transactions.filter { $0.origin != container.historyOrigin }
    /// ```
    public var historyOrigin: UUID? {
        try? persistentStoreCoordinator.loadedStore().originIdentifier
    }

    /// Runs a container operation, reporting its error through ``logError``.
    private func reporting<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            report(error)
            throw error
        }
    }
}
