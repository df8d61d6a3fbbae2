/// What a batch operation returns in ``BatchResult/objectIDs``.
///
/// Like Core Data's `resultType` of batch requests. The ``BatchResult/changes``
/// are always complete, whichever type you ask for, so the result can be merged.
public enum BatchResultType: Sendable, Hashable {
    /// Only the number of rows the request inserted, updated or deleted.
    case count
    /// The number, and the IDs of those rows.
    case objectIDs
}

/// The outcome of one batch insert, update or delete: one committed transaction.
///
/// ```swift
/// let result = try container.execute(BatchDeleteRequest<Book>(
///     predicate: #Predicate { $0.year < 1900 }, resultType: .objectIDs))
/// print(result.count, result.objectIDs)
/// print(result.deletedObjectIDs)   // including rows removed by cascades
/// otherContext.merge(result.changes)   // contexts that don't merge automatically
/// ```
public struct BatchResult: Sendable {
    /// The result type the request asked for.
    public var resultType: BatchResultType
    /// How many rows of the request's entity it inserted, updated or deleted.
    /// Rows removed by cascades or whose relationships were cleared are not counted
    /// here; they are in ``changes``.
    public var count: Int
    /// The IDs of the rows ``count`` counts, in primary-key order, when
    /// ``resultType`` is ``BatchResultType/objectIDs``; otherwise empty.
    public var objectIDs: [ObjectID]
    /// Everything the transaction committed: for a delete also the rows SQLite
    /// cascaded to (in `deleted`) and the rows whose to-one relationship it
    /// cleared (in `updated`, with new versions). This is what other contexts
    /// merged and what history recorded; pass it to
    /// `context.merge(_:)` for contexts that do not merge automatically.
    public var changes: ChangeSet

    /// `entityName` is the request's entity: every key of `write.primaryKeys` is one of its rows.
    package init(resultType: BatchResultType, entityName: String, write: BatchWriteResult) {
        self.resultType = resultType
        self.count = write.primaryKeys.count
        self.changes = write.changes
        if resultType == .objectIDs {
            let space = ObjectIDSpace.named(entity: entityName, store: write.changes.storeIdentifier)
            objectIDs = write.primaryKeys.map { ObjectID(space: space, primaryKey: $0) }
        } else {
            objectIDs = []
        }
    }

    /// Every object the transaction inserted.
    public var insertedObjectIDs: [ObjectID] { changes.inserted.map(\.objectID) }
    /// Every object the transaction updated, including rows whose to-one
    /// relationship a batch delete cleared.
    public var updatedObjectIDs: [ObjectID] { changes.updated.map(\.objectID) }
    /// Every object the transaction deleted, including cascades.
    public var deletedObjectIDs: [ObjectID] { changes.deleted.map(\.objectID) }
}
