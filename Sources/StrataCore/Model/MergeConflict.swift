/// One conflict a save ran into, as `Sendable` values: what the context holds,
/// what it last read, and what the store holds now.
///
/// A custom ``MergePolicy`` receives these, and ``StrataError/conflicts``
/// carries them when the policy is ``MergePolicy/error``. Values are keyed by
/// property name; a to-one relationship's value is the related row's primary key.
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as StrataError where error.code == .mergeConflict {
///     for conflict in error.conflicts {
///         print(conflict.objectID, conflict.objectValues["title"] as Any, conflict.storedValues?["title"] as Any)
///     }
/// }
/// ```
public struct MergeConflict: Sendable, Hashable {
    /// The two kinds of conflict a save can meet.
    public enum Kind: String, Sendable, Hashable {
        /// The object changed or was deleted in the store since this context read it.
        case optimisticLocking
        /// The object's unique key is held by another stored row or another
        /// object of the same save.
        case uniqueness
    }

    public var kind: Kind
    /// The object of this context that is in conflict.
    public var objectID: ObjectID
    public var entityName: String
    /// For uniqueness conflicts, the constraint's property names; empty otherwise.
    public var constraint: [String]
    /// For uniqueness conflicts, the other object holding the key (a stored row,
    /// or an object inserted or changed by the same save).
    public var conflictingObjectID: ObjectID?
    /// The object's values in this context, by property name (stored properties only).
    public var objectValues: [String: StoredValue]
    /// The values this context last read from the store (empty for a new object).
    public var cachedValues: [String: StoredValue]
    /// The row in the store now: the object's own row (locking) or the row
    /// holding the key (uniqueness). `nil` when the row was deleted, or when the
    /// key clash is between two objects of the same save.
    public var storedValues: [String: StoredValue]?
    /// The row version this context read (0 for a new object).
    public var cachedVersion: Int64
    /// The stored row's version now, when there is a stored row.
    public var storedVersion: Int64?
    /// Whether this context is deleting the object.
    public var isDeletedInContext: Bool

    /// Whether another context deleted the object's row.
    public var isDeletedInStore: Bool { kind == .optimisticLocking && storedValues == nil }

    /// Property names whose stored value differs from the one this context read.
    public var changedInStore: Set<String> {
        guard let storedValues, kind == .optimisticLocking else { return [] }
        return Set(storedValues.keys.filter { storedValues[$0] != cachedValues[$0] })
    }
}
