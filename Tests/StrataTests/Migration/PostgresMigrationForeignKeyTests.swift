import Foundation
import Strata
import Testing
@testable import StrataPostgres

/// Foreign keys across a migration: tables changed in place keep theirs, and
/// those an app added to Strata's tables itself outlive it.
@Suite(.enabled(if: persistentStoreKinds.contains(.postgres), "needs a PostgreSQL server: set STRATA_POSTGRES_URL"))
struct PostgresMigrationForeignKeyTests {
    /// The foreign keys of a store's namespace, as `table.constraint#oid`.
    private func foreignKeys(_ server: PostgresStoreDescription, pool: PostgresConnectionPool) throws -> [String] {
        try pool.withSession { session throws(StrataError) in
            try session.rows("""
                SELECT t.relname || '.' || c.conname || '#' || c.oid::text FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid \
                WHERE c.contype = 'f' AND t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) ORDER BY 1
                """, [.text(server.schemaName)]).map { row throws(StrataError) in "\(try PostgresSession.value(Array(row)[0]))" }
        }
    }

    @Test func aTableChangedInPlaceKeepsItsForeignKeysUnread() async throws {
        let directory = TemporaryDirectory()
        let server = try #require(postgresServer(for: directory.file("Notes.sqlite")))
        try? server.destroyStore()
        let v1 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV1.self))
        v1.storeDescriptions = [.postgres(server)]
        try await v1.loadPersistentStores()
        try v1.perform { context in
            let folder = NotesV1.Folder(name: "inbox")
            context.insert(folder)
            for index in 0..<5 { folder.notes.append(NotesV1.Note(title: "note \(index)", body: "body")) }
            try context.save()
        }
        try v1.persistentStoreCoordinator.close()
        let pool = try PostgresConnectionPool(description: server)
        defer { pool.close() }
        let before = try foreignKeys(server, pool: pool)
        #expect(before.count == 1, "the note's folder")

        // Version 2 renames a column and adds two: the note table changes in place.
        let v2 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesPlan.self)
        v2.storeDescriptions = [.postgres(server)]
        try await v2.loadPersistentStores()
        #expect(try foreignKeys(server, pool: pool) == before, "the same constraint, not one dropped and made again")
        let titles = try v2.perform { context in
            try context.fetch(FetchRequest<NotesV2.Folder>()).flatMap { $0.notes.map(\.title) }
        }
        #expect(titles == (0..<5).map { "note \($0)" })
    }

    @Test func aForeignKeyAddedOutsideStrataIsKeptOnItsRenamedColumn() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        let server = try #require(postgresServer(for: url))
        try? server.destroyStore()
        let v1 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV1.self))
        v1.storeDescriptions = [.postgres(server)]
        try await v1.loadPersistentStores()
        try v1.perform { context in
            for index in 0..<5 { context.insert(NotesV1.Note(title: "note \(index)", body: "kind \(index % 2)")) }
            try context.save()
        }
        try v1.persistentStoreCoordinator.close()

        // The app's own table of kinds, which every note's body must name.
        let namespace = "\"\(server.schemaName)\""
        let pool = try PostgresConnectionPool(description: server)
        defer { pool.close() }
        try pool.withTransaction { session throws(StrataError) in
            try session.execute("CREATE TABLE \(namespace).kinds (name TEXT PRIMARY KEY)")
            try session.execute("INSERT INTO \(namespace).kinds VALUES ('kind 0'), ('kind 1')")
            try session.execute("""
                ALTER TABLE \(namespace)."Note" ADD CONSTRAINT note_body_is_a_kind FOREIGN KEY (body) REFERENCES \(namespace).kinds(name)
                """)
        }

        // Version 2 renames `body` to `text`; the key follows it.
        let v2 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesPlan.self)
        v2.storeDescriptions = [.postgres(server)]
        try await v2.loadPersistentStores()
        let columns = try pool.withSession { session throws(StrataError) in
            try session.rows("""
                SELECT a.attname::text FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey) \
                WHERE c.conname = 'note_body_is_a_kind' AND c.connamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)
                """, [.text(server.schemaName)]).map { row throws(StrataError) in try PostgresSession.value(Array(row)[0]) }
        }
        #expect(columns == [.text("text")])
        let refused = #expect(throws: StrataError.self) {
            try v2.perform { context in
                context.insert(NotesV2.Note(title: "odd", text: "kind 9"))
                try context.save()
            }
        }
        #expect(refused?.code == .validation)
        try v2.perform { context in
            context.insert(NotesV2.Note(title: "fine", text: "kind 1"))
            try context.save()
        }
    }
}
