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

/// A chain of steps as a store carries it out: each step with the inferred
/// change from the schema before it, and the units its progress counts
/// (each table and join table a step migrates, and each stage's code).
///
/// ```swift
/// let chain = MigrationChain(steps, from: storedSummary)
/// for link in chain.links { … link.inferred … }   // progress out of chain.totalUnitCount
/// ```
package struct MigrationChain {
    package struct Link {
        package let step: MigrationStep
        /// The schema the step starts from.
        package let source: SchemaSummary
        package let inferred: InferredMigration
    }

    package let links: [Link]
    package let totalUnitCount: Int

    package init(_ steps: [MigrationStep], from stored: SchemaSummary) {
        var links: [Link] = []
        var summary = stored
        for step in steps {
            let hasCode = step.willMigrate != nil || step.didMigrate != nil
            links.append(Link(step: step, source: summary, inferred: InferredMigration(from: summary, to: step.target, replacesEverything: hasCode)))
            summary = step.target.summary
        }
        self.links = links
        totalUnitCount = links.reduce(0) { sum, link in
            sum + link.inferred.entities.count + link.inferred.joins.count
                + (link.step.willMigrate == nil ? 0 : 1) + (link.step.didMigrate == nil ? 0 : 1)
        }
    }

    /// Every reason a step cannot be inferred, in order.
    package var problems: [String] { links.flatMap(\.inferred.problems) }
}
