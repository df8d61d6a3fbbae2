import Foundation

/// A batch request turned into store calls. `mergePolicy` settles the unique
/// keys a batch insert meets.
package protocol BatchOperation {
    associatedtype Model: PersistentModel
    /// What spans and metrics call the request.
    static var operation: StoreTelemetry.Operation { get }

    func write(
        to store: any PersistentStore, schema: Schema, transaction: BatchTransaction, mergePolicy: MergePolicy
    ) throws -> BatchResult
}

extension BatchOperation {
    /// ``write(to:schema:transaction:mergePolicy:)`` as one measured store operation.
    func measuredWrite(
        to store: any PersistentStore, schema: Schema, transaction: BatchTransaction, mergePolicy: MergePolicy,
        nested: Bool = false
    ) throws -> BatchResult {
        try store.telemetry.measure(Self.operation, collection: try schema.entity(for: Model.self).name, nested: nested) { report in
            report.contextName = transaction.contextName
            report.author = transaction.author
            let result = try write(to: store, schema: schema, transaction: transaction, mergePolicy: mergePolicy)
            report.rows = result.count
            return result
        }
    }

    func values<Model: PersistentModel>(
        for model: Model.Type, store: any PersistentStore, schema: Schema
    ) throws(StrataError) -> BatchValues {
        BatchValues(entity: try schema.entity(for: model), schema: schema, storeIdentifier: store.identifier)
    }
}

extension BatchInsertRequest: BatchOperation {
    package static var operation: StoreTelemetry.Operation { .batchInsert }

    package func write(
        to store: any PersistentStore, schema: Schema, transaction: BatchTransaction, mergePolicy: MergePolicy
    ) throws -> BatchResult {
        let values = try values(for: Model.self, store: store, schema: schema)
        let entity = values.entity
        let action = entity.uniqueKeyOrdinals.isEmpty ? nil : Self.upsertAction(for: mergePolicy)
        let rows = try rows(values, tracksGivenColumns: action == .update(allColumns: false))
        let write: BatchWriteResult
        if let action {
            write = try store.batchUpsert(entityIndex: entity.index, rows: rows, action: action, transaction: transaction)
        } else {
            write = try store.batchInsert(entityIndex: entity.index, rows: rows.values, transaction: transaction)
        }
        return BatchResult(resultType: resultType, entityName: entity.name, write: write)
    }

    /// What a row whose unique key is taken does under `policy`: nil (the
    /// batch fails: `.error`, and custom policies, which decide per object and
    /// a batch has none), update the columns the row sets (object trump) or
    /// every column (overwrite), or keep the stored row (store trump, rollback).
    private static func upsertAction(for policy: MergePolicy) -> UpsertAction? {
        switch policy.fixedResolution {
        case nil, .error?: nil
        case .mergeByPropertyObjectTrump?: .update(allColumns: false)
        case .overwrite?: .update(allColumns: true)
        case .mergeByPropertyStoreTrump?, .rollback?: .keep
        }
    }
}

extension BatchUpdateRequest: BatchOperation {
    package static var operation: StoreTelemetry.Operation { .batchUpdate }

    package func write(
        to store: any PersistentStore, schema: Schema, transaction: BatchTransaction, mergePolicy: MergePolicy
    ) throws -> BatchResult {
        let values = try values(for: Model.self, store: store, schema: schema)
        let entity = values.entity
        if invalidKeyPath {
            throw StrataError(
                .validation, "A key path of \(entity.name) does not name a persistent attribute; nothing was written",
                entityName: entity.name)
        }
        var ordinals: [Int] = []
        var stored: [StoredValue] = []
        // Sorted by name, so the same request always produces the same SQL (one cached statement).
        for (name, value) in propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
            let ordinal = try values.ordinal(named: name, allowsRelationships: false)
            ordinals.append(ordinal)
            stored.append(try values.storedValue(value, ordinal: ordinal))
        }
        guard !ordinals.isEmpty else {
            throw StrataError(
                .validation, "A batch update of \(entity.name) sets no properties; nothing was written",
                entityName: entity.name)
        }
        let condition = try predicate.map { predicate throws(StrataError) in
            try PredicateCompiler(schema: schema, entity: entity).compile(predicate)
        }
        let write = try store.batchUpdate(
            entityIndex: entity.index, predicate: condition, ordinals: ordinals, values: stored, transaction: transaction)
        return BatchResult(resultType: resultType, entityName: entity.name, write: write)
    }
}

extension BatchDeleteRequest: BatchOperation {
    package static var operation: StoreTelemetry.Operation { .batchDelete }

    package func write(
        to store: any PersistentStore, schema: Schema, transaction: BatchTransaction, mergePolicy: MergePolicy
    ) throws -> BatchResult {
        let entity = try schema.entity(for: Model.self)
        let selection: BatchDeleteSelection
        switch self.selection {
        case .predicate(let predicate):
            selection = .matching(try predicate.map { predicate throws(StrataError) in
                try PredicateCompiler(schema: schema, entity: entity).compile(predicate)
            })
        case .objectIDs(let ids):
            selection = .keys(try ids.map { id throws(StrataError) in
                guard id.entityName == entity.name, let key = id.primaryKey, id.storeIdentifier == store.identifier else {
                    throw StrataError(
                        .validation,
                        "A batch delete of \(entity.name) was given \(id), which is not a saved \(entity.name) of this store; nothing was deleted",
                        entityName: entity.name, objectIDs: [id])
                }
                return key
            })
        }
        let write = try store.batchDelete(entityIndex: entity.index, selection: selection, transaction: transaction)
        return BatchResult(resultType: resultType, entityName: entity.name, write: write)
    }
}

extension ManagedObjectContext {
    /// Runs a batch insert against the store and merges the result into this
    /// context (unlike Core Data, which leaves that to the app).
    ///
    /// Rows whose unique key a stored row holds are settled by this context's
    /// ``mergePolicy``, as in Core Data: object trump and overwrite update the
    /// stored row, store trump and rollback keep it, `.error` fails the batch.
    /// The transaction is recorded with this context's ``transactionAuthor`` and ``name``.
    ///
    /// ```swift
    /// try context.execute(BatchInsertRequest<Book>(objects: [["title": "Dune", "year": 1965]]))
    /// ```
    @discardableResult
    public func execute<Model>(_ request: BatchInsertRequest<Model>) throws -> BatchResult {
        try executeBatch(request)
    }

    /// Runs a batch update against the store and merges the result into this
    /// context: registered objects show the new values (properties with unsaved
    /// local changes keep them) and their new versions.
    @discardableResult
    public func execute<Model>(_ request: BatchUpdateRequest<Model>) throws -> BatchResult {
        try executeBatch(request)
    }

    /// Runs a batch delete against the store and merges the result into this
    /// context: deleted objects (cascades included) leave it, and cleared
    /// relationships read `nil`.
    @discardableResult
    public func execute<Model>(_ request: BatchDeleteRequest<Model>) throws -> BatchResult {
        try executeBatch(request)
    }

    private func executeBatch(_ operation: some BatchOperation) throws -> BatchResult {
        mergePendingChanges()
        do {
            let result = try parentStore.execute(operation, in: self)
            merge(result.changes)
            return result
        } catch {
            report(error)
            throw error
        }
    }
}
