import Foundation
import GRDB
import Strata
import StrataSQL
import Testing
@testable import StrataPostgres

/// Everything a test's store holds, as sorted lines of text: every row of
/// every table, and for PostgreSQL its columns, indexes and constraints, so a
/// refused or failed migration can be shown to have changed nothing.
func storeContents(_ kind: StoreKind, _ url: URL) throws -> [String] {
    switch kind {
    case .postgres:
        let server = try #require(postgresServer(for: url))
        let namespace = StoredValue.text(server.schemaName)
        return try withPostgres(server) { session throws(StrataError) in
            var lines: [String] = []
            func collect(_ sql: String, _ values: [StoredValue] = [namespace]) throws(StrataError) {
                for row in try session.rows(sql, values) {
                    var cells: [String] = []
                    for cell in row { cells.append("\(try PostgresSession.value(cell))") }
                    lines.append(cells.joined(separator: " | "))
                }
            }
            try collect("""
                SELECT table_name::text, column_name::text, data_type::text, is_nullable::text FROM information_schema.columns \
                WHERE table_schema = $1
                """)
            try collect("SELECT indexname::text, indexdef FROM pg_indexes WHERE schemaname = $1")
            try collect("""
                SELECT t.relname::text, pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid \
                JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = $1
                """)
            var tables: [String] = []
            for row in try session.rows("SELECT tablename::text FROM pg_tables WHERE schemaname = $1", [namespace]) {
                for cell in row { if case .text(let name) = try PostgresSession.value(cell) { tables.append(name) } }
            }
            for table in tables {
                try collect("SELECT '\(table) ' || t::text FROM \(quote(server.schemaName)).\(quote(table)) AS t", [])
            }
            return lines.sorted()
        }
    default:
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            var result: [String] = []
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"") { result.append("\(table) \(row)") }
            }
            return result
        }
    }
}

/// What names a table's storage: SQLite's root page, PostgreSQL's table
/// identifier. It changes when a migration rebuilds the table, not when it
/// changes it in place.
func tableStorage(_ kind: StoreKind, _ url: URL, table: String) throws -> Int64 {
    switch kind {
    case .postgres:
        let server = try #require(postgresServer(for: url))
        return try withPostgres(server) { session throws(StrataError) in
            let rows = try session.rows(
                "SELECT to_regclass($1)::oid::int8", [.text("\(quote(server.schemaName)).\(quote(table))")])
            return try rows.first.flatMap { row throws(StrataError) in try row.first { _ in true }.flatMap(PostgresSession.integer) } ?? -1
        }
    default:
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { try Int64.fetchOne($0, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table]) ?? -1 }
    }
}

private func withPostgres<Result>(
    _ server: PostgresStoreDescription, _ body: (PostgresSession) throws(StrataError) -> Result
) throws -> Result {
    let pool = try PostgresConnectionPool(description: server)
    defer { pool.close() }
    return try pool.withSession(body)
}
