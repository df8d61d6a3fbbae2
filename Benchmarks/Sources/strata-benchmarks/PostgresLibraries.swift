import Foundation
import Logging
import PostgresNIO
import StrataCore
import StrataSQLite
import StrataPostgres

/// The PostgreSQL server of the PostgreSQL libraries: `STRATA_BENCH_POSTGRES`
/// (a URL). Each case's database path maps to a schema of its own.
enum BenchPostgres {
    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["STRATA_BENCH_POSTGRES"] else {
            throw RawError(message: "set STRATA_BENCH_POSTGRES=postgres://user@host:port/database for the PostgreSQL libraries")
        }
        return url
    }

    /// The schema a case's path maps to.
    static func schemaName(for path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "bench_" + String(hash, radix: 16)
    }

    /// Drops the schema of a case's path (a synchronous, untyped wrapper).
    static func destroy(_ path: String) throws {
        let description = try description(for: path)
        do {
            try description.destroyStore()
        } catch {
            throw RawError(message: "\(error)")
        }
    }

    static func description(for path: String) throws -> PostgresStoreDescription {
        var description: PostgresStoreDescription
        do {
            description = try PostgresStoreDescription(url: try url())
        } catch {
            throw RawError(message: "\(error)")
        }
        description.schemaName = schemaName(for: path)
        description.tls = .disable
        return description
    }
}

/// Strata on the PostgreSQL store, the same code as ``StrataLibrary`` otherwise.
final class StrataPostgresLibrary: StrataLibrary {
    override class var name: String { "strata-pg" }

    override class func load(at path: String) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Bench", schema: schema)
        container.storeDescriptions = [.postgres(try BenchPostgres.description(for: path))]
        try await container.loadPersistentStores()
        return container
    }

    override class func create(at path: String, rows: [ItemRow]) async throws {
        try BenchPostgres.destroy(path)
        let container = try await load(at: path)
        try insert(rows, into: container)
        try container.persistentStoreCoordinator.close()
    }
}

/// The limit on PostgreSQL: postgres-nio with hand-written SQL on one
/// connection, whole sets of rows per statement (`unnest` of arrays), rows
/// decoded by position into plain structs.
final class PostgresRawLibrary: BenchLibrary {
    static let name = "pg-raw"
    private let connection: PostgresConnection
    private let path: String
    private let table: String
    private var held: [ItemRow] = []
    private static let logger = Logger(label: "bench.postgres")
    private static let columns = "id, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, score, name"

    private init(connection: PostgresConnection, path: String) {
        self.connection = connection
        self.path = path
        table = "\"\(BenchPostgres.schemaName(for: path))\".item"
    }

    static func connect(_ path: String) async throws -> PostgresConnection {
        try await PostgresConnection.connect(configuration: configuration(path), id: 1, logger: logger)
    }

    private static func configuration(_ path: String) throws -> PostgresConnection.Configuration {
        let description = try BenchPostgres.description(for: path)
        return PostgresConnection.Configuration(
            host: description.host, port: description.port, username: description.username, password: description.password,
            database: description.database, tls: .disable)
    }

    /// Connects and makes the path's schema anew, empty; returns both.
    static func connectToFreshSchema(_ path: String) async throws -> (PostgresConnection, schema: String) {
        let connection = try await connect(path)
        let schema = "\"\(BenchPostgres.schemaName(for: path))\""
        try await connection.query("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE", logger: logger)
        try await connection.query("CREATE SCHEMA \(unescaped: schema)", logger: logger)
        return (connection, schema)
    }

    static func create(at path: String, rows: [ItemRow]) async throws {
        let (connection, schema) = try await connectToFreshSchema(path)
        try await connection.query("""
            CREATE TABLE \(unescaped: schema).item (id BIGINT PRIMARY KEY, i0 BIGINT NOT NULL, i1 BIGINT NOT NULL,
            i2 BIGINT NOT NULL, i3 BIGINT NOT NULL, i4 BIGINT NOT NULL, i5 BIGINT NOT NULL, i6 BIGINT NOT NULL,
            i7 BIGINT NOT NULL, i8 BIGINT NOT NULL, i9 BIGINT NOT NULL, score DOUBLE PRECISION NOT NULL, name TEXT NOT NULL)
            """, logger: logger)
        try await connection.query("CREATE INDEX item_score ON \(unescaped: schema).item(score)", logger: logger)
        let library = PostgresRawLibrary(connection: connection, path: path)
        try await library.insert(rows)
        try await connection.close()
    }

    static func open(at path: String) async throws -> PostgresRawLibrary {
        PostgresRawLibrary(connection: try await connect(path), path: path)
    }

    func close() async throws {
        held = []
        try await connection.close()
    }

    /// The batch case's steps: ``insert(_:)`` into an empty table, then
    /// `UPDATE … SET i1 = $1` and `DELETE FROM …`, each one statement.
    static func batchSteps(_ rows: [ItemRow], at path: String) async throws -> [Double] {
        try await create(at: path, rows: [])
        let library = try await open(at: path)
        let inserted = try await measure { try await library.insert(rows) }
        let updated = try await measure {
            try await library.connection.query("UPDATE \(unescaped: library.table) SET i1 = \(7)", logger: logger)
        }
        let deleted = try await measure { try await library.connection.query("DELETE FROM \(unescaped: library.table)", logger: logger) }
        try await library.close()
        try BenchPostgres.destroy(path)
        return [inserted.milliseconds, updated.milliseconds, deleted.milliseconds]
    }

    /// One `INSERT … SELECT FROM unnest(…)` per 10,000 rows, in one transaction.
    func insert(_ rows: [ItemRow]) async throws {
        try await connection.query("BEGIN", logger: Self.logger)
        for start in stride(from: 0, to: rows.count, by: 10_000) {
            let chunk = rows[start..<min(start + 10_000, rows.count)]
            func ints(_ key: KeyPath<ItemRow, Int>) -> [Int64] { chunk.map { Int64($0[keyPath: key]) } }
            try await connection.query("""
                INSERT INTO \(unescaped: table) (\(unescaped: Self.columns)) SELECT * FROM unnest(\(chunk.map(\.id)),
                \(ints(\.i0)), \(ints(\.i1)), \(ints(\.i2)), \(ints(\.i3)), \(ints(\.i4)), \(ints(\.i5)), \(ints(\.i6)),
                \(ints(\.i7)), \(ints(\.i8)), \(ints(\.i9)), \(chunk.map(\.score)), \(chunk.map(\.name)))
                """, logger: Self.logger)
        }
        try await connection.query("COMMIT", logger: Self.logger)
    }

    private func fetch(_ query: PostgresQuery) async throws -> [ItemRow] {
        var rows: [ItemRow] = []
        let sequence = try await connection.query(query, logger: Self.logger)
        for try await (id, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, score, name) in sequence.decode(
            (Int64, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Double, String).self) {
            var row = ItemRow(seq: 1)
            row.id = id
            (row.i0, row.i1, row.i2, row.i3, row.i4, row.i5, row.i6, row.i7, row.i8, row.i9) = (i0, i1, i2, i3, i4, i5, i6, i7, i8, i9)
            row.score = score
            row.name = name
            rows.append(row)
        }
        return rows
    }

    /// The sum of `i1` over the rows with `score >= minimum` (case 12).
    func sum(minimumScore: Double) async throws -> Int {
        var total = 0
        let rows = try await connection.query(
            "SELECT SUM(i1)::bigint FROM \(unescaped: table) WHERE score >= \(minimumScore)", logger: Self.logger)
        for try await value in rows.decode(Int?.self) { total = value ?? 0 }
        return total
    }

    /// The rows with `score >= minimum` counted per `i1` (case 16).
    func groupCounts(minimumScore: Double) async throws -> [(Int, Int)] {
        var groups: [(Int, Int)] = []
        let rows = try await connection.query(
            "SELECT i1, COUNT(*) FROM \(unescaped: table) WHERE score >= \(minimumScore) GROUP BY i1 ORDER BY i1",
            logger: Self.logger)
        for try await (key, count) in rows.decode((Int, Int).self) { groups.append((key, count)) }
        return groups
    }

    func fetchAll() async throws -> Int {
        try await fetch("SELECT \(unescaped: Self.columns) FROM \(unescaped: table)").reduce(0) { $0 &+ $1.checksum }
    }

    func query(minimumScore: Double, limit: Int) async throws -> Int {
        try await fetch("SELECT \(unescaped: Self.columns) FROM \(unescaped: table) WHERE score >= \(minimumScore) ORDER BY score LIMIT \(limit)")
            .reduce(0) { $0 &+ $1.checksum }
    }

    func hold(limit: Int?) async throws {
        held = try await fetch(
            "SELECT \(unescaped: Self.columns) FROM \(unescaped: table) ORDER BY id LIMIT \(limit.map(Int64.init) ?? Int64.max)")
    }

    func updateHeld() async throws {
        for index in held.indices { held[index].i1 += 1 }
        try await connection.query("""
            UPDATE \(unescaped: table) AS t SET i1 = v.i1 FROM unnest(\(held.map(\.id)), \(held.map { Int64($0.i1) })) AS v(id, i1)
            WHERE t.id = v.id
            """, logger: Self.logger)
    }

    func deleteHeld() async throws {
        try await connection.query("DELETE FROM \(unescaped: table) WHERE id = ANY(\(held.map(\.id)))", logger: Self.logger)
        held = []
    }

    func saveOneChange(_ index: Int) async throws {
        held[index].i1 += 1
        try await connection.query("UPDATE \(unescaped: table) SET i1 = \(held[index].i1) WHERE id = \(held[index].id)", logger: Self.logger)
    }

    /// Another connection updates the held rows; this one re-reads them.
    func saveElsewhereUntilVisible() async throws -> Duration {
        let writer = try await Self.connect(path)
        let expected = held.map { Int64($0.i2 + 1) }
        let elapsed = try await measure {
            try await writer.query("""
                UPDATE \(unescaped: table) AS t SET i2 = v.i2 FROM unnest(\(held.map(\.id)), \(expected)) AS v(id, i2)
                WHERE t.id = v.id
                """, logger: Self.logger)
            held = try await fetch("""
                SELECT \(unescaped: Self.columns) FROM \(unescaped: table)
                WHERE id BETWEEN \(held.first?.id ?? 0) AND \(held.last?.id ?? 0) ORDER BY id
                """)
        }
        try await writer.close()
        guard held.map({ Int64($0.i2) }) == expected else { throw RawError(message: "the re-read does not show the save") }
        return elapsed
    }

    func streamAll(batchSize: Int) async throws -> Int {
        try await fetchAll()
    }

    func importInUnits(total: Int, unit: Int) async throws {
        var next = 1
        while next <= total {
            let count = min(unit, total - next + 1)
            try await insert(ItemRow.make(count, startingAt: next))
            next += count
        }
    }
}
