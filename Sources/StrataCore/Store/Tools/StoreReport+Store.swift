import Foundation

extension StoreReport {
    /// What an open store of any kind holds, counted through its own
    /// queries: what `strata inspect` shows of a PostgreSQL store. The store
    /// kind supplies what only it knows: its size, layout version and the
    /// extent of its history (nil: none kept).
    ///
    /// ```swift
    /// let report = try StoreReport(store: store, name: "app|library", sizeInBytes: 81_920, formatVersion: 1,
    ///                              history: History(transactionCount: 12, latestToken: 12))
    /// ```
    package init(
        store: any PersistentStore, name: String, sizeInBytes: Int64, formatVersion: Int, history: History?
    ) throws(StrataError) {
        let schema = store.schema
        fileName = name
        self.sizeInBytes = sizeInBytes
        storeIdentifier = store.identifier
        self.formatVersion = formatVersion
        schemaVersion = schema.version?.description
        fingerprint = schema.fingerprint
        entities = try schema.entities.map { entity throws(StrataError) in
            Entity(summary: entity.summary, rowCount: try store.count(FetchPlan(entityIndex: entity.index)))
        }
        self.history = history
    }
}

extension StoreHistoryListing {
    /// The history an open store of any kind keeps: what `strata history`
    /// shows of a PostgreSQL store. A store opened without history tracking
    /// fails with `.invalidStoreLocation`, saying so.
    ///
    /// ```swift
    /// let listing = try StoreHistoryListing(store: store, name: "app|library", after: 40, author: "importer")
    /// ```
    package init(store: any PersistentStore, name: String, after token: Int64? = nil, author: String? = nil) throws(StrataError) {
        guard store.options.historyTracking else {
            throw StrataError(.invalidStoreLocation, "\(name) keeps no history (history tracking was never on)")
        }
        fileName = name
        var request = HistoryRequest(
            after: token.map { HistoryToken(storeIdentifier: store.identifier, transactionNumber: $0) })
        if let author { request.authors = [author] }
        transactions = try store.fetchHistory(request).map { transaction in
            Transaction(
                token: transaction.token.transactionNumber, date: transaction.timestamp, author: transaction.author,
                contextName: transaction.contextName,
                changes: transaction.changes.compactMap { change in
                    guard let key = change.objectID.primaryKey else { return nil }
                    return Change(
                        type: change.changeType, entityName: change.entityName, primaryKey: key,
                        updatedProperties: change.changeType == .update ? change.updatedProperties.sorted() : nil)
                })
        }
    }
}

