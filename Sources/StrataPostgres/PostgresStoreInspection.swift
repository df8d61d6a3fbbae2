import Foundation
import PostgresNIO
import StrataCore

/// A PostgreSQL store read under the schema it records, for the tools that
/// read a store without the app's models (`strata inspect`, `fetch`,
/// `history`, `check`, `export` and `schema` given a URL). Everything it reads
/// comes from one read-only transaction at repeatable read, so an export of a
/// store in use is one snapshot; it takes no lock, makes nothing and starts no
/// listener.
///
/// ```swift
/// let report = try PostgresStoreInspection.reading(url: "postgres://app@db/app?schema=library") { inspection in
///     try StoreReport(store: inspection.store, name: inspection.name, sizeInBytes: try inspection.sizeInBytes(),
///                     formatVersion: inspection.formatVersion, history: try inspection.history())
/// }
/// ```
package final class PostgresStoreInspection {
    /// The store, under its recorded schema.
    package let store: any PersistentStore
    /// How the tools name it: `host:port/database?schema=name`.
    package let name: String
    /// The version of the store's table layout.
    package let formatVersion: Int
    private let postgres: PostgresStore

    private init(postgres: PostgresStore, name: String, formatVersion: Int) {
        self.postgres = postgres
        store = postgres
        self.name = name
        self.formatVersion = formatVersion
    }

    /// Runs `body` on the store at `url`, inside one read-only transaction.
    package static func reading<Result>(
        url: String, _ body: (PostgresStoreInspection) throws(StrataError) -> Result
    ) throws(StrataError) -> Result {
        let description = try PostgresStoreDescription(url: url)
        // What the namespace records, read before the store is made under it.
        let probe = PostgresLayout(schema: Schema(recorded: SchemaSummary.empty, assumedDefault: nil), namespace: description.schemaName)
        let pool = try PostgresConnectionPool(description: description)
        defer { pool.close() }
        return try pool.withSession { session throws(StrataError) in
            try session.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            // Nothing was written: ending the transaction either way is the same.
            defer { _ = try? session.execute("ROLLBACK") }
            let present = try session.rows("SELECT (to_regclass($1) IS NOT NULL)::int4", [.text(probe.metadataTable)])
            guard let cell = present.first.flatMap({ Array($0).first }), try PostgresSession.integer(cell) == 1 else {
                throw StrataError(
                    .invalidStoreLocation,
                    "\(description.storeName) holds no Strata store: the schema \(description.schemaName) has no Strata metadata")
            }
            let metadata = try PostgresStore.metadata(probe, in: session)
            guard let json = metadata["schema"], let fingerprint = metadata["fingerprint"],
                  let identifier = metadata["storeIdentifier"],
                  let summary = try? JSONDecoder().decode(SchemaSummary.self, from: Data(json.utf8)) else {
                throw StrataError(
                    .incompatibleStore,
                    "\(description.storeName) was made by an earlier version of Strata that did not record its schema; open it once with its app")
            }
            let formatVersion = Int(metadata["formatVersion"] ?? "") ?? 0
            guard formatVersion == PostgresStore.formatVersion else {
                throw StrataError(
                    .incompatibleStore,
                    "\(description.storeName) has layout version \(formatVersion); this version of Strata reads version \(PostgresStore.formatVersion)")
            }
            // Every Strata store in PostgreSQL has history tables, empty when tracking was never on.
            let postgres = try PostgresStore(
                migrating: session, description: description, schema: Schema(recorded: summary, assumedDefault: nil),
                identifier: identifier, fingerprint: fingerprint, options: StoreOptions(historyTracking: true),
                logger: session.logger, telemetry: session.telemetry)
            return try body(PostgresStoreInspection(postgres: postgres, name: description.storeName, formatVersion: formatVersion))
        }
    }

    /// How many transactions the history holds, and the newest one's token.
    package func history() throws(StrataError) -> StoreReport.History {
        try postgres.pool.withSession { session throws(StrataError) in
            let rows = try session.rows("SELECT count(*)::int8, max(id)::int8 FROM \(postgres.layout.transactionTable)")
            let cells = rows.first.map(Array.init) ?? []
            guard cells.count == 2 else { return StoreReport.History(transactionCount: 0, latestToken: nil) }
            return StoreReport.History(
                transactionCount: Int(try PostgresSession.integer(cells[0]) ?? 0), latestToken: try PostgresSession.integer(cells[1]))
        }
    }

    /// The bytes its tables and their indexes take on the server.
    package func sizeInBytes() throws(StrataError) -> Int64 {
        try postgres.pool.withSession { session throws(StrataError) in
            let rows = try session.rows("""
                SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::int8 FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'
                """, [.text(postgres.layout.namespace)])
            return try Self.integer(rows) ?? 0
        }
    }

    /// The highest key each entity has given, deleted rows' included.
    package func sequences() throws(StrataError) -> [String: Int64] {
        try postgres.pool.withSession { session throws(StrataError) in
            var sequences: [String: Int64] = [:]
            for row in try session.rows("SELECT entity, max_pk FROM \(postgres.layout.sequenceTable)") {
                let cells = Array(row)
                if case .text(let entity) = try PostgresSession.value(cells[0]), let key = try PostgresSession.integer(cells[1]) {
                    sequences[entity] = key
                }
            }
            return sequences
        }
    }

    /// What is wrong with the store, if anything: opening it already checked
    /// its tables against the schema it records; this looks for rows whose
    /// version is not positive, constraints the server has not validated, and
    /// history changes without their transaction. The server keeps its own
    /// pages consistent, so there is no page check to run.
    package func problems() throws(StrataError) -> [String] {
        let layout = postgres.layout
        return try postgres.pool.withSession { session throws(StrataError) in
            var problems: [String] = []
            for (entity, table) in zip(postgres.schema.entities, layout.entities) {
                let count = try Self.integer(session.rows(
                    "SELECT count(*)::int8 FROM \(table.table) WHERE \(StorageNaming.versionColumn) < 1"))
                if let count, count > 0 {
                    problems.append("\(entity.name) has \(count) rows whose version is not positive")
                }
            }
            for row in try session.rows("""
                SELECT c.conname, t.relname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
                JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = $1 AND NOT c.convalidated
                """, [.text(layout.namespace)]) {
                let cells = Array(row)
                if case .text(let constraint) = try PostgresSession.value(cells[0]), case .text(let table) = try PostgresSession.value(cells[1]) {
                    problems.append("the constraint \(constraint) on \(table) was never validated: rows may break it")
                }
            }
            if postgres.options.historyTracking {
                let orphans = try Self.integer(session.rows("""
                    SELECT count(*)::int8 FROM \(layout.changeTable) AS c
                    WHERE NOT EXISTS (SELECT 1 FROM \(layout.transactionTable) AS t WHERE t.id = c.transaction_id)
                    """))
                if let count = orphans, count > 0 {
                    problems.append("history has \(count) changes that belong to no transaction")
                }
            }
            return problems
        }
    }

    /// The first column of the first row, as an integer.
    private static func integer(_ rows: [PostgresRow]) throws(StrataError) -> Int64? {
        guard let row = rows.first, let cell = Array(row).first else { return nil }
        return try PostgresSession.integer(cell)
    }

}
