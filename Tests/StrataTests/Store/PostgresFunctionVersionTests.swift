import Foundation
import Strata
import Testing
@testable import StrataPostgres

/// Servers of several versions of Strata share one store: each calls the
/// functions of its own version, which another version does not replace.
@Suite(.enabled(if: persistentStoreKinds.contains(.postgres), "needs a PostgreSQL server: set STRATA_POSTGRES_URL"))
struct PostgresFunctionVersionTests {
    @Model final class Reading {
        var value: Int?
        init(value: Int?) { self.value = value }
    }

    private func store(_ name: String, readOnly: Bool = false) async throws -> (PersistentContainer, PostgresStoreDescription) {
        let server = try #require(postgresServer(for: URL(fileURLWithPath: "/functions/\(name)")))
        let container = try PersistentContainer(name: "Readings", schema: Schema(Reading.self))
        var description = StoreDescription.postgres(server)
        description.isReadOnly = readOnly
        container.storeDescriptions = [description]
        try await container.loadPersistentStores()
        return (container, server)
    }

    @Test func anotherVersionsFunctionsDoNotChangeThisOnes() async throws {
        let (container, server) = try await store("other-version")
        defer { try? server.destroyStore() }
        // Another version's server defines its functions, with other bodies, in the same schema.
        let pool = try PostgresConnectionPool(description: server)
        defer { pool.close() }
        try pool.withTransaction { session throws(StrataError) in
            for statement in PostgresFunctions.createStatements(namespace: server.schemaName, version: "0000000000000000") {
                try session.execute(statement.replacingOccurrences(of: "PERFORM pg_advisory_xact_lock(lock_key);", with: "RAISE EXCEPTION 'not mine';"))
            }
        }
        try container.perform { context in
            context.insert(Reading(value: 3))
            context.insert(Reading(value: nil))
            try context.save()
            let doubled = try context.fetch(FetchRequest<Reading>(predicate: #Predicate { ($0.value ?? 0) * 2 == 6 }))
            #expect(doubled.map(\.value) == [3])
        }
    }

    @Test func aReadOnlyOpeningOfAStoreWithoutThisVersionsFunctionsSaysSo() async throws {
        let (writer, server) = try await store("read-only")
        defer { try? server.destroyStore() }
        try writer.perform { context in
            context.insert(Reading(value: 3))
            try context.save()
        }
        try writer.persistentStoreCoordinator.close()
        // As if an older version had made the store: this version's functions are not there.
        let pool = try PostgresConnectionPool(description: server)
        defer { pool.close() }
        _ = try pool.withSession { session throws(StrataError) in
            try session.execute("DROP FUNCTION \(PostgresFunctions.integer(namespace: server.schemaName))(text, bigint, bigint, bigint, bigint)")
        }
        let (reader, _) = try await store("read-only", readOnly: true)
        let refused = #expect(throws: StrataError.self) {
            try reader.perform { context in
                try context.fetch(FetchRequest<Reading>(predicate: #Predicate { ($0.value ?? 0) * 2 == 6 }))
            }
        }
        #expect(refused?.code == .incompatibleStore)
        #expect(refused?.message.contains("not read-only") == true)
        // Plain reads go on.
        #expect(try reader.perform { try $0.fetch(FetchRequest<Reading>()).map(\.value) } == [3])
    }
}
