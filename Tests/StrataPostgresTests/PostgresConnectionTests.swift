import Foundation
import Strata
@testable import StrataPostgres
import Testing

/// Connection URLs: every part read, anything unreadable refused with a reason.
@Suite("PostgreSQL store descriptions")
struct PostgresStoreDescriptionTests {
    @Test
    func aURLGivesEveryPart() throws {
        let description = try PostgresStoreDescription(
            url: "postgresql://app%40web:s%3Acret@db.internal:6543/library?schema=books&sslmode=require&pool=16")
        #expect(description.host == "db.internal")
        #expect(description.port == 6543)
        #expect(description.database == "library")
        #expect(description.username == "app@web")
        #expect(description.password == "s:cret")
        #expect(description.schemaName == "books")
        #expect(description.tls == .require)
        #expect(description.maximumConnections == 16)

        let plain = try PostgresStoreDescription(url: "postgres://strata@localhost/strata")
        #expect(plain.port == 5432 && plain.password == nil && plain.schemaName == "public" && plain.tls == .prefer)
    }

    @Test(arguments: [
        ("mysql://u@h/d", "does not start with postgres://"),
        ("postgres://h/d", "names no user"),
        ("postgres://u@h", "names no database"),
        ("postgres://u:secret@h/d?schema=pg_catalog", "schema name"),
        ("postgres://u@h/d?schema=two%20words", "schema name"),
        ("postgres://u@h/d?sslmode=verify", "sslmode"),
        ("postgres://u@h/d?pool=0", "pool"),
        ("postgres://u@h/d?timeout=5", "does not know: timeout"),
    ])
    func anUnreadableURLIsRefusedWithTheReason(_ url: String, _ reason: String) {
        let error = #expect(throws: StrataError.self) { try PostgresStoreDescription(url: url) }
        #expect(error?.code == .invalidStoreLocation)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("secret") == false)
    }
}

/// The pool reaches a real server and prepares the store's namespace.
@Suite("PostgreSQL connections", .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresConnectionTests {
    @Test
    func theStoresSchemaIsCreatedOnceAndSharedByName() async throws {
        let description = try PostgresTestServer.description()
        let server = try await PostgresServer.open(description)
        try await server.prepareSchema()
        try await server.prepareSchema()
        let schemas = try await server.strings(
            "SELECT nspname::text FROM pg_namespace WHERE nspname = '\(description.schemaName)'")
        #expect(schemas == [description.schemaName])
        try await server.execute("DROP SCHEMA \(server.quoted(description.schemaName)) CASCADE")
        await server.close()
    }

    @Test
    func aServerThatRefusesFailsWithPostgresReason() async throws {
        var description = try PostgresTestServer.description()
        description.database = "no_such_database_\(UUID().uuidString.prefix(6).lowercased())"
        let error = await #expect(throws: StrataError.self) { try await PostgresServer.open(description) }
        #expect(error?.code == .postgres)
        #expect(error?.message.contains("does not exist") == true, "\(error?.message ?? "")")
    }
}
