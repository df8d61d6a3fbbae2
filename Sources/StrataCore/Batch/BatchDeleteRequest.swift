import Foundation

/// Deletes rows of one model type in the store, without fetching objects —
/// Core Data's `NSBatchDeleteRequest` — by predicate or by object ID.
///
/// ```swift
/// let old = try container.execute(BatchDeleteRequest<Book>(predicate: #Predicate { $0.year < 1900 }))
/// let some = try context.execute(BatchDeleteRequest<Book>(objectIDs: ids, resultType: .objectIDs))
/// ```
///
/// Executing it runs one write transaction that applies the delete rules
/// the store's foreign keys carry — the rules declared on **to-many**
/// relationships (and on to-one relationships whose inverse is to-one):
/// - `.cascade`: related rows are deleted too, recursively;
/// - `.nullify`: related rows stay and their to-one relationship becomes `nil`
///   (their version goes up);
/// - `.deny`: the request throws `.validation` and nothing is deleted while
///   related rows exist;
/// - many-to-many memberships of deleted rows are removed.
///
/// The result is exact: ``BatchResult/changes`` lists every deleted row
/// (cascades included) and every row whose relationship was cleared, and so do
/// history and the change set other contexts merge.
///
/// > Important: A batch delete does **not** apply delete rules declared on the
/// > to-one side of a one-to-many relationship (for example `Book.author` with
/// > `.cascade` does not delete the author), nor cascade or deny rules of
/// > many-to-many relationships, and it runs no validation hooks
/// > (`validateForDelete`) or lifecycle hooks (`prepareForDeletion`). Delete
/// > through a context when you need those.
public struct BatchDeleteRequest<Model: PersistentModel>: Sendable {
    enum Selection: Sendable {
        case predicate(Predicate<Model>?)
        case objectIDs([ObjectID])
    }

    let selection: Selection
    /// Whether the result lists the deleted IDs or only counts them.
    public var resultType: BatchResultType

    /// Deletes the rows matching `predicate` (nil: every row of the entity).
    public init(predicate: Predicate<Model>? = nil, resultType: BatchResultType = .count) {
        self.selection = .predicate(predicate)
        self.resultType = resultType
    }

    /// Deletes the rows with these IDs, which must be saved objects of `Model`
    /// in this store; IDs whose row is already gone are skipped.
    public init(objectIDs: [ObjectID], resultType: BatchResultType = .count) {
        self.selection = .objectIDs(objectIDs)
        self.resultType = resultType
    }
}
