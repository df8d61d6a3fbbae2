import Foundation
import Logging
import PostgresNIO
import StrataCore
import StrataSQLite
import StrataPostgres

// Case 11 on PostgreSQL, migrate-pg (PostgreSQL only): a store of readings
// moves to version 2 of its schema. `migrate-pg` widens `Reading.i1` and
// `Attachment.size` to `Double`; `migrate-pg-in-place` renames `body` to
// `text` and adds `priority = 3` and the caption. pg-raw runs the same
// changes as hand-written `ALTER TABLE`s in one transaction on an open
// connection; strata-pg's time is the load of a version-2 container, which
// connects, takes the namespace's lock, checks the stored schema, migrates
// and records the new one. Each run starts from a fresh version-1 store.

extension Runner {
    func migratePostgres() async throws {
        let readings = workload.rows
        for library in libraries where library == PostgresRawLibrary.self || library == StrataPostgresLibrary.self {
            for inPlace in [false, true] {
                var runs: [[Double]] = []
                for run in 0...workload.runs {
                    let path = "migrate-pg-\(library.name)-\(inPlace)-\(run)"
                    try BenchPostgres.destroy(path)
                    let elapsed = library == PostgresRawLibrary.self
                        ? try await PostgresRawLibrary.migrate(path, readings: readings, inPlace: inPlace)
                        : try await StrataPostgresLibrary.migrate(path, readings: readings, inPlace: inPlace)
                    try BenchPostgres.destroy(path)
                    if run > 0 { runs.append([elapsed.milliseconds]) }
                }
                record(.migratePostgres, library: library, runs: runs, name: inPlace ? "migrate-pg-in-place" : "migrate-pg",
                       note: "\(readings) rows; each run migrates a fresh version-1 store")
            }
        }
    }
}

extension StrataPostgresLibrary {
    static func migrate(_ path: String, readings: Int, inPlace: Bool) async throws -> Duration {
        let description = StoreDescription.postgres(try BenchPostgres.description(for: path))
        let v1 = try PersistentContainer(name: "Migrate", schema: Schema(versionedSchema: MigrateV1.self))
        v1.storeDescriptions = [description]
        try await v1.loadPersistentStores()
        var next = 0
        try v1.execute(BatchInsertRequest<MigrateV1.Reading> { row in
            guard next < readings else { return true }
            next += 1
            row[\.i0] = next; row[\.i1] = next % 1_000
            row[\.score] = Double(next &* 7_919 % 100_003) / 100.003
            row[\.body] = "reading \(next)"
            return false
        })
        try v1.persistentStoreCoordinator.close()

        let v2 = try PersistentContainer(
            name: "Migrate", schema: Schema(versionedSchema: inPlace ? MigrateV2.self : MigrateV2Copy.self),
            migrationPlan: inPlace ? MigratePlan.self : MigrateCopyPlan.self)
        v2.storeDescriptions = [description]
        let elapsed = try await measure { try await v2.loadPersistentStores() }
        let context = v2.newContext()
        let migrated = inPlace
            ? try context.count(for: FetchRequest<MigrateV2.Reading>(predicate: #Predicate { $0.priority == 3 }))
            : try context.count(for: FetchRequest<MigrateV2Copy.Reading>(predicate: #Predicate { $0.i1 >= 0.0 }))
        try v2.persistentStoreCoordinator.close()
        guard migrated == readings else { throw RawError(message: "the migrated store holds \(migrated) migrated readings, not \(readings)") }
        return elapsed
    }
}

extension PostgresRawLibrary {
    static func migrate(_ path: String, readings: Int, inPlace: Bool) async throws -> Duration {
        let logger = Logger(label: "bench.migrate")
        let connection = try await connect(path)
        let schema = "\"\(BenchPostgres.schemaName(for: path))\""
        try await connection.query("CREATE SCHEMA \(unescaped: schema)", logger: logger)
        try await connection.query("""
            CREATE TABLE \(unescaped: schema).attachment (id BIGINT PRIMARY KEY, name TEXT NOT NULL, payload BYTEA NOT NULL,
            size BIGINT NOT NULL)
            """, logger: logger)
        try await connection.query("""
            CREATE TABLE \(unescaped: schema).reading (id BIGINT PRIMARY KEY, i0 BIGINT NOT NULL, i1 BIGINT NOT NULL,
            score DOUBLE PRECISION NOT NULL, body TEXT NOT NULL)
            """, logger: logger)
        try await connection.query("CREATE INDEX reading_score ON \(unescaped: schema).reading(score)", logger: logger)
        let keys = (1...max(readings, 1)).map(Int64.init)
        try await connection.query("""
            INSERT INTO \(unescaped: schema).reading (id, i0, i1, score, body) SELECT * FROM unnest(\(keys), \(keys),
            \(keys.map { $0 % 1_000 }), \(keys.map { Double($0 &* 7_919 % 100_003) / 100.003 }), \(keys.map { "reading \($0)" }))
            """, logger: logger)
        let statements = inPlace
            ? [
                "ALTER TABLE \(schema).attachment ADD COLUMN caption TEXT",
                "ALTER TABLE \(schema).reading RENAME COLUMN body TO text",
                "ALTER TABLE \(schema).reading ADD COLUMN priority BIGINT NOT NULL DEFAULT 3",
            ]
            : [
                "ALTER TABLE \(schema).attachment ALTER COLUMN size TYPE DOUBLE PRECISION USING size::double precision",
                "ALTER TABLE \(schema).reading ALTER COLUMN i1 TYPE DOUBLE PRECISION USING i1::double precision",
            ]
        let elapsed = try await measure {
            try await connection.query("BEGIN", logger: logger)
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            try await connection.query("COMMIT", logger: logger)
        }
        try await connection.close()
        return elapsed
    }
}
