import Foundation
import StrataCore
import StrataSQL

/// Where a PostgreSQL store lives and how to reach it: the server, the
/// database, the credentials, TLS, how many connections to pool, and the
/// schema (namespace) that holds the store's tables, so that several
/// containers can share one database.
///
/// ```swift
/// var description = try PostgresStoreDescription(url: "postgres://app:secret@db.internal:5432/library?schema=books")
/// description.maximumConnections = 16
/// description.tls = .require
/// ```
public struct PostgresStoreDescription: Sendable, Hashable {
    /// How the connection uses TLS.
    public enum TLSMode: String, Sendable, Hashable {
        /// Plain connections (loopback, a private network).
        case disable
        /// TLS when the server offers it.
        case prefer
        /// TLS or no connection.
        case require
    }

    public var host: String
    public var port: Int
    public var database: String
    public var username: String
    public var password: String?
    public var tls: TLSMode
    /// The most connections the store's pool opens at once.
    public var maximumConnections: Int
    /// The PostgreSQL schema the store's tables live in; created when missing.
    public var schemaName: String
    /// How long a migration waits for a lock on one of the store's tables
    /// (held by another server's read, say) before it gives way: it rolls
    /// back, having changed nothing, and tries again. Queries that arrive
    /// meanwhile wait behind it no longer than this.
    public var migrationLockTimeout: Duration = .seconds(5)
    /// How many times a migration tries before it fails with `.migrationFailed`.
    public var migrationAttempts: Int = 5
    /// How often the connection that listens for other servers' commits is
    /// asked for an answer. One that gives none within this time is closed, and
    /// the store listens again on a new one and catches up from its last
    /// history token: a network failure can leave a connection open with no
    /// server behind it, which would otherwise hear nothing more, and say nothing.
    /// Intervals under 100 ms count as 100 ms.
    public var listenerCheckInterval: Duration = .seconds(15)
    /// How long one statement may run. The server cancels a statement that
    /// runs longer (waiting for a lock counts), which rolls back what it did,
    /// and the call fails with `.postgres`. A server that gives no answer at
    /// all, stopped or cut off by the network, is given up on a second later:
    /// the connection is closed and the next call opens a new one. Opening and
    /// migrating a store are not limited. Nil or zero: no limit; at most
    /// 24 days (PostgreSQL's own limit) count.
    public var queryTimeout: Duration? = .seconds(60)

    public init(
        host: String, port: Int = 5432, database: String, username: String, password: String? = nil,
        tls: TLSMode = .prefer, maximumConnections: Int = 8, schemaName: String = "public"
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
        self.tls = tls
        self.maximumConnections = maximumConnections
        self.schemaName = schemaName
    }

    /// A description from a connection URL:
    /// `postgres://user[:password]@host[:port]/database[?schema=name&sslmode=disable|prefer|require&pool=n]`,
    /// also `migration_lock_timeout=5s` (or `500ms`), `migration_attempts=n`,
    /// `listener_check=15s` and `query_timeout=60s` (or `none`)
    /// (`postgresql://` too; user and password percent-encoded). Anything it
    /// cannot read fails with `.invalidStoreLocation`, naming the part.
    public init(url text: String) throws(StrataError) {
        func refuse(_ reason: String) -> StrataError {
            StrataError(.invalidStoreLocation, "The PostgreSQL URL \(Self.redacted(text)) \(reason)")
        }
        guard let components = URLComponents(string: text) else { throw refuse("is not a URL") }
        guard components.scheme == "postgres" || components.scheme == "postgresql" else {
            throw refuse("does not start with postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else { throw refuse("names no host") }
        guard let user = components.user, !user.isEmpty else { throw refuse("names no user") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw refuse("names no database (…/database)") }
        self.init(
            host: host, port: components.port ?? 5432, database: database,
            username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 })
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "schema":
                guard Self.isValidSchemaName(value) else { throw refuse("has a schema name PostgreSQL would not keep as given: \(value)") }
                schemaName = value
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else { throw refuse("has sslmode \(value); use disable, prefer or require") }
                tls = mode
            case "pool":
                guard let size = Int(value), size > 0 else { throw refuse("has pool \(value); use a positive number") }
                maximumConnections = size
            case "migration_lock_timeout":
                guard let timeout = Self.duration(value) else {
                    throw refuse("has migration_lock_timeout \(value); use milliseconds or seconds, as 500ms or 5s")
                }
                migrationLockTimeout = timeout
            case "migration_attempts":
                guard let attempts = Int(value), attempts > 0 else {
                    throw refuse("has migration_attempts \(value); use a positive number")
                }
                migrationAttempts = attempts
            case "query_timeout":
                if value == "none" {
                    queryTimeout = nil
                } else {
                    guard let timeout = Self.duration(value) else {
                        throw refuse("has query_timeout \(value); use milliseconds or seconds, as 500ms or 60s, or none")
                    }
                    queryTimeout = timeout
                }
            case "listener_check":
                guard let interval = Self.duration(value) else {
                    throw refuse("has listener_check \(value); use milliseconds or seconds, as 500ms or 15s")
                }
                listenerCheckInterval = interval
            default:
                throw refuse("has an option Strata does not know: \(item.name)")
            }
        }
    }

    /// `queryTimeout` as the store applies it: positive, at most `Int32.max` milliseconds.
    var queryLimit: Duration? {
        guard let queryTimeout, queryTimeout > .zero else { return nil }
        return min(queryTimeout, .milliseconds(Int64(Int32.max)))
    }

    /// A positive duration written as `500ms` or `5s`.
    private static func duration(_ text: String) -> Duration? {
        let milliseconds: Int64?
        if text.hasSuffix("ms") {
            milliseconds = Int64(text.dropLast(2))
        } else if text.hasSuffix("s"), let seconds = Int64(text.dropLast()), seconds <= Int64.max / 1000 {
            milliseconds = seconds * 1000
        } else {
            milliseconds = nil
        }
        guard let milliseconds, milliseconds > 0 else { return nil }
        return .milliseconds(milliseconds)
    }

    /// A schema name that needs no quoting rules beyond double quotes:
    /// letters, digits and underscores, not starting with a digit or `pg_`,
    /// at most 63 bytes (PostgreSQL's limit, beyond which it truncates).
    static func isValidSchemaName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 63, !name.hasPrefix("pg_") else { return false }
        guard first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    /// The URL with its password hidden, for messages.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "•••"
        return components.string ?? text
    }
}

extension PostgresStoreDescription {
    /// Deletes the store this description names: its schema (namespace) and
    /// every table in it. Nothing else in the database is touched.
    ///
    /// ```swift
    /// try PostgresStoreDescription(url: "postgres://app@db/app?schema=scratch").destroyStore()
    /// ```
    public func destroyStore() throws(StrataError) {
        let pool = try PostgresConnectionPool(description: self)
        defer { pool.close() }
        _ = try pool.withSession { session throws(StrataError) in
            try session.execute("DROP SCHEMA IF EXISTS \(quote(schemaName)) CASCADE")
        }
    }
}


extension PostgresStoreDescription {
    /// The store in OpenTelemetry's terms: `postgresql`, `database|schema`
    /// as its namespace, and the server.
    var identity: DatabaseIdentity {
        DatabaseIdentity(system: "postgresql", namespace: "\(database)|\(schemaName)", serverAddress: host, serverPort: port)
    }

    /// How logs name the store (`strata.store`).
    var storeName: String { "\(host):\(port)/\(database)?schema=\(schemaName)" }
}
