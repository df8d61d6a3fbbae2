import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import StrataCore
import StrataSQL
import Synchronization
import Tracing

/// A store in a PostgreSQL database: the same rows, versions, relationships,
/// history and change sets as the SQLite store, shared by every process that
/// opens the same database and schema (namespace).
///
/// Writes take a transaction-scoped advisory lock of the namespace first, so
/// the saves of all servers follow one another as SQLite's writers do: the
/// checks a save makes before writing hold until it commits, and history
/// tokens grow in commit order. Each commit sends a `NOTIFY` on the store's
/// channel (payload: history token and origin), which other processes turn
/// into remote changes.
///
/// ```swift
/// var description = StoreDescription.postgres(try PostgresStoreDescription(url: "postgres://app@db/app"))
/// description.historyTracking = true
/// container.storeDescriptions = [description]
/// try await container.loadPersistentStores()
/// ```
final class PostgresStore: PersistentStore, AsyncPersistentStore {
    let identifier: String
    let schema: Schema
    let options: StoreOptions
    let isReadOnly: Bool
    let originIdentifier = UUID()
    let pool: PostgresConnectionPool
    let layout: PostgresLayout
    let observers = StoreObservers()
    let remote = Locked(PostgresRemoteState())
    /// Saves whose first attempt met a row at another version and ran again,
    /// checking first (see `save(_:origin:)`).
    let rerunSaves = Atomic<Int>(0)
    /// The advisory lock every write of this namespace holds.
    let writeLock: Int64
    /// The schema fingerprint the store recorded when it was opened: a write
    /// finding another (a newer server migrated it) is refused.
    let recordedFingerprint: String
    /// The container's logger, with `strata.store` metadata.
    let logger: Logger
    let telemetry: StoreTelemetry
    /// The layout's version, recorded in the store.
    static let formatVersion = 1

    /// Opens the store, creating it when the namespace holds none; a store
    /// written with another schema is migrated as `opening` says, or refused.
    init(
        description: PostgresStoreDescription, schema: Schema, readOnly: Bool, options: StoreOptions,
        opening: StoreOpening = StoreOpening()
    ) throws(StrataError) {
        self.schema = schema
        self.options = options
        isReadOnly = readOnly
        let logger = opening.logger.with(LogMetadata.store, description.storeName)
        self.logger = logger
        let telemetry = StoreTelemetry(description.identity, metricsFactory: opening.metricsFactory)
        self.telemetry = telemetry
        let layout = PostgresLayout(schema: schema, namespace: description.schemaName)
        self.layout = layout
        let writeLock = Self.lockKey("strata:" + description.schemaName)
        self.writeLock = writeLock
        let pool = try PostgresConnectionPool(description: description, logger: logger, telemetry: telemetry)
        self.pool = pool
        do {
            let started = ContinuousClock.now
            let opened = try Self.openRetryingLockWaits(attempts: description.migrationAttempts, logger: logger) { () throws(StrataError) in
                try Self.open(
                    layout: layout, pool: pool, description: description, schema: schema, writeLock: writeLock, readOnly: readOnly,
                    options: options, opening: opening)
            }
            identifier = opened.identifier
            recordedFingerprint = opened.fingerprint
            if !opened.migratedSteps.isEmpty {
                logger.info(
                    "Migrated PostgreSQL schema \(layout.namespace) in \(ContinuousClock.now - started) (\(opened.migratedSteps.joined(separator: ", ")))")
            }
        } catch {
            pool.close()
            throw error
        }
    }

    /// A store over a migration's session, inside its transaction: what the
    /// contexts of a custom migration stage read and save through.
    init(
        migrating session: PostgresSession, description: PostgresStoreDescription, schema: Schema, identifier: String,
        fingerprint: String, options: StoreOptions, logger: Logger, telemetry: StoreTelemetry
    ) throws(StrataError) {
        recordedFingerprint = fingerprint
        self.logger = logger
        self.telemetry = telemetry
        self.schema = schema
        var options = options
        options.remoteChangeNotifications = false
        self.options = options
        isReadOnly = false
        layout = PostgresLayout(schema: schema, namespace: description.schemaName)
        writeLock = Self.lockKey("strata:" + description.schemaName)
        pool = try PostgresConnectionPool(pinnedTo: session, description: description, logger: logger, telemetry: telemetry)
        self.identifier = identifier
    }

    /// Creates the namespace and its tables when they do not exist, or checks
    /// the ones that do; returns the store's identifier. Two processes opening
    /// at once create it once (the write lock).
    private static func open(
        layout: PostgresLayout, pool: PostgresConnectionPool, description: PostgresStoreDescription, schema: Schema,
        writeLock: Int64, readOnly: Bool, options: StoreOptions, opening: StoreOpening
    ) throws(StrataError) -> Opened {
        try pool.withTransaction(timeLimited: false) { session throws(StrataError) in
            if !readOnly {
                try session.execute("SELECT pg_advisory_xact_lock($1)", [.integer(writeLock)])
                try session.execute("CREATE SCHEMA IF NOT EXISTS \(quote(layout.namespace))")
            }
            let exists = try session.rows("SELECT (to_regclass($1) IS NOT NULL)::int4", [.text(layout.metadataTable)])
            if let cell = exists.first?.first, try PostgresSession.integer(cell) == 1 {
                // This version's functions, when the store lacks them, before a
                // migration's stages use them; other versions' stay for their servers.
                if !readOnly {
                    let present = try session.rows(
                        "SELECT (to_regprocedure($1) IS NOT NULL)::int4",
                        [.text(PostgresFunctions.writeLockSignature(namespace: layout.namespace))]).first?.first
                    if try present.flatMap(PostgresSession.integer) != 1 {
                        for statement in PostgresFunctions.createStatements(namespace: layout.namespace) { try session.execute(statement) }
                    }
                }
                return try openExisting(
                    layout: layout, description: description, schema: schema, readOnly: readOnly, options: options,
                    opening: opening, in: session)
            }
            guard !readOnly else {
                throw StrataError(
                    .storeNotLoaded, "The PostgreSQL schema \(layout.namespace) holds no Strata store to open read-only")
            }
            for statement in layout.createStatements { try session.execute(statement) }
            let identifier = UUID().uuidString
            for (key, value) in [("storeIdentifier", identifier), ("formatVersion", String(formatVersion))] {
                try session.execute("INSERT INTO \(layout.metadataTable) (key, value) VALUES ($1, $2)", [.text(key), .text(value)])
            }
            try recordSchema(schema, layout, in: session)
            return Opened(identifier: identifier, fingerprint: schema.fingerprint)
        }
    }

    /// The same advisory lock number in every process.
    static func lockKey(_ text: String) -> Int64 {
        Int64(bitPattern: StableHash.value(text))
    }

    // MARK: Writing

    /// Runs a write in one transaction holding the namespace's write lock.
    func write<Result>(_ body: (PostgresSession) throws(StrataError) -> Result) throws(StrataError) -> Result {
        if isReadOnly { throw StrataError(.readOnlyStore, "The store is read-only; nothing was saved") }
        return try pool.withTransaction { session throws(StrataError) in
            // Locks, then checks no newer server migrated the store meanwhile.
            try session.execute(
                "SELECT \(PostgresFunctions.writeLock(namespace: layout.namespace))($1, $2)",
                [.integer(writeLock), .text(recordedFingerprint)])
            return try body(session)
        }
    }

    /// Tells this process's observers of a commit.
    func didCommit(_ changes: ChangeSet) {
        for observer in observers.current() { observer.store(self, didCommit: changes) }
    }

    /// Announces a commit to other processes; delivered when the transaction commits.
    func announce(_ token: HistoryToken?, in session: PostgresSession) throws(StrataError) {
        let payload = "\(token?.transactionNumber ?? 0) \(originIdentifier.uuidString)"
        try session.execute("SELECT pg_notify($1, $2)", [.text(layout.channel), .text(payload)])
    }

    // MARK: Metadata

    func appMetadata() throws(StrataError) -> [String: StoredValue] {
        try pool.withSession { session throws(StrataError) in
            var values: [String: StoredValue] = [:]
            let rows = try session.rows(
                "SELECT key, integer_value, real_value, text_value, blob_value FROM \(layout.appMetadataTable)")
            for row in rows {
                let cells = Array(row)
                guard case .text(let key) = try PostgresSession.value(cells[0]) else { continue }
                var value = StoredValue.null
                for cell in cells.dropFirst() {
                    let stored = try PostgresSession.value(cell)
                    if !stored.isNull { value = stored }
                }
                values[key] = value
            }
            return values
        }
    }

    func setAppMetadata(_ changes: [String: StoredValue?]) throws(StrataError) {
        try write { session throws(StrataError) in
            try writeAppMetadata(changes, in: session)
            try announce(nil, in: session)
        }
        didCommit(ChangeSet(storeIdentifier: identifier))
    }

    func writeAppMetadata(_ changes: [String: StoredValue?], in session: PostgresSession) throws(StrataError) {
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            try session.execute("DELETE FROM \(layout.appMetadataTable) WHERE key = $1", [.text(key)])
            guard let value else { continue }
            let column = switch value {
            case .null, .integer: "integer_value"
            case .real: "real_value"
            case .text: "text_value"
            case .blob: "blob_value"
            }
            try session.execute("INSERT INTO \(layout.appMetadataTable) (key, \(column)) VALUES ($1, $2)", [.text(key), value])
        }
    }

    // MARK: Observing

    func addObserver(_ observer: any StoreObserver) { observers.add(observer) }

    func close() throws(StrataError) {
        stopWatchingRemoteChanges()
        pool.close()
    }

    deinit {
        stopWatchingRemoteChanges()
    }

    // MARK: Awaiting

    // The awaiting forms run the store's work on NIO's thread pool: the
    // caller's thread is free while PostgreSQL answers.

    func fetchRowsAsync(_ plan: FetchPlan) async throws(StrataError) -> [StoredRow] {
        try await offload { () throws(StrataError) in
            var rows: [StoredRow] = []
            try self.fetchRows(plan) { rows.append($0.stored()) }
            return rows
        }
    }

    func fetchKeysAsync(_ plan: FetchPlan) async throws(StrataError) -> [Int64] {
        try await offload { () throws(StrataError) in try self.fetchKeys(plan) }
    }

    func countAsync(_ plan: FetchPlan) async throws(StrataError) -> Int {
        try await offload { () throws(StrataError) in try self.count(plan) }
    }

    func fetchValuesAsync(_ plan: FetchPlan, columns: [StoreExpression]) async throws(StrataError) -> StoredValueRows {
        try await offload { () throws(StrataError) in try self.collectValues(plan, columns: columns) }
    }

    func saveAsync(_ request: SaveRequest, origin: ObjectIdentifier?) async throws(StrataError) -> SaveResult {
        try await offload { () throws(StrataError) in try self.save(request, origin: origin) }
    }

    private func offload<Result: Sendable>(_ work: @escaping @Sendable () throws(StrataError) -> Result) async throws(StrataError) -> Result {
        // The operation's span, so statements run on the pool's thread are its children.
        let span = InstrumentationContext.current
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                try InstrumentationContext.withValue(span) { () throws(StrataError) in try work() }
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.postgres, "PostgreSQL: the store's work could not run: \(error)")
        }
    }
}
