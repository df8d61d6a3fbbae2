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
        try postgresForeignKeys(of: server, in: pool, line: "t.relname || '.' || c.conname || '#' || c.oid::text")
    }

    @Test func aTableChangedInPlaceKeepsItsForeignKeysUnread() async throws {
        let directory = TemporaryDirectory()
        let server = try await freshPostgresStore(at: directory.file("Notes.sqlite"), schema: Schema(versionedSchema: NotesV1.self)) {
            context in
            let folder = NotesV1.Folder(name: "inbox")
            context.insert(folder)
            for index in 0..<5 { folder.notes.append(NotesV1.Note(title: "note \(index)", body: "body")) }
        }
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
        let server = try await freshPostgresStore(at: directory.file("Notes.sqlite"), schema: Schema(versionedSchema: NotesV1.self)) {
            context in
            for index in 0..<5 { context.insert(NotesV1.Note(title: "note \(index)", body: "kind \(index % 2)")) }
        }

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

/// A writer's works, whose delete rule and year change between versions.
enum KeyShelfV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Writer.self, Work.self] }
    @Model final class Writer {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Work.writer) var works: [Work] = []
        init(name: String) { self.name = name }
    }
    @Model final class Work {
        var title: String
        var year: Int
        var writer: Writer?
        init(title: String, year: Int) {
            self.title = title
            self.year = year
        }
    }
}

/// Works no longer go with their writer: the store keeps no foreign key for it.
enum KeyShelfNoAction: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Writer.self, Work.self] }
    @Model final class Writer {
        var name: String
        @Relationship(deleteRule: .noAction, inverse: \Work.writer) var works: [Work] = []
        init(name: String) { self.name = name }
    }
    @Model final class Work {
        var title: String
        var year: Int
        var writer: Writer?
        init(title: String, year: Int) {
            self.title = title
            self.year = year
        }
    }
}

/// The year becomes text: the works' table is rebuilt.
enum KeyShelfTextYear: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Writer.self, Work.self] }
    @Model final class Writer {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Work.writer) var works: [Work] = []
        init(name: String) { self.name = name }
    }
    @Model final class Work {
        var title: String
        var year: String
        var writer: Writer?
        init(title: String, year: String) {
            self.title = title
            self.year = year
        }
    }
}

@Suite(.enabled(if: persistentStoreKinds.contains(.postgres), "needs a PostgreSQL server: set STRATA_POSTGRES_URL"))
struct PostgresMigrationForeignKeyRuleTests {
    private func shelf(_ name: String) async throws -> (PostgresStoreDescription, PostgresConnectionPool) {
        let server = try await freshPostgresStore(
            at: URL(fileURLWithPath: "/foreign-keys/\(name)"), schema: Schema(versionedSchema: KeyShelfV1.self)
        ) { context in
            let writer = KeyShelfV1.Writer(name: "Le Guin")
            context.insert(writer)
            writer.works = [KeyShelfV1.Work(title: "The Dispossessed", year: 1974), KeyShelfV1.Work(title: "Lavinia", year: 2008)]
        }
        return (server, try PostgresConnectionPool(description: server))
    }

    /// `table.column → referenced (action)` for every foreign key of the namespace.
    private func keys(_ server: PostgresStoreDescription, _ pool: PostgresConnectionPool) throws -> [String] {
        try postgresForeignKeys(
            of: server, in: pool, line: "t.relname || '.' || a.attname || ' → ' || r.relname || ' (' || c.confdeltype::text || ')'")
    }

    @Test func aKeyTheNewSchemaNoLongerWantsGoesFromATableChangedInPlace() async throws {
        let (server, pool) = try await shelf("no-action")
        defer { pool.close(); try? server.destroyStore() }
        #expect(try keys(server, pool) == ["Work.writer → Writer (c)"])
        let v2 = try PersistentContainer(name: "Shelf", schema: Schema(versionedSchema: KeyShelfNoAction.self))
        v2.storeDescriptions = [.postgres(server)]
        try await v2.loadPersistentStores()
        #expect(try keys(server, pool) == [], "no cascade left behind for a rule that no longer asks for one")
    }

    @Test func anAppsKeyOnARebuiltTableComesBackPointingAtItsNewTable() async throws {
        let (server, pool) = try await shelf("rebuilt")
        defer { pool.close(); try? server.destroyStore() }
        let namespace = "\"\(server.schemaName)\""
        try pool.withTransaction { session throws(StrataError) in
            try session.execute("CREATE TABLE \(namespace).awards (name TEXT PRIMARY KEY, work BIGINT)")
            try session.execute("INSERT INTO \(namespace).awards SELECT 'Hugo', pk FROM \(namespace).\"Work\" WHERE title = 'The Dispossessed'")
            try session.execute("""
                ALTER TABLE \(namespace).awards ADD CONSTRAINT award_for_a_work FOREIGN KEY (work) REFERENCES \(namespace)."Work"(pk) \
                ON DELETE CASCADE
                """)
        }
        let v2 = try PersistentContainer(name: "Shelf", schema: Schema(versionedSchema: KeyShelfTextYear.self))
        v2.storeDescriptions = [.postgres(server)]
        try await v2.loadPersistentStores()
        #expect(try keys(server, pool) == ["Work.writer → Writer (c)", "awards.work → Work (c)"].sorted())
        let years = try v2.perform { try $0.fetch(FetchRequest<KeyShelfTextYear.Work>(sortBy: [SortDescriptor(\.title)])).map(\.year) }
        #expect(years == ["2008", "1974"])
    }
}
