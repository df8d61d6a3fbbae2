/// One step of a migration as a store carries it out: code over the old
/// schema, the inferred change of stored shape to `target`, code over the
/// new schema. A chain of steps runs as one unit: all of it, or none.
///
/// ```swift
/// let step = MigrationStep(label: "1.0.0 → 2.0.0", source: v1, target: v2,
///                          willMigrate: nil, didMigrate: { store in … })
/// ```
package struct MigrationStep {
    /// How logs and errors name the step (`"1.0.0 → 2.0.0"`).
    package let label: String
    /// The schema before the step, when code runs over it.
    package let source: Schema?
    /// The schema after the step.
    package let target: Schema
    /// Runs over a store of the `source` schema, inside the migration.
    package let willMigrate: ((any PersistentStore) throws -> Void)?
    /// Runs over a store of the `target` schema, inside the migration.
    package let didMigrate: ((any PersistentStore) throws -> Void)?

    package init(
        label: String, source: Schema?, target: Schema,
        willMigrate: ((any PersistentStore) throws -> Void)? = nil,
        didMigrate: ((any PersistentStore) throws -> Void)? = nil
    ) {
        self.label = label
        self.source = source
        self.target = target
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
    }
}

/// Works out the steps from a stored schema (and the version it was written
/// as) to the container's, or throws `.incompatibleStore` saying why it cannot.
package typealias MigrationPlanning = (_ stored: SchemaSummary, _ storedVersion: Schema.Version?) throws -> [MigrationStep]
