/// A row a save refers to: stored, or inserted by the same save.
package enum RowReference: Sendable, Hashable {
    case stored(Int64)
    /// The temporary key of a row that gets its primary key in the same save.
    case pending(UInt64)
}

/// The members of one owner's to-many relationship, in the app's order.
///
/// For one-to-many the store writes each member's position (the foreign keys
/// travel in the members' own row changes); for many-to-many it also adds and
/// removes join rows so the stored pairs match `members` exactly.
package struct ToManyWrite: Sendable {
    /// The owner's entity index and the relationship's ordinal.
    package var entityIndex: Int
    package var ordinal: Int
    package var owner: RowReference
    package var members: [RowReference]
}

/// A one-to-many member that joined an owner whose relationship this save
/// does not rewrite: it goes after the owner's other members.
package struct ToManyAppend: Sendable {
    package var entityIndex: Int
    package var ordinal: Int
    package var owner: RowReference
    package var member: RowReference
}

extension ChangeSet {
    /// One object's to-many relationship whose members or order changed.
    ///
    /// ```swift
    /// for change in changeSet.toManyChanges where change.relationshipName == "tags" {
    ///     print(change.objectID, "has new tags or a new tag order")
    /// }
    /// ```
    public struct ToManyChange: Sendable, Hashable {
        public var objectID: ObjectID
        public var relationshipName: String
        package var entityIndex: Int
        package var ordinal: Int

        package init(objectID: ObjectID, relationshipName: String, entityIndex: Int, ordinal: Int) {
            self.objectID = objectID
            self.relationshipName = relationshipName
            self.entityIndex = entityIndex
            self.ordinal = ordinal
        }
    }
}
