import Foundation
import Logging

/// Working out how to migrate a store written with another schema: the plan's
/// stages from the store's version to the app's, or one inferred step, every
/// step checked before anything is written.
extension PersistentContainer {
    func migrationSteps(
        from stored: SchemaSummary, version storedVersion: Schema.Version?, description: StoreDescription
    ) throws(StrataError) -> [MigrationStep] {
        let fileName = description.storeName
        let differences = SchemaDifference.between(stored: stored, current: schema.summary).map(\.description)
        guard description.migratesAutomatically else {
            throw StrataError(
                .incompatibleStore,
                "\(fileName) was written with another schema and migration is off (migratesAutomatically); it was left untouched. Differences: "
                    + differences.joined(separator: "; "))
        }
        if let storedVersion, let version = schema.version, storedVersion > version {
            throw StrataError(
                .incompatibleStore,
                "\(fileName) was written with schema version \(storedVersion), newer than this app's \(version); it is never migrated backwards")
        }
        var steps: [MigrationStep] = []
        var start = stored
        var inferred = true
        if let plan = migrationPlan {
            let versions = plan.schemas
            let schemas = versions.map { Schema(versionedSchema: $0) }
            let found = versions.indices.first { index in
                storedVersion.map { versions[index].versionIdentifier == $0 } ?? (schemas[index].fingerprint == stored.fingerprint)
            }
            if let storedVersion, found == nil, let newest = versions.last?.versionIdentifier, storedVersion > newest {
                throw StrataError(
                    .incompatibleStore, "\(fileName) was written with schema version \(storedVersion), newer than every version of the plan")
            }
            if let found {
                for index in found..<(versions.count - 1) {
                    let (from, to) = (versions[index], versions[index + 1])
                    let label = "\(from.versionIdentifier) → \(to.versionIdentifier)"
                    let stage = plan.stages.first { $0.fromVersion == from && $0.toVersion == to }
                    switch stage {
                    case .custom(_, _, let willMigrate, let didMigrate)?:
                        steps.append(MigrationStep(
                            label: label, source: schemas[index], target: schemas[index + 1],
                            willMigrate: willMigrate.map { code in { [logger] store in try Self.run(code, over: store, schema: schemas[index], logger: logger) } },
                            didMigrate: didMigrate.map { code in { [logger] store in try Self.run(code, over: store, schema: schemas[index + 1], logger: logger) } }))
                    case .lightweight?:
                        steps.append(MigrationStep(label: label, source: nil, target: schemas[index + 1]))
                    case nil:
                        inferred = inferred && description.infersMappingAutomatically
                        steps.append(MigrationStep(label: label + " (inferred)", source: nil, target: schemas[index + 1]))
                    }
                }
                start = steps.last?.target.summary ?? stored
            }
        }
        if !SchemaDifference.between(stored: start, current: schema.summary).isEmpty || steps.isEmpty {
            inferred = inferred && description.infersMappingAutomatically
            steps.append(MigrationStep(
                label: "\(storedVersion.map { "\($0)" } ?? "stored schema") → \(schema.version.map { "\($0)" } ?? "current schema") (inferred)",
                source: nil, target: schema))
        }
        guard inferred else {
            throw StrataError(
                .incompatibleStore,
                "\(fileName) needs a migration that no stage covers and inference is off (infersMappingAutomatically); it was left untouched. Differences: "
                    + differences.joined(separator: "; "))
        }
        // Every step must be possible before the first one runs.
        let problems = MigrationChain(steps, from: stored).problems
        guard problems.isEmpty else {
            throw StrataError(
                .incompatibleStore,
                "\(fileName) cannot be migrated to this schema; it was left untouched: " + problems.joined(separator: "; "))
        }
        return steps
    }

    /// Runs a stage's code on a context over a migration's store.
    private static func run(
        _ code: (ManagedObjectContext) throws -> Void, over store: any PersistentStore, schema: Schema, logger: Logger
    ) throws {
        let coordinator = PersistentStoreCoordinator(schema: schema, logger: logger)
        coordinator.attach(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        try code(context)
    }
}

private func == (lhs: any VersionedSchema.Type, rhs: any VersionedSchema.Type) -> Bool {
    ObjectIdentifier(lhs) == ObjectIdentifier(rhs)
}
