import Foundation
import StrataCore
import GRDB
import Logging

/// Migrating a store file: every step of the chain inside one SQLite
/// transaction on a connection of its own, so the store afterwards holds the
/// whole migration or, when a step throws, the process dies or the disk fills,
/// exactly what it held before.
extension SQLiteStore {
    /// Runs `steps` on the file at `url`, which holds a store written with
    /// `stored.schema`. Throws `.migrationFailed` naming the step, and leaves
    /// the file as it was; refuses while any other connection, in this process
    /// or another, has the store open.
    static func migrate(
        fileAt url: URL, from stored: StoreMetadata, steps: [MigrationStep], options: StoreOptions,
        progress: (@Sendable (MigrationProgress) -> Void)? = nil, logger: Logger, telemetry: StoreTelemetry
    ) throws(StrataError) {
        guard let target = steps.last?.target else { return }
        let fileName = url.lastPathComponent
        var configuration = configuration(readOnly: false)
        // SQLite's procedure for changing tables: foreign keys off, checked before commit.
        configuration.foreignKeysEnabled = false
        configuration.busyMode = .timeout(2)
        configuration.label = "strata.migration"
        // Exclusive locking: the migration can start only when no other
        // connection has the store open, and none can open it meanwhile.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: url.path, configuration: configuration)
        } catch {
            throw StrataError(.migrationFailed, "\(fileName) could not be opened to migrate it", underlyingError: SendableDescription(error))
        }
        defer { try? queue.close() }
        let started = ContinuousClock.now
        do {
            try queue.writeWithoutTransaction { db in
                do {
                    try db.execute(sql: "BEGIN EXCLUSIVE")
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                    throw StrataError(
                        .migrationFailed,
                        "\(fileName) is open in another container or process; close it there to migrate it. Nothing was changed",
                        underlyingError: error)
                }
                do {
                    let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                    guard check == ["ok"] else {
                        throw StrataError(
                            .corruptStore,
                            "\(fileName) failed SQLite's integrity check before migrating (\(check.prefix(3).joined(separator: "; "))); it was not migrated")
                    }
                    try run(steps, on: db, url: url, stored: stored, target: target, options: options, progress: progress, logger: logger, telemetry: telemetry)
                    try db.execute(sql: "COMMIT")
                } catch {
                    try? db.execute(sql: "ROLLBACK")
                    throw error
                }
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.migrationFailed, "Migrating \(fileName) failed; it holds what it held before", underlyingError: SendableDescription(error))
        }
        logger.info("Migrated \(fileName) in \(ContinuousClock.now - started) (\(steps.map(\.label).joined(separator: ", ")))")
    }

    private static func run(
        _ steps: [MigrationStep], on db: Database, url: URL, stored: StoreMetadata, target: Schema, options: StoreOptions,
        progress: (@Sendable (MigrationProgress) -> Void)?, logger: Logger, telemetry: StoreTelemetry
    ) throws {
        // Another process may have migrated it between the inspection and the lock.
        let current = try StoreMetadata.read(db)
        if current.fingerprint == target.fingerprint { return }
        guard current.fingerprint == stored.fingerprint else {
            throw StrataError(.migrationFailed, "\(url.lastPathComponent) changed schema while it was being migrated; open it again")
        }
        let chain = MigrationChain(steps, from: current.schema)
        let total = chain.totalUnitCount
        var completed = 0
        for link in chain.links {
            let (step, inferred, summary) = (link.step, link.inferred, link.source)
            func advance(_ detail: String) {
                completed += 1
                progress?(MigrationProgress(step: step.label, detail: detail, completedUnitCount: completed, totalUnitCount: total))
            }
            logger.info("Migrating \(url.lastPathComponent): \(step.label)")
            do {
                if let willMigrate = step.willMigrate, let source = step.source {
                    try willMigrate(try SQLiteStore(migrating: db, url: url, schema: source, identifier: current.storeIdentifier, options: options, logger: logger, telemetry: telemetry))
                    advance("ran willMigrate")
                }
                guard inferred.problems.isEmpty else {
                    throw StrataError(
                        .incompatibleStore,
                        "The step \(step.label) cannot be inferred: " + inferred.problems.joined(separator: "; "))
                }
                try apply(inferred, from: summary, to: step.target, in: db, progress: advance)
                var metadata = current
                metadata.schema = step.target.summary
                metadata.fingerprint = step.target.fingerprint
                metadata.version = step.target.version
                try metadata.write(db)
                if let didMigrate = step.didMigrate {
                    try didMigrate(try SQLiteStore(migrating: db, url: url, schema: step.target, identifier: current.storeIdentifier, options: options, logger: logger, telemetry: telemetry))
                    advance("ran didMigrate")
                }
            } catch let error as StrataError where error.code == .migrationFailed || error.code == .incompatibleStore {
                throw error
            } catch {
                throw StrataError(.migrationFailed, "The migration step \(step.label) failed: \(error)", underlyingError: SendableDescription(error))
            }
        }
        let dangling = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
        if !dangling.isEmpty {
            let examples = dangling.prefix(5).map { row in "\(row[0] as String? ?? "?") row \(row[1] as Int64? ?? 0) → \(row[2] as String? ?? "?")" }
            throw StrataError(
                .migrationFailed,
                "After migrating, \(dangling.count) relationship(s) point to rows that do not exist: " + examples.joined(separator: "; "))
        }
    }
}
