/// A row to insert: values by column, and foreign keys to rows inserted by the same save.
package struct RowInsert: Sendable {
    package var entityIndex: Int
    package var temporaryKey: UInt64
    /// Values in the entity's column order.
    package var values: [StoredValue]
    /// Columns whose value is the key of another row inserted in the same save.
    package var pendingReferences: [PendingReference]
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
}

/// The changes one save committed: `Sendable`, so other contexts can merge them.
///
/// ```swift
/// for change in changeSet.updated {
///     print(change.objectID, change.propertyNames)     // ["title", "rating"]
///     if case .text(let title)? = change.value(forProperty: "title") { print(title) }
/// }
/// ```
public struct ChangeSet: Sendable {
    /// One changed row: its object, the properties the change wrote and their
    /// new values as stored.
    public struct Row: Sendable {
        public var objectID: ObjectID
        /// The row's entity (its properties give the ordinals their names).
        package let entity: EntityDescription
        /// Ordinals of the properties whose new values are in ``values``.
        package var ordinals: [Int]
        /// The new values, in the order of ``propertyNames``. A to-one
        /// relationship's value is the destination's primary key (or `.null`).
        public var values: [StoredValue]
        /// The row's version after the change (0 for deletions).
        public var version: Int64

        package init(objectID: ObjectID, entity: EntityDescription, ordinals: [Int], values: [StoredValue], version: Int64) {
            self.objectID = objectID
            self.entity = entity
            self.ordinals = ordinals
            self.values = values
            self.version = version
        }

        package var entityIndex: Int { entity.index }

        /// The entity's name.
        public var entityName: String { entity.name }

        /// The names of the properties whose new values are in ``values``, in
        /// the same order: every stored property for an insertion, the changed
        /// ones for an update, none for a deletion.
        public var propertyNames: [String] { ordinals.map { entity.properties[$0].name } }

        /// The new value of a property, or nil when the change did not write it.
        public func value(forProperty name: String) -> StoredValue? {
            guard let ordinal = entity.ordinalByName[name], let position = ordinals.firstIndex(of: ordinal),
                  position < values.count else { return nil }
            return values[position]
        }

        /// The new values by property name.
        public var valuesByName: [String: StoredValue] {
            Dictionary(zip(propertyNames, values), uniquingKeysWith: { _, last in last })
        }
    }

    /// The store that committed the changes.
    public var storeIdentifier: String
    public var inserted: [Row] = []
    public var updated: [Row] = []
    public var deleted: [Row] = []
    /// To-many relationships whose members or order changed.
    public var toManyChanges: [ToManyChange] = []
    /// The author and context name of the save, if set.
    public var author: String?
    public var contextName: String?
    /// A token unique to the context that saved, so it can skip its own changes.
    package var originToken: ObjectIdentifier?
    /// The history transaction the save recorded; nil when history tracking is off.
    public var historyToken: HistoryToken?

    package init(storeIdentifier: String) {
        self.storeIdentifier = storeIdentifier
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && toManyChanges.isEmpty }
}
