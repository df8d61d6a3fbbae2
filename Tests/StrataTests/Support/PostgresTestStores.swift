import Foundation
import Strata
import Testing
@testable import StrataPostgres

/// A PostgreSQL store of `schema` at a test's location, made afresh, filled
/// by `fill` and closed again; returns the server's description of it.
///
/// ```swift
/// let server = try await freshPostgresStore(at: url, schema: Schema(versionedSchema: NotesV1.self)) { context in
///     context.insert(NotesV1.Note(title: "a", body: "b"))
/// }
/// ```
func freshPostgresStore(
    at url: URL, schema: Schema, fill: (ManagedObjectContext) throws -> Void
) async throws -> PostgresStoreDescription {
    let server = try #require(postgresServer(for: url))
    try? server.destroyStore()
    let container = try PersistentContainer(name: "Store", schema: schema)
    container.storeDescriptions = [.postgres(server)]
    try await container.loadPersistentStores()
    try container.perform { context in
        try fill(context)
        try context.save()
    }
    try container.persistentStoreCoordinator.close()
    return server
}

/// One line per foreign key of a store's namespace, sorted: `line` is an SQL
/// text expression over the key `c`, its table `t`, the table it points at
/// `r`, and its (first) column `a`.
func postgresForeignKeys(of server: PostgresStoreDescription, in pool: PostgresConnectionPool, line: String) throws -> [String] {
    try pool.withSession { session throws(StrataError) in
        try session.rows("""
            SELECT \(line) FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid \
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] \
            WHERE c.contype = 'f' AND t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) ORDER BY 1
            """, [.text(server.schemaName)]).map { row throws(StrataError) in
            if case .text(let text) = try PostgresSession.value(Array(row)[0]) { text } else { "" }
        }
    }
}
