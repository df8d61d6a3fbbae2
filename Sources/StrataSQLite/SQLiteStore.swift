import Foundation
import StrataCore
import Synchronization
import GRDB
import Logging
import Metrics

/// The embedded SQLite store, reached through GRDB.
///
/// File stores use a `DatabasePool` in WAL mode: reads run on reader connections,
/// each a consistent snapshot, and every save runs on the one writer connection
/// as one transaction. In-memory stores use a `DatabaseQueue`. The store speaks
/// rows and change sets only; contexts turn them into objects.
///
/// ```swift
/// let store = try SQLiteStore(location: .file(url), schema: schema)
/// ```
final class SQLiteStore: PersistentStore {
    /// Where the store lives.
    enum Location: Sendable, Hashable {
        case file(URL)
        case inMemory

        /// How logs name it: the file's name.
        var name: String {
            switch self {
            case .file(let url): url.lastPathComponent
            case .inMemory: "in-memory SQLite"
            }
        }
    }

    /// The store's UUID, recorded in its metadata.
    let identifier: String
    let schema: Schema
    let location: Location
    let isReadOnly: Bool
    /// Behaviour chosen by the store description (history, remote changes).
    let options: StoreOptions
    /// Identifies this loaded instance in the history it records, so a
    /// container can tell its own transactions from other processes'.
    let originIdentifier = UUID()
    /// Commits this store instance made, to tell its own from other writers'.
    let ownCommitCount = Atomic<Int>(0)
    /// Saves whose first attempt met a row at another version and ran again,
    /// checking first (see `save(_:origin:)`).
    let rerunSaves = Atomic<Int>(0)
    /// The watch for other writers' commits, when remote change notifications are on.
    let remoteState = Locked(RemoteChangeState())
    let writer: StoreDatabase
    let observers = StoreObservers()
    let layout: StoreLayout
    /// The container's logger, with `strata.store` metadata.
    let logger: Logger
    let telemetry: StoreTelemetry

    /// Opens (or creates) a store and checks it against the schema.
    ///
    /// A file that is not SQLite throws `.corruptStore`; a store with another schema
    /// throws `.incompatibleStore`. In both cases the file is not modified.
    ///
    /// With `migration`, a file written with another schema is migrated to
    /// `schema` first (see ``migrate(fileAt:from:steps:options:progress:)``); without,
    /// it is refused with `.incompatibleStore` listing the differences.
    init(
        location: Location, schema: Schema, readOnly: Bool = false, options: StoreOptions = StoreOptions(),
        migration: MigrationPlanning? = nil, migrationProgress: (@Sendable (MigrationProgress) -> Void)? = nil,
        logger: Logger = Logger(label: "strata"), metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) throws(StrataError) {
        self.schema = schema
        self.location = location
        let logger = logger.with(LogMetadata.store, location.name)
        self.logger = logger
        let telemetry = StoreTelemetry(DatabaseIdentity(system: "sqlite", namespace: location.name), metricsFactory: metricsFactory)
        self.telemetry = telemetry
        self.isReadOnly = readOnly
        self.options = options
        let layout = StoreLayout(schema: schema)
        self.layout = layout
        do {
            switch location {
            case .inMemory:
                let queue = try DatabaseQueue(configuration: Self.configuration(readOnly: false))
                writer = StoreDatabase(queue)
                identifier = try queue.write { db in try Self.createSchema(db, schema: schema, layout: layout) }
            case .file(let url):
                // Nothing opens the file for writing before it passed every check.
                let finding = try StoreFileInspection(url: url)
                    .examine(readOnly: readOnly, verifiesIntegrity: options.verifiesIntegrity)
                switch finding {
                case .missing:
                    if readOnly {
                        throw StrataError(.readOnlyStore, "The read-only store \(url.lastPathComponent) does not exist")
                    }
                    try Self.createFile(at: url, permissions: options.filePermissions)
                    let pool = try Self.openPool(at: url)
                    writer = StoreDatabase(pool)
                    identifier = try Self.createOrAdopt(pool, schema: schema, layout: layout, fileName: url.lastPathComponent)
                case .store(let existing, let metadata, let columns):
                    if metadata.matches(schema) {
                        try Self.checkTables(columns, layout: layout, schema: schema, fileName: url.lastPathComponent)
                    } else {
                        guard let migration, !readOnly else {
                            try metadata.check(against: schema, fileName: url.lastPathComponent, readOnly: readOnly)
                            throw StrataError(.incompatibleStore, "\(url.lastPathComponent) was written with another schema")
                        }
                        let steps = try migration(metadata.schema, metadata.version)
                        try telemetry.measure(.migrate) { _ in
                            try Self.migrate(
                                fileAt: url, from: metadata, steps: steps, options: options, progress: migrationProgress,
                                logger: logger, telemetry: telemetry)
                        }
                    }
                    writer = StoreDatabase(readOnly ? try Self.openReadOnly(at: url) : try Self.openPool(at: url))
                    identifier = existing
                    try upgradeFormatIfNeeded()
                }
            }
            try prepareHistoryTables()
        } catch let error as StrataError {
            throw error
        } catch {
            throw Self.translate(error, whileOpening: location)
        }
    }

    /// A store over a migration's connection, inside its transaction: what
    /// the contexts of a custom migration stage read and save through.
    init(
        migrating db: Database, url: URL, schema: Schema, identifier: String, options: StoreOptions, logger: Logger,
        telemetry: StoreTelemetry
    ) throws {
        self.schema = schema
        self.logger = logger
        self.telemetry = telemetry
        self.location = .file(url)
        self.isReadOnly = false
        var options = options
        options.remoteChangeNotifications = false
        self.options = options
        self.layout = StoreLayout(schema: schema)
        self.identifier = identifier
        self.writer = StoreDatabase(migrating: db)
        try prepareHistoryTables()
    }

    static func configuration(readOnly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.foreignKeysEnabled = true
        configuration.label = "strata"
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            db.add(collation: decimalCollation)
            db.add(function: unwrapFunction)
            db.add(function: CheckedArithmeticFunction.function)
            db.add(collation: TextMatchingFunctions.collation)
            for function in TextMatchingFunctions.functions { db.add(function: function) }
        }
        return configuration
    }

    /// Swift's force unwrap in SQL: the value, or an error that fails the query.
    /// Not pure, so an unwrap of a constant fails only when a row is read (see ``CheckedArithmeticFunction``).
    private static let unwrapFunction = DatabaseFunction(UnwrapFunction.name, argumentCount: 1, pure: false) { values in
        guard !values[0].isNull else { throw DatabaseError(message: UnwrapFunction.message) }
        return values[0]
    }

    /// Sorts `Decimal` attributes (stored as text) numerically; see ``DecimalCollation``.
    private static let decimalCollation = DatabaseCollation(DecimalCollation.name, function: DecimalCollation.compare)

    /// Maps GRDB and SQLite failures to Strata's error codes.
    static func translate(_ error: any Error, whileOpening location: Location? = nil) -> StrataError {
        if let error = error as? StrataError { return error }
        if let error = error as? DatabaseError {
            if error.message?.contains(UnwrapFunction.message) == true { return UnwrapFunction.failure }
            if let failure = error.message.flatMap(CheckedArithmetic.failure(forMessage:)) { return failure }
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                return StrataError(.corruptStore, "The store file is damaged or not a SQLite database", underlyingError: error)
            case .SQLITE_READONLY:
                return StrataError(.readOnlyStore, "The store is read-only", underlyingError: error)
            default:
                break
            }
            switch error.extendedResultCode {
            case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY:
                return StrataError(.uniquenessConflict, "A uniqueness constraint was violated: \(constraintName(error))",
                                   underlyingError: error)
            case .SQLITE_CONSTRAINT_NOTNULL:
                let column = constraintName(error)
                if column.hasSuffix(".\(StorageNaming.versionColumn)") {
                    // `StoreLayout.nextVersionSQL` of a row at the highest version.
                    return StrataError(
                        .corruptStore, "A stored row of \(column.dropLast(StorageNaming.versionColumn.count + 1)) is at the highest "
                            + "version a row can have; nothing was saved", underlyingError: error)
                }
                return StrataError(.validation, "A required value is missing: \(column)", underlyingError: error)
            case .SQLITE_CONSTRAINT_FOREIGNKEY:
                return StrataError(.validation, "A relationship points to an object that does not exist or may not be deleted",
                                   underlyingError: error)
            default:
                return StrataError(.sqlite, "SQLite error \(error.resultCode.rawValue): \(error.message ?? "")",
                                   underlyingError: error)
            }
        }
        if let location, case .file(let url) = location {
            return StrataError(.sqlite, "Could not open \(url.lastPathComponent)", underlyingError: SendableDescription(error))
        }
        return StrataError(.sqlite, "Store operation failed", underlyingError: SendableDescription(error))
    }

    /// The table and column named by a constraint failure message (no values).
    private static func constraintName(_ error: DatabaseError) -> String {
        let message = error.message ?? ""
        if let range = message.range(of: "failed: ") { return String(message[range.upperBound...]) }
        return message
    }

    func addObserver(_ observer: any StoreObserver) { observers.add(observer) }

    /// Closes the store's connections, folding the write-ahead log back into
    /// the file first so it does not grow with every open and close.
    ///
    /// The readers close first, so that the writer is the last connection:
    /// SQLite then removes the `-wal` and `-shm` files, and the next open finds
    /// no log and writes nothing (see ``EmptyWriteAheadLog``). A read-only
    /// connection closing last would leave an empty log behind.
    func close() throws(StrataError) {
        stopWatchingRemoteChanges()
        do {
            if let pool = writer.writer as? DatabasePool {
                pool.releaseMemory()
                if !isReadOnly { _ = try? pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) } }
                try pool.close()
            }
            if let queue = writer.writer as? DatabaseQueue { try queue.close() }
        } catch {
            throw Self.translate(error)
        }
    }
}
