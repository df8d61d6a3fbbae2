import Foundation
import Logging
import Metrics
import NIOCore
import NIOPosix
import PostgresNIO
import StrataCore
import StrataSQL

extension StrataError.Code {
    /// PostgreSQL refused a statement or the connection (the message says why).
    public static let postgres = StrataError.Code(rawValue: "postgres")
}

/// The PostgreSQL store's connections: up to `maximum` of them, opened when
/// first needed and kept for the next caller.
///
/// Statements run through NIO futures and wait on the calling thread, so a
/// fault firing inside a property accessor (which cannot `await`) gets its
/// row; the work itself happens on NIO's event loops, never on Swift's
/// cooperative threads, so a caller blocked here cannot starve the threads
/// the answer needs. Waiting on an event-loop thread would deadlock and is
/// refused. A connection that broke is dropped, and the next lease opens a
/// new one: the store survives a restarted server.
///
/// ```swift
/// let pool = PostgresConnectionPool(description: description)
/// let count = try pool.withSession { session throws(StrataError) in
///     try session.rows("SELECT count(*) FROM \"Book\"").first.map { try session.integer($0, at: 0) }
/// }
/// ```
final class PostgresConnectionPool: @unchecked Sendable {  // `idle` and `openCount` are only touched under `condition`
    let description: PostgresStoreDescription
    let maximum: Int
    private let configuration: PostgresConnection.Configuration
    private let condition = NSCondition()
    private var idle: [PooledConnection] = []
    private var openCount = 0
    private var isClosed = false
    private var nextID = 0
    /// The one session a migration's pool runs everything on.
    private let pinned: PostgresSession?
    /// The store's logger; postgres-nio logs its connections' work through it too.
    let logger: Logger
    /// The store's spans and metrics: a span per statement, the wait for a connection.
    let telemetry: StoreTelemetry
    /// `db.client.connection.wait_time`: how long a caller waited for a connection.
    private let waitTime: Metrics.Timer
    /// Whether waits are measured (a metrics backend was bootstrapped).
    private let measuresWaits: Bool

    init(
        description: PostgresStoreDescription, logger: Logger = Logger(label: "strata"), telemetry: StoreTelemetry? = nil
    ) throws(StrataError) {
        self.description = description
        maximum = max(1, description.maximumConnections)
        configuration = try Self.configuration(description)
        pinned = nil
        self.logger = logger
        let telemetry = telemetry ?? StoreTelemetry(description.identity)
        self.telemetry = telemetry
        (waitTime, measuresWaits) = Self.waitTimer(description, factory: telemetry.metricsFactory)
    }

    /// A pool that runs everything on `session`, inside the transaction it
    /// has open: what a migration's custom stages read and save through.
    /// Its transactions are savepoints of that transaction.
    init(
        pinnedTo session: PostgresSession, description: PostgresStoreDescription, logger: Logger, telemetry: StoreTelemetry
    ) throws(StrataError) {
        self.description = description
        maximum = 1
        configuration = try Self.configuration(description)
        // A migration's statements run inside its transaction, where a prepared
        // statement the server lost could not be run again unprepared.
        pinned = PostgresSession(
            connection: session.connection, queryTimeout: session.queryTimeout, logger: logger, telemetry: telemetry)
        self.logger = logger
        self.telemetry = telemetry
        (waitTime, measuresWaits) = Self.waitTimer(description, factory: telemetry.metricsFactory)
    }

    private static func waitTimer(_ description: PostgresStoreDescription, factory: any MetricsFactory) -> (Metrics.Timer, Bool) {
        let timer = Metrics.Timer(
            label: "db.client.connection.wait_time",
            dimensions: [("db.system.name", "postgresql"), ("db.client.connection.pool.name", description.identity.namespace)],
            preferredDisplayUnit: .seconds, factory: factory)
        return (timer, !(factory is NOOPMetricsHandler))
    }

    static func configuration(_ description: PostgresStoreDescription) throws(StrataError) -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        do {
            tls = switch description.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw StrataError(.postgres, "PostgreSQL: TLS could not be set up: \(error)")
        }
        var configuration = PostgresConnection.Configuration(
            host: description.host, port: description.port, username: description.username,
            password: description.password, database: description.database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// Opens a connection of its own (not from the pool), for listening.
    func connect() throws(StrataError) -> PostgresConnection {
        try Self.refuseOnEventLoop()
        let id = condition.locked { () -> Int in
            nextID += 1
            return nextID
        }
        do {
            return try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: logger
            ).wait()
        } catch {
            throw PostgresSession.translate(error, doing: "connecting to \(place)")
        }
    }

    var place: String {
        "\(description.host):\(description.port)/\(description.database) as \(description.username)"
    }

    /// Runs `body` with a connection of the pool, waiting for one when all are busy.
    /// A `timeLimited` session gives up on a statement the server has not
    /// answered within the description's `queryTimeout` (see ``PostgresSession/answer(to:doing:)``).
    func withSession<Result>(
        timeLimited: Bool = true, _ body: (PostgresSession) throws(StrataError) -> Result
    ) throws(StrataError) -> Result {
        try Self.refuseOnEventLoop()
        // In a migration, a failed statement must not end its transaction.
        if let pinned { return try pinned.withSavepoint(body) }
        let connection = try lease()
        let session = PostgresSession(
            connection: connection.connection, queryTimeout: timeLimited ? description.queryLimit : nil, logger: logger,
            telemetry: telemetry, preparedStatements: connection.preparedStatements)
        do throws(StrataError) {
            let result = try body(session)
            giveBack(connection)
            return result
        } catch {
            giveBack(connection)
            throw error
        }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back
    /// when it throws. One that is not `timeLimited` (opening and migrating a
    /// store, which may rewrite whole tables) waits as long as its statements run.
    func withTransaction<Result>(
        isolation: String = "READ COMMITTED", timeLimited: Bool = true, _ body: (PostgresSession) throws(StrataError) -> Result
    ) throws(StrataError) -> Result {
        if let pinned { return try pinned.withSavepoint(body) }
        return try withSession(timeLimited: timeLimited) { session throws(StrataError) in
            try session.execute("BEGIN ISOLATION LEVEL \(isolation)")
            // Unlimited, whatever the connection, role or database would set.
            if !timeLimited { try session.execute("SET LOCAL statement_timeout = 0") }
            do throws(StrataError) {
                let result = try body(session)
                try session.execute("COMMIT")
                return result
            } catch {
                _ = try? session.execute("ROLLBACK")
                throw error
            }
        }
    }

    private func lease() throws(StrataError) -> PooledConnection {
        guard measuresWaits else { return try leaseUnmeasured() }
        let started = ContinuousClock.now
        defer { waitTime.record(duration: ContinuousClock.now - started) }
        return try leaseUnmeasured()
    }

    private func leaseUnmeasured() throws(StrataError) -> PooledConnection {
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw StrataError(.storeNotLoaded, "The PostgreSQL store was closed")
            }
            while let connection = idle.popLast() {
                if !connection.connection.isClosed {
                    condition.unlock()
                    return connection
                }
                openCount -= 1
            }
            if openCount < maximum {
                openCount += 1
                condition.unlock()
                do {
                    return try startSession(on: connect())
                } catch {
                    condition.locked { openCount -= 1 }
                    condition.signal()
                    throw error
                }
            }
            condition.wait()
        }
    }

    /// A new connection ready for the pool: the server cancels its statements
    /// that run longer than `queryTimeout` (waiting for a lock counts), so
    /// nothing commits after the caller gave up. Set by a statement, not a
    /// startup parameter, which poolers such as PgBouncer refuse.
    private func startSession(on connection: PostgresConnection) throws(StrataError) -> PooledConnection {
        guard let timeout = description.queryLimit else { return PooledConnection(connection: connection) }
        do {
            try PostgresSession(connection: connection, queryTimeout: timeout, logger: logger, telemetry: telemetry)
                .execute("SET statement_timeout = \(PostgresSession.milliseconds(timeout))")
        } catch {
            connection.closeKeepingAlive()
            throw error
        }
        return PooledConnection(connection: connection)
    }

    private func giveBack(_ connection: PooledConnection) {
        condition.lock()
        if connection.connection.isClosed || isClosed {
            openCount -= 1
            condition.unlock()
            if isClosed { connection.connection.closeKeepingAlive() }
        } else {
            idle.append(connection)
            condition.unlock()
        }
        condition.signal()
    }

    /// Closes the idle connections; busy ones close as they come back.
    func close() {
        // A pinned session belongs to the migration that lent it.
        if pinned != nil { return }
        let connections = condition.locked { () -> [PooledConnection] in
            isClosed = true
            defer { idle = [] }
            openCount -= idle.count
            return idle
        }
        condition.broadcast()
        // Not waited for: closing may be asked from any thread, an event loop's too.
        for connection in connections { connection.connection.closeKeepingAlive() }
    }

    deinit {
        for connection in idle { connection.connection.closeKeepingAlive() }
    }

    private static func refuseOnEventLoop() throws(StrataError) {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw StrataError(
                .postgres,
                "The PostgreSQL store was called on a NIO event-loop thread, where waiting for its answer would "
                    + "deadlock; call it from a context's own thread, or use the …Async methods")
        }
    }
}

/// What a statement that gave up waiting for a lock (SQLSTATE 55P03) carries as
/// its underlying error, so a migration knows to roll back and try again.
struct PostgresLockTimeout: Error, Sendable {}

/// A value bound to a statement: a stored value, or a list of keys bound as one
/// binary `bigint[]`. A bound array is a constant when the statement is
/// planned, so `pk = ANY($1)` is a hash lookup however long the list is (a
/// text array cast in the statement is not, and is searched row by row).
///
/// ```swift
/// try session.execute("DELETE FROM t WHERE pk = ANY($1)", arguments: [.keys([3, 5, 8])])
/// ```
enum PostgresArgument: Sendable {
    case value(StoredValue)
    case keys([Int64])
    /// Integers bound as one binary `bigint[]`, NULL where nil.
    case optionalIntegers([Int64?])
    /// One column of many rows (see ``PostgresColumnArray``).
    case column(PostgresColumnArray)

    static func integer(_ value: Int64) -> PostgresArgument { .value(.integer(value)) }
}

/// One leased connection: statements with bound values, answered as rows.
///
/// ```swift
/// let rows = try session.rows("SELECT pk FROM \"Book\" WHERE year > $1", [.integer(2000)])
/// ```
struct PostgresSession {
    let connection: PostgresConnection
    /// How long the server may take over a statement (nil: no limit); see ``answer(to:doing:)``.
    let queryTimeout: Duration?
    /// The store's logger, and its spans: one per statement.
    let logger: Logger
    let telemetry: StoreTelemetry
    /// What the connection has prepared (see ``preparedValues(_:_:)``); nil: prepare nothing.
    var preparedStatements: PreparedStatements? = nil

    /// The rows a statement returns.
    @discardableResult
    func rows(_ sql: String, _ values: [StoredValue] = []) throws(StrataError) -> [PostgresRow] {
        try result(sql, values).rows
    }

    /// Runs a statement; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ values: [StoredValue] = []) throws(StrataError) -> Int {
        try result(sql, values).metadata.rows ?? 0
    }

    /// The rows a statement with key lists among its values returns.
    @discardableResult
    func rows(_ sql: String, arguments: [PostgresArgument]) throws(StrataError) -> [PostgresRow] {
        try result(sql, try bindings(arguments)).rows
    }

    /// Runs a statement with key lists among its values; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, arguments: [PostgresArgument]) throws(StrataError) -> Int {
        try result(sql, try bindings(arguments)).metadata.rows ?? 0
    }

    /// Runs a statement with key lists among its values, and `meanwhile` here
    /// while the server works on it; returns how many rows it changed. Work a
    /// caller owes the statement's rows anyway overlaps the server's.
    @discardableResult
    func execute(_ sql: String, arguments: [PostgresArgument], meanwhile: () -> Void) throws(StrataError) -> Int {
        let bindings = try bindings(arguments)
        return try traced(sql) { () throws(StrataError) in
            let query = connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            meanwhile()
            return try answer(to: query, doing: "running \(sql.prefix(300))").metadata.rows ?? 0
        }
    }

    /// `body` in a savepoint of the open transaction: released when it
    /// returns, rolled back to when it throws, so what it did is undone and
    /// the transaction goes on.
    @discardableResult
    func withSavepoint<Result>(_ body: (PostgresSession) throws(StrataError) -> Result) throws(StrataError) -> Result {
        try execute("SAVEPOINT strata_nested")
        do throws(StrataError) {
            let result = try body(self)
            try execute("RELEASE SAVEPOINT strata_nested")
            return result
        } catch {
            _ = try? execute("ROLLBACK TO SAVEPOINT strata_nested")
            _ = try? execute("RELEASE SAVEPOINT strata_nested")
            throw error
        }
    }

    private func bindings(_ arguments: [PostgresArgument]) throws(StrataError) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .value(let value):
                try Self.checkSize(of: value)
                Self.bind(value, into: &bindings)
            case .keys(let keys): bindings.append(PostgresIntegerArray(keys))
            case .optionalIntegers(let values): bindings.append(PostgresIntegerArray(optionals: values))
            case .column(let column): bindings.append(column)
            }
        }
        return bindings
    }

    private func result(_ sql: String, _ values: [StoredValue]) throws(StrataError) -> PostgresQueryResult {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            try Self.checkSize(of: value)
            Self.bind(value, into: &bindings)
        }
        return try result(sql, bindings)
    }

    /// PostgreSQL's largest text or `bytea` value: 1 GB less its 4-byte
    /// header and one byte.
    static let largestValueSize = (1 << 30) - 5

    /// The most bytes of text and data one statement carries when rows can be
    /// split between statements: postgres-nio sends a statement's values in
    /// one message, whose length must fit in 32 bits.
    static let statementByteBudget = 256 << 20

    /// The bytes of text or data in a value (other values count nothing).
    static func byteSize(of value: StoredValue) -> Int {
        switch value {
        case .text(let text): text.utf8.count
        case .blob(let data): data.count
        default: 0
        }
    }

    /// Splits rows into runs of at most `maximumRows` rows, each within
    /// `byteBudget` unless a run is a single row; throws for a row larger than
    /// one message can carry.
    static func chunks(
        of rows: ArraySlice<[StoredValue]>, maximumRows: Int, byteBudget: Int = statementByteBudget
    ) throws(StrataError) -> [Range<Int>] {
        var chunks: [Range<Int>] = []
        var start = rows.startIndex, bytes = 0
        for index in rows.indices {
            let size = rows[index].reduce(0) { $0 + byteSize(of: $1) }
            guard size < 1 << 31 else {
                throw StrataError(.postgres, "A row of \(size) bytes is more than one statement can send to PostgreSQL; nothing was written")
            }
            if index > start, index - start >= maximumRows || bytes + size > byteBudget {
                chunks.append(start..<index)
                start = index
                bytes = 0
            }
            bytes += size
        }
        if start < rows.endIndex { chunks.append(start..<rows.endIndex) }
        return chunks
    }

    /// Refuses a value PostgreSQL cannot store, before it is sent.
    static func checkSize(of value: StoredValue) throws(StrataError) {
        let size = byteSize(of: value)
        guard size > largestValueSize else { return }
        let kind = if case .text = value { "text" } else { "data value" }
        throw StrataError(
            .postgres, "PostgreSQL cannot store a \(kind) of \(size) bytes (its limit is \(largestValueSize) bytes); nothing was written")
    }

    private func result(_ sql: String, _ bindings: PostgresBindings) throws(StrataError) -> PostgresQueryResult {
        try traced(sql) { () throws(StrataError) in
            let query = connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            return try answer(to: query, doing: "running \(sql.prefix(300))")
        }
    }


    static func bind(_ value: StoredValue, into bindings: inout PostgresBindings) {
        switch value {
        case .null: bindings.appendNull()
        case .integer(let number): bindings.append(number)
        case .real(let number): bindings.append(number)
        case .text(let text): bindings.append(text)
        case .blob(let data): bindings.append(ByteBuffer(bytes: data))
        }
    }

    /// A typed error with PostgreSQL's own message (and SQLSTATE) when it gave
    /// one; `doing` says what was being done. Unique-key and foreign-key
    /// violations get Strata's own codes.
    static func translate(_ error: any Error, doing: String) -> StrataError {
        if let error = error as? StrataError { return error }
        // Prepared statements report through postgres-nio's older `PostgresError`.
        let reported: (message: String, state: String?)? = if let error = error as? PSQLError {
            (error.serverInfo?[.message] ?? "\(error.code)", error.serverInfo?[.sqlState])
        } else if case .server(let info)? = error as? PostgresError {
            (info.fields[.message] ?? "\(info)", info.fields[.sqlState])
        } else {
            nil
        }
        if let (message, state) = reported {
            let text = "PostgreSQL: \(message)" + (state.map { " (SQLSTATE \($0))" } ?? "") + ", \(doing)"
            switch state {
            case "23505": return StrataError(.uniquenessConflict, text)
            case "55P03": return StrataError(.postgres, text, underlyingError: PostgresLockTimeout())
            case "26000": return StrataError(.postgres, text, underlyingError: PreparedStatements.Missing())
            case "57014":
                return StrataError(
                    .postgres,
                    text + "; a statement that runs longer than the store description's queryTimeout, or that the "
                        + "server is asked to cancel, is canceled, and what it did is rolled back")
            case "23503", "23502", "23514": return StrataError(.validation, text)
            case "P0001":
                if let failure = CheckedArithmetic.failure(forMessage: message) { return failure }
                if message.contains(UnwrapFunction.message) { return UnwrapFunction.failure }
                return StrataError(.postgres, text)
            case "22003", "22012": return StrataError(.unsupportedPredicate, "The predicate's arithmetic failed: \(message)")
            case PostgresFunctions.schemaChangedState:
                return StrataError(
                    .incompatibleStore,
                    "PostgreSQL: the store was migrated to another schema by a newer version since this container opened it; "
                        + "nothing was saved. Load the container with the new schema, \(doing)")
            case "42883" where message.contains("strata_"):
                return StrataError(
                    .incompatibleStore,
                    text + "; the store lacks the functions of this version of Strata, which it gains the first time "
                        + "this version opens it for writing (not read-only)")
            case "42703", "42P01":
                return StrataError(
                    .incompatibleStore,
                    text + "; the store's tables no longer match this schema: a newer version may have migrated it")
            default: return StrataError(.postgres, text)
            }
        }
        return StrataError(.postgres, "PostgreSQL: \(error), \(doing)")
    }
}

extension NSCondition {
    func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

extension PostgresConnection {
    /// Closes the connection without waiting, holding it until it has closed
    /// (one released while still open is a programming error to postgres-nio).
    func closeKeepingAlive() {
        let closing: EventLoopFuture<Void> = close()
        closing.whenComplete { _ in withExtendedLifetime(self) {} }
    }
}
