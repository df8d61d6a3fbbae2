/// Conflicts a save ran into, found inside its write transaction before
/// anything was written. When any are found the transaction writes nothing and
/// the context resolves them (per its merge policy) before trying again.
package struct StoreConflicts: Sendable {
    /// Rows the save updates or deletes whose version moved since the context read them.
    package var rows: [RowConflict] = []
    /// Rows the save inserts or updates whose unique key another stored row holds.
    package var uniqueness: [UniquenessViolation] = []

    package init() {}

    package var isEmpty: Bool { rows.isEmpty && uniqueness.isEmpty }
}

/// A row whose stored version is not the one the saving context read.
package struct RowConflict: Sendable {
    package var entityIndex: Int
    package var primaryKey: Int64
    /// The stored row now, or nil when it was deleted.
    package var stored: StoredRow?

    package init(entityIndex: Int, primaryKey: Int64, stored: StoredRow?) {
        self.entityIndex = entityIndex
        self.primaryKey = primaryKey
        self.stored = stored
    }
}

/// A stored row as a value: key, version and values by property ordinal.
package struct StoredRow: Sendable {
    package var primaryKey: Int64
    package var version: Int64
    package var values: ContiguousArray<StoredValue>

    package init(primaryKey: Int64, version: Int64, values: ContiguousArray<StoredValue>) {
        self.primaryKey = primaryKey
        self.version = version
        self.values = values
    }
}

/// A row of the save whose unique key is held by another stored row.
package struct UniquenessViolation: Sendable {
    package var entityIndex: Int
    /// The ordinals of the constraint's properties.
    package var constraint: [Int]
    /// The saving row: an inserted row's temporary key, or an updated row's primary key.
    package var temporaryKey: UInt64?
    package var primaryKey: Int64?
    /// The stored row that holds the key.
    package var existing: StoredRow

    package init(entityIndex: Int, constraint: [Int], temporaryKey: UInt64?, primaryKey: Int64?, existing: StoredRow) {
        self.entityIndex = entityIndex
        self.constraint = constraint
        self.temporaryKey = temporaryKey
        self.primaryKey = primaryKey
        self.existing = existing
    }
}
