import Foundation
import Logging
import StrataCore

/// Opening a store that exists: checking it against the schema, or migrating
/// it. A migration runs inside the transaction that opens the store, holding
/// the namespace's write lock, so the servers that start at once with a new
/// version migrate it once (the others find it migrated when the lock is
/// theirs), no save of an older server interleaves, and a step that fails
/// leaves the store exactly as it was: PostgreSQL's DDL is transactional.
extension PostgresStore {
    /// The store's metadata rows.
    static func metadata(_ layout: PostgresLayout, in session: PostgresSession) throws(StrataError) -> [String: String] {
        var metadata: [String: String] = [:]
        for row in try session.rows("SELECT key, value FROM \(layout.metadataTable)") {
            let cells = Array(row)
            if case .text(let key) = try PostgresSession.value(cells[0]), case .text(let value) = try PostgresSession.value(cells[1]) {
                metadata[key] = value
            }
        }
        return metadata
    }

    /// Records the schema a store now holds: fingerprint, summary and version.
    static func recordSchema(_ schema: Schema, _ layout: PostgresLayout, in session: PostgresSession) throws(StrataError) {
        var entries = [
            ("fingerprint", schema.fingerprint), ("schema", String(decoding: schema.summary.canonicalJSON(), as: UTF8.self)),
        ]
        if let version = schema.version { entries.append(("versionIdentifier", version.description)) }
        for (key, value) in entries {
            try session.execute("""
                INSERT INTO \(layout.metadataTable) (key, value) VALUES ($1, $2) \
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, [.text(key), .text(value)])
        }
        if schema.version == nil {
            try session.execute("DELETE FROM \(layout.metadataTable) WHERE key = 'versionIdentifier'")
        }
    }

    /// What opening an existing store found: its identifier, the fingerprint
    /// it records now (writes check it has not changed since), and the
    /// labels of the steps that migrated it, if any.
    struct Opened {
        var identifier: String
        var fingerprint: String
        var migratedSteps: [String] = []
    }

    /// Checks an existing store against `schema`, migrating it when the
    /// container allows. Runs inside the opening transaction (holding the
    /// write lock unless read-only); the caller logs a migration once it commits.
    static func openExisting(
        layout: PostgresLayout, description: PostgresStoreDescription, schema: Schema, readOnly: Bool, options: StoreOptions,
        opening: StoreOpening, in session: PostgresSession
    ) throws(StrataError) -> Opened {
        let place = "The store in PostgreSQL schema \(layout.namespace)"
        let metadata = try metadata(layout, in: session)
        guard let identifier = metadata["storeIdentifier"], ObjectID.isUsableStoreIdentifier(identifier),
              let fingerprint = metadata["fingerprint"] else {
            throw StrataError(.corruptStore, "The PostgreSQL schema \(layout.namespace) has Strata's tables without their metadata")
        }
        guard Int(metadata["formatVersion"] ?? "") == formatVersion else {
            throw StrataError(
                .incompatibleStore,
                "\(place) has layout version \(metadata["formatVersion"] ?? "?"); this version of Strata reads version \(formatVersion)")
        }
        let stored = metadata["schema"].flatMap { try? JSONDecoder().decode(SchemaSummary.self, from: Data($0.utf8)) }
        if fingerprint == schema.fingerprint || stored.map({ SchemaDifference.between(stored: $0, current: schema.summary).isEmpty }) == true {
            // Stores made before the summary was recorded gain it, for their next migration.
            guard stored == nil, !readOnly else { return Opened(identifier: identifier, fingerprint: fingerprint) }
            try recordSchema(schema, layout, in: session)
            return Opened(identifier: identifier, fingerprint: schema.fingerprint)
        }
        guard let stored else {
            throw StrataError(
                .incompatibleStore,
                "\(place) was made for another schema by an earlier version of Strata, which did not record it, so it cannot be "
                    + "migrated; it was left untouched. Open it once with its own schema and this version of Strata, or migrate by export and import")
        }
        let differences = SchemaDifference.between(stored: stored, current: schema.summary).map(\.description)
        guard let migration = opening.migration, !readOnly else {
            throw StrataError(
                .incompatibleStore,
                "\(place) was written with another schema; it was left untouched. Differences: " + differences.joined(separator: "; "))
        }
        let steps: [MigrationStep]
        do {
            steps = try migration(stored, metadata["versionIdentifier"].flatMap(Schema.Version.init))
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.incompatibleStore, "\(place) cannot be migrated: \(error)", underlyingError: SendableDescription(error))
        }
        do {
            try session.telemetry.measure(.migrate) { _ in
                try migrate(
                    steps, from: stored, fingerprint: fingerprint, layout: layout, description: description, identifier: identifier,
                    options: options, progress: opening.migrationProgress, in: session)
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.migrationFailed, "\(place) could not be migrated: \(error)", underlyingError: SendableDescription(error))
        }
        return Opened(identifier: identifier, fingerprint: steps.last?.target.fingerprint ?? fingerprint, migratedSteps: steps.map(\.label))
    }

    /// Whether a statement gave up waiting for a lock (a migration's
    /// `lock_timeout`): the opening transaction rolls back and runs again.
    static func isLockTimeout(_ error: StrataError) -> Bool {
        if error.underlyingError is PostgresLockTimeout { return true }
        return (error.underlyingError as? StrataError).map(isLockTimeout) ?? false
    }

    /// Runs `open` until it returns, or fails otherwise than by a migration's
    /// lock wait, or has run `attempts` times: between attempts, a pause that
    /// grows (with jitter, so servers starting together spread out).
    static func openRetryingLockWaits(
        attempts: Int, logger: Logger, _ open: () throws(StrataError) -> Opened
    ) throws(StrataError) -> Opened {
        var attempt = 1
        while true {
            do {
                return try open()
            } catch where isLockTimeout(error) {
                guard attempt < attempts else {
                    throw StrataError(
                        .migrationFailed,
                        "The migration could not take a lock on the store's tables in \(attempt) attempts: other sessions held "
                            + "them (\(error.message)). Nothing was changed; load the container again when they are done, "
                            + "or raise migrationLockTimeout",
                        underlyingError: error)
                }
                logger.notice("A migration gave way to other sessions' locks (attempt \(attempt) of \(attempts)); trying again")
                Thread.sleep(forTimeInterval: 0.25 * Double(attempt) * Double.random(in: 0.5...1.5))
                attempt += 1
            }
        }
    }

    /// Runs every step in the opening transaction, recording each step's schema.
    private static func migrate(
        _ steps: [MigrationStep], from stored: SchemaSummary, fingerprint: String, layout: PostgresLayout,
        description: PostgresStoreDescription, identifier: String, options: StoreOptions,
        progress: (@Sendable (MigrationProgress) -> Void)?, in session: PostgresSession
    ) throws(StrataError) {
        let chain = MigrationChain(steps, from: stored)
        let total = chain.totalUnitCount
        // A lock that other sessions hold is waited for this long; meanwhile
        // their new queries queue behind the migration's request.
        let milliseconds = min(PostgresSession.milliseconds(description.migrationLockTimeout), Int64(Int32.max))
        try session.execute("SET LOCAL lock_timeout = \(milliseconds)")
        var completed = 0
        var recorded = fingerprint
        for link in chain.links {
            let (step, inferred, summary) = (link.step, link.inferred, link.source)
            func advance(_ detail: String) {
                completed += 1
                progress?(MigrationProgress(step: step.label, detail: detail, completedUnitCount: completed, totalUnitCount: total))
            }
            func store(_ schema: Schema) throws(StrataError) -> PostgresStore {
                try PostgresStore(
                    migrating: session, description: description, schema: schema, identifier: identifier, fingerprint: recorded,
                    options: options, logger: session.logger, telemetry: session.telemetry)
            }
            session.logger.info("Migrating PostgreSQL schema \(layout.namespace): \(step.label)")
            guard inferred.problems.isEmpty else {
                throw StrataError(
                    .incompatibleStore, "The step \(step.label) cannot be inferred: " + inferred.problems.joined(separator: "; "))
            }
            do {
                if let willMigrate = step.willMigrate, let source = step.source {
                    try willMigrate(try store(source))
                    try checkDeferredConstraints(in: session)
                    advance("ran willMigrate")
                }
                let target = PostgresLayout(schema: step.target, namespace: layout.namespace)
                try PostgresInferredStep(inferred, from: summary, to: target, in: session).apply(progress: advance)
                try recordSchema(step.target, target, in: session)
                recorded = step.target.fingerprint
                if let didMigrate = step.didMigrate {
                    try didMigrate(try store(step.target))
                    try checkDeferredConstraints(in: session)
                    advance("ran didMigrate")
                }
            } catch let error as StrataError where error.code == .migrationFailed || isLockTimeout(error) {
                throw error
            } catch {
                throw StrataError(.migrationFailed, "The migration step \(step.label) failed: \(error)", underlyingError: SendableDescription(error))
            }
        }
    }

    /// Checks now the relationships a stage's saves wrote, which PostgreSQL
    /// would check at commit: a table with checks pending cannot be altered,
    /// and a broken one fails the step that wrote it.
    private static func checkDeferredConstraints(in session: PostgresSession) throws(StrataError) {
        try session.execute("SET CONSTRAINTS ALL IMMEDIATE")
        try session.execute("SET CONSTRAINTS ALL DEFERRED")
    }
}
