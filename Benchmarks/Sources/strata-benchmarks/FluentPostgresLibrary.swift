import FluentPostgresDriver

/// Fluent 4 with fluent-postgres-driver on the benchmark's PostgreSQL server:
/// one connection per event loop, as in a Vapor app, on the same table
/// `pg-raw` creates (the schema is the connection's search path).
final class FluentPostgresLibrary: FluentBenchLibrary, @unchecked Sendable {
    // @unchecked: the runner uses a library from one task at a time.
    static let name = "fluent-pg"
    private let databases: Databases
    let db: any Database
    var held: [FluentItem] = []

    private init(path: String) throws {
        let group = MultiThreadedEventLoopGroup.singleton
        databases = Databases(threadPool: NIOThreadPool.singleton, on: group)
        let server = try BenchPostgres.description(for: path)
        let configuration = SQLPostgresConfiguration(
            coreConfiguration: PostgresConnection.Configuration(
                host: server.host, port: server.port, username: server.username, password: server.password,
                database: server.database, tls: .disable),
            searchPath: [BenchPostgres.schemaName(for: path)])
        databases.use(.postgres(configuration: configuration, encodingContext: .default, decodingContext: .default), as: .psql)
        var logger = Logger(label: "fluent-pg")
        logger.logLevel = .warning
        guard let db = databases.database(logger: logger, on: group.any()) else {
            throw RawError(message: "Fluent has no database")
        }
        self.db = db
    }

    static func create(at path: String, rows: [ItemRow]) async throws {
        try await PostgresRawLibrary.create(at: path, rows: rows)
    }

    static func open(at path: String) async throws -> FluentPostgresLibrary {
        try FluentPostgresLibrary(path: path)
    }

    func close() async throws {
        held = []
        await databases.shutdownAsync()
    }
}
