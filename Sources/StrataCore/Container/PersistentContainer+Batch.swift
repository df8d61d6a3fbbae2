extension PersistentContainer {
    /// Inserts rows straight into the store in one transaction (see ``BatchInsertRequest``).
    ///
    /// Contexts that merge automatically — `viewContext` included — take in the
    /// new rows promptly; others can call `context.merge(result.changes)`.
    ///
    /// ```swift
    /// let result = try container.execute(BatchInsertRequest<Book>(objects: [["title": "Dune", "year": 1965]]))
    /// // Refresh a download: rows whose unique key exists update the stored row.
    /// let refreshed = try container.execute(request, mergePolicy: .mergeByPropertyObjectTrump)
    /// ```
    /// - Parameters:
    ///   - request: the rows to insert.
    ///   - author: recorded as the transaction's author in history.
    ///   - mergePolicy: what a row whose unique key a stored row holds does:
    ///     `.error` (the default) fails the batch, `.mergeByPropertyObjectTrump`
    ///     and `.overwrite` update the stored row with the properties the row
    ///     sets, `.mergeByPropertyStoreTrump` and `.rollback` keep it.
    @discardableResult
    public func execute<Model>(
        _ request: BatchInsertRequest<Model>, author: String? = nil, mergePolicy: MergePolicy = .error
    ) throws -> BatchResult {
        try executeBatch(request, author: author, mergePolicy: mergePolicy)
    }

    /// Updates matching rows in the store in one transaction (see ``BatchUpdateRequest``).
    ///
    /// ```swift
    /// var request = BatchUpdateRequest<Book>(predicate: #Predicate { $0.year < 1900 })
    /// request.set(\.rating, to: 5.0)
    /// try container.execute(request)
    /// ```
    @discardableResult
    public func execute<Model>(_ request: BatchUpdateRequest<Model>, author: String? = nil) throws -> BatchResult {
        try executeBatch(request, author: author)
    }

    /// Deletes rows in the store in one transaction, applying the delete rules
    /// its foreign keys carry (see ``BatchDeleteRequest``).
    ///
    /// ```swift
    /// let result = try container.execute(BatchDeleteRequest<Author>(objectIDs: [id]))
    /// result.deletedObjectIDs   // the author and the books its rule cascaded to
    /// ```
    @discardableResult
    public func execute<Model>(_ request: BatchDeleteRequest<Model>, author: String? = nil) throws -> BatchResult {
        try executeBatch(request, author: author)
    }

    private func executeBatch(
        _ operation: some BatchOperation, author: String?, mergePolicy: MergePolicy = .error
    ) throws -> BatchResult {
        do {
            let store = try persistentStoreCoordinator.loadedStore()
            return try operation.measuredWrite(
                to: store, schema: schema, transaction: BatchTransaction(author: author), mergePolicy: mergePolicy)
        } catch {
            report(error)
            throw error
        }
    }
}
