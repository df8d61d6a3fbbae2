/// A row to insert: values by column, and foreign keys to rows inserted by the same save.
package struct RowInsert: Sendable {
    package var entityIndex: Int
    package var temporaryKey: UInt64
    /// Values in the entity's column order.
    package var values: [StoredValue]
    /// Columns whose value is the key of another row inserted in the same save.
    package var pendingReferences: [PendingReference]

    package init(entityIndex: Int, temporaryKey: UInt64, values: [StoredValue], pendingReferences: [PendingReference]) {
        self.entityIndex = entityIndex
        self.temporaryKey = temporaryKey
        self.values = values
        self.pendingReferences = pendingReferences
    }
}

/// A foreign key to a row that gets its primary key in the same save.
package struct PendingReference: Sendable {
    package var column: Int
    package var temporaryKey: UInt64
}

/// Changed columns of one stored row.
package struct RowUpdate: Sendable {
    package var entityIndex: Int
    package var primaryKey: Int64
    package var columns: [Int]
    package var values: [StoredValue]
    package var pendingReferences: [PendingReference]
    /// The row version the context read; the save conflicts when the store's differs (nil: no check).
    package var expectedVersion: Int64? = nil

    /// The values, with the keys the save gave the new rows they refer to.
    /// A reference to a row the save does not insert fails it, rather than
    /// writing `NULL` in its place.
    package func resolvedValues(assignedKeys: [UInt64: Int64]) throws(StrataError) -> [StoredValue] {
        var values = self.values
        for reference in pendingReferences {
            guard let position = columns.firstIndex(of: reference.column) else { continue }
            guard let key = assignedKeys[reference.temporaryKey] else { throw PendingReference.unsaved }
            values[position] = .integer(key)
        }
        return values
    }
}

extension PendingReference {
    /// The failure of a save whose relationship points to a new object it does not insert.
    package static var unsaved: StrataError {
        StrataError(.validation, "A relationship points to an object that is not being saved")
    }
}

/// A stored row to delete.
package struct RowDelete: Sendable {
    package var entityIndex: Int
    package var primaryKey: Int64
    /// The row version the context read; the save conflicts when the store's differs (nil: no check).
    package var expectedVersion: Int64? = nil
}

/// Everything one context save asks the store to write, as one transaction.
package struct SaveRequest: Sendable {
    package var inserts: [RowInsert] = []
    package var updates: [RowUpdate] = []
    package var deletes: [RowDelete] = []
    /// New order (and, for many-to-many, membership) of changed to-many relationships.
    package var toManyWrites: [ToManyWrite] = []
    /// One-to-many members that joined an owner whose relationship is not loaded.
    package var toManyAppends: [ToManyAppend] = []
    package var author: String?
    package var contextName: String?
    /// App metadata to set (nil: remove the key) in the same transaction.
    package var metadata: [String: StoredValue?] = [:]

    package init() {}

    package var isEmpty: Bool {
        inserts.isEmpty && updates.isEmpty && deletes.isEmpty && toManyWrites.isEmpty && toManyAppends.isEmpty
            && metadata.isEmpty
    }
}

/// What the store assigned while saving.
package struct SaveResult: Sendable {
    /// Primary keys given to inserted rows, by temporary key; filled only when
    /// the save has references to new rows (foreign keys or to-many members).
    package var assignedKeys: [UInt64: Int64] = [:]
    /// Primary keys given to inserted rows, in the order of the request's inserts.
    package var insertedKeys: [Int64] = []
    /// New row versions of updated rows, in the order of the request's updates.
    package var updatedVersions: [Int64] = []
    /// The committed changes, as broadcast to other contexts.
    package var changes: ChangeSet
    /// Conflicts found inside the transaction; when not empty, nothing was written.
    package var conflicts = StoreConflicts()

    package init(changes: ChangeSet, conflicts: StoreConflicts = StoreConflicts()) {
        self.changes = changes
        self.conflicts = conflicts
    }
}
