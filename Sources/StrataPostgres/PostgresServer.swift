import Foundation
import Logging
import PostgresNIO
import StrataCore

extension StrataError.Code {
    /// PostgreSQL refused a statement or the connection (the message says why).
    public static let postgres = StrataError.Code(rawValue: "postgres")
}

/// The PostgreSQL store's connection pool: a `PostgresClient` running for as
/// long as the server object is open. Statements await a connection without
/// blocking a thread.
///
/// ```swift
/// let server = try await PostgresServer.open(description)
/// try await server.prepareSchema()
/// await server.close()
/// ```
final class PostgresServer: Sendable {
    let description: PostgresStoreDescription
    let client: PostgresClient
    private let running: Task<Void, Never>
    static let logger = Logger(label: "strata.postgres")

    private init(description: PostgresStoreDescription, client: PostgresClient) {
        self.description = description
        self.client = client
        running = Task { await client.run() }
    }

    /// Checks that the server answers with one connection of its own (a pool
    /// would keep retrying a wrong address or credentials), then starts the pool.
    static func open(_ description: PostgresStoreDescription) async throws(StrataError) -> PostgresServer {
        try await probe(description)
        var configuration = PostgresClient.Configuration(
            host: description.host, port: description.port, username: description.username,
            password: description.password, database: description.database, tls: tls(description.tls))
        configuration.options.maximumConnections = description.maximumConnections
        configuration.options.connectTimeout = .seconds(10)
        return PostgresServer(description: description, client: PostgresClient(configuration: configuration))
    }

    /// Connects once and disconnects: the server's own refusal, at once.
    private static func probe(_ description: PostgresStoreDescription) async throws(StrataError) {
        let place = "connecting to \(description.host):\(description.port)/\(description.database) as \(description.username)"
        do {
            let tls: PostgresConnection.Configuration.TLS = switch description.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            var configuration = PostgresConnection.Configuration(
                host: description.host, port: description.port, username: description.username,
                password: description.password, database: description.database, tls: tls)
            configuration.options.connectTimeout = .seconds(10)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try await connection.close()
        } catch {
            throw translate(error, doing: place)
        }
    }

    /// Creates the store's schema (namespace) when it does not exist.
    func prepareSchema() async throws(StrataError) {
        try await execute("CREATE SCHEMA IF NOT EXISTS \(quoted(description.schemaName))")
    }

    /// Runs one statement that returns no rows.
    func execute(_ sql: String) async throws(StrataError) {
        do {
            try await client.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger)
        } catch {
            throw Self.translate(error, doing: "running \(sql.prefix(200))")
        }
    }

    /// The first column of each row a statement returns, as text.
    func strings(_ sql: String) async throws(StrataError) -> [String] {
        do {
            var values: [String] = []
            for try await value in try await client.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger).decode(String.self) {
                values.append(value)
            }
            return values
        } catch {
            throw Self.translate(error, doing: "running \(sql.prefix(200))")
        }
    }

    /// Stops the pool; its connections close.
    func close() async {
        running.cancel()
        _ = await running.value
    }

    /// An identifier in double quotes, inner quotes doubled.
    func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func tls(_ mode: PostgresStoreDescription.TLSMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
    }

    /// A typed error with PostgreSQL's own message (and SQLSTATE) when it gave
    /// one; `doing` says what was being done ("running …", "connecting to …").
    static func translate(_ error: any Error, doing: String) -> StrataError {
        if let error = error as? StrataError { return error }
        if let error = error as? PSQLError {
            let message = error.serverInfo?[.message] ?? "\(error.code)"
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return StrataError(.postgres, "PostgreSQL: \(message)\(state), \(doing)")
        }
        return StrataError(.postgres, "PostgreSQL: \(error), \(doing)")
    }
}
