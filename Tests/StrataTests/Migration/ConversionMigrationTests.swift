import Foundation
import Strata
import StrataPostgres
import Synchronization
import Testing

/// Values of every kind an inferred migration converts without loss.
enum ConvertOne {
    @Model final class Sample {
        var name: String
        var count: Int
        var ratio: Double
        var flag: Bool
        var token: UUID
        var link: URL
        var small: Int32
        var note: String?
        init(name: String, count: Int, ratio: Double, flag: Bool, token: UUID, link: URL, small: Int32) {
            self.name = name
            self.count = count
            self.ratio = ratio
            self.flag = flag
            self.token = token
            self.link = link
            self.small = small
        }
    }
}

/// The same values under wider or textual types, with a rename and a note
/// that becomes required.
enum ConvertTwo {
    @Model final class Sample {
        @Attribute(originalName: "name") var label: String
        var count: Double
        var ratio: String
        var flag: String
        var token: String
        var link: String
        var small: Int64
        var note: String = "none"
        init(label: String) {
            self.label = label
            count = 0
            ratio = ""
            flag = ""
            token = ""
            link = ""
            small = 0
        }
    }
}

/// Version three adds an attribute to the table version two rebuilt.
enum ConvertThree {
    @Model final class Sample {
        var label: String
        var count: Double
        var ratio: String
        var flag: String
        var token: String
        var link: String
        var small: Int64
        var note: String = "none"
        var rank: Int?
        init(label: String) {
            self.label = label
            count = 0
            ratio = ""
            flag = ""
            token = ""
            link = ""
            small = 0
        }
    }
}

@Suite("Migrating values to other types")
struct ConversionMigrationTests {
    private func load(_ url: URL, _ kind: StoreKind, _ model: any PersistentModel.Type) async throws -> PersistentContainer {
        try await loadedContainer(at: url, kind, model, name: "Samples")
    }

    @Test(arguments: persistentStoreKinds)
    func widenedAndTextualValuesReadAsSwiftWritesThemAndMatchFolded(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Samples.sqlite")
        let token = UUID()
        let one = try await load(url, kind, ConvertOne.Sample.self)
        try one.perform { context in
            let first = ConvertOne.Sample(
                name: "Straße", count: 42, ratio: 3, flag: true, token: token, link: URL(string: "https://example.com/Caf%C3%A9")!,
                small: .min)
            first.note = "kept"
            context.insert(first)
            context.insert(ConvertOne.Sample(
                name: "ÉCOLE", count: -7, ratio: 0.1, flag: false, token: UUID(), link: URL(fileURLWithPath: "/tmp/İstanbul 🎉"),
                small: .max))
            try context.save()
        }
        try one.persistentStoreCoordinator.close()

        let two = try await load(url, kind, ConvertTwo.Sample.self)
        try two.perform { context in
            let samples = try context.fetch(FetchRequest<ConvertTwo.Sample>(sortBy: [SortDescriptor(\.count)]))
            #expect(samples.map(\.label) == ["ÉCOLE", "Straße"])
            #expect(samples.map(\.count) == [-7, 42])
            #expect(samples.map(\.ratio) == ["0.1", "3.0"])
            #expect(samples.map(\.flag) == ["false", "true"])
            #expect(samples[1].token == token.uuidString)
            #expect(samples.map(\.link) == [URL(fileURLWithPath: "/tmp/İstanbul 🎉").absoluteString, "https://example.com/Caf%C3%A9"])
            #expect(samples.map(\.small) == [Int64(Int32.max), Int64(Int32.min)])
            #expect(samples.map(\.note) == ["none", "kept"])

            // Text that was another type answers folded predicates as if a save had written it.
            let folded = token.uuidString.lowercased().folded
            #expect(try context.fetch(FetchRequest<ConvertTwo.Sample>(predicate: #Predicate { $0.token.folded == folded })).map(\.label) == ["Straße"])
            // URLs keep non-ASCII percent-encoded; their folding lower-cases the escapes too.
            let city = "%C4%B0STANBUL".folded
            #expect(try context.count(for: FetchRequest<ConvertTwo.Sample>(predicate: #Predicate { $0.link.folded.contains(city) })) == 1)
            let school = "ecole"
            #expect(try context.count(for: FetchRequest<ConvertTwo.Sample>(predicate: #Predicate { $0.label.folded == school })) == 1)
            let yes = "TRUE".folded
            #expect(try context.count(for: FetchRequest<ConvertTwo.Sample>(predicate: #Predicate { $0.flag.folded == yes })) == 1)
        }
        try two.persistentStoreCoordinator.close()

        // A table once rebuilt migrates again like any other.
        let three = try await load(url, kind, ConvertThree.Sample.self)
        try three.perform { context in
            let samples = try context.fetch(FetchRequest<ConvertThree.Sample>(sortBy: [SortDescriptor(\.count)]))
            #expect(samples.map(\.label) == ["ÉCOLE", "Straße"])
            #expect(samples.allSatisfy { $0.rank == nil })
            samples[0].rank = 1
            try context.save()
        }
    }
}

@Suite("Migrating a PostgreSQL store from many servers")
struct PostgresMigrationTests {
    @Test(.enabled(if: persistentStoreKinds.contains(.postgres), "needs a PostgreSQL server: set STRATA_POSTGRES_URL"))
    func serversStartingAtOnceWithANewVersionMigrateItOnce() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        let v1 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV1.self))
        v1.storeDescriptions = [StoreKind.postgres.description(url)]
        try await v1.loadPersistentStores()
        try v1.perform { context in
            for index in 0..<200 { context.insert(NotesV1.Note(title: "note \(index)", body: "body \(index)")) }
            try context.save()
        }
        // One-row saves, whose statement version 1's connection prepares and keeps.
        for round in 0..<3 {
            try v1.perform { context in
                let note = try #require(try context.fetch(FetchRequest<NotesV1.Note>()).first)
                note.title = "note 0, round \(round)"
                try context.save()
            }
        }

        // Four servers of version 3 start together while version 1 still runs.
        let reports = Mutex<[MigrationProgress]>([])
        let servers = try (0..<4).map { _ in
            let container = try PersistentContainer(
                name: "Notes", schema: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self)
            container.storeDescriptions = [StoreKind.postgres.description(url)]
            container.migrationProgress = { progress in reports.withLock { $0.append(progress) } }
            return container
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for server in servers { group.addTask { try await server.loadPersistentStores() } }
            try await group.waitForAll()
        }
        let seen = reports.withLock { $0 }
        #expect(seen.filter { $0.detail == "ran didMigrate" }.count == 1, "one server migrated; the others found it migrated")
        for server in servers {
            let words = try server.perform { try $0.fetch(FetchRequest<NotesV3.Note>()).map(\.words) }
            #expect(words.count == 200 && words.allSatisfy { $0 == 2 })
        }
        // The old version's next saves are refused rather than written under the new schema's rows,
        // whether or not the columns they write still exist.
        let refused = #expect(throws: StrataError.self) {
            try v1.perform { context in
                context.insert(NotesV1.Note(title: "late", body: "from version 1"))
                try context.save()
            }
        }
        #expect(refused?.code == .incompatibleStore)
        let retitled = #expect(throws: StrataError.self) {
            try v1.perform { context in
                context.rollback()
                let note = try #require(try context.fetch(FetchRequest<NotesV1.Note>()).first)
                note.title = "retitled by version 1"
                try context.save()
            }
        }
        #expect(retitled?.code == .incompatibleStore)
    }
}

/// A stage that writes related rows before the inferred step changes their table.
enum InsertingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: NotesV1.self, toVersion: NotesV2.self, willMigrate: { context in
            let folder = NotesV1.Folder(name: "added by the stage")
            context.insert(folder)
            let note = NotesV1.Note(title: "stage note", body: "written before the rename")
            context.insert(note)
            folder.notes.append(note)
            try context.save()
        }, didMigrate: nil)]
    }
}

/// Names long enough that PostgreSQL keeps only the first 63 bytes of their join table's.
enum LongNamesOne {
    @Model final class ExtraordinarilyLongShelfName {
        var label: String
        @Relationship(inverse: \ExtraordinarilyLongBookName.shelvesHoldingThisBook) var booksOnThisShelfInOrder: [ExtraordinarilyLongBookName] = []
        init(label: String) { self.label = label }
    }
    @Model final class ExtraordinarilyLongBookName {
        var title: String
        var shelvesHoldingThisBook: [ExtraordinarilyLongShelfName] = []
        init(title: String) { self.title = title }
    }
}

enum LongNamesTwo {
    @Model final class ExtraordinarilyLongShelfName {
        var label: String
        var note: String?
        @Relationship(inverse: \ExtraordinarilyLongBookName.shelvesHoldingThisBook) var booksOnThisShelfInOrder: [ExtraordinarilyLongBookName] = []
        init(label: String) { self.label = label }
    }
    @Model final class ExtraordinarilyLongBookName {
        var title: String
        var shelvesHoldingThisBook: [ExtraordinarilyLongShelfName] = []
        init(title: String) { self.title = title }
    }
}

@Suite("Migrations with stages and long names")
struct StageMigrationTests {
    @Test(arguments: persistentStoreKinds)
    func aStageThatSavesRelatedRowsIsFollowedByTheInferredStep(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        let v1 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV1.self))
        v1.storeDescriptions = [kind.description(url)]
        try await v1.loadPersistentStores()
        try v1.perform { context in
            context.insert(NotesV1.Note(title: "first", body: "before"))
            try context.save()
        }
        try v1.persistentStoreCoordinator.close()

        let v2 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV2.self), migrationPlan: InsertingPlan.self)
        v2.storeDescriptions = [kind.description(url)]
        try await v2.loadPersistentStores()
        try v2.perform { context in
            let notes = try context.fetch(FetchRequest<NotesV2.Note>(sortBy: [SortDescriptor(\.title, comparator: .lexical)]))
            #expect(notes.map(\.text) == ["before", "written before the rename"])
            #expect(notes.last?.folder?.name == "added by the stage")
        }
    }

    @Test(arguments: persistentStoreKinds)
    func longNamesKeepTheirPairsThroughAMigration(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Shelves.sqlite")
        let one = try PersistentContainer(
            name: "Shelves", schema: Schema(LongNamesOne.ExtraordinarilyLongShelfName.self, LongNamesOne.ExtraordinarilyLongBookName.self))
        one.storeDescriptions = [kind.description(url)]
        try await one.loadPersistentStores()
        try one.perform { context in
            let shelf = LongNamesOne.ExtraordinarilyLongShelfName(label: "fiction")
            context.insert(shelf)
            for title in ["b", "c", "a"] {
                let book = LongNamesOne.ExtraordinarilyLongBookName(title: title)
                context.insert(book)
                shelf.booksOnThisShelfInOrder.append(book)
            }
            try context.save()
        }
        try one.persistentStoreCoordinator.close()

        let two = try PersistentContainer(
            name: "Shelves", schema: Schema(LongNamesTwo.ExtraordinarilyLongShelfName.self, LongNamesTwo.ExtraordinarilyLongBookName.self))
        two.storeDescriptions = [kind.description(url)]
        try await two.loadPersistentStores()
        try two.perform { context in
            let shelf = try #require(try context.fetch(FetchRequest<LongNamesTwo.ExtraordinarilyLongShelfName>()).first)
            #expect(shelf.booksOnThisShelfInOrder.map(\.title) == ["b", "c", "a"])
        }
    }
}

extension PostgresMigrationTests {
    @Test(.enabled(if: persistentStoreKinds.contains(.postgres), "needs a PostgreSQL server: set STRATA_POSTGRES_URL"))
    func aSchemaNameWithCapitalsMigrates() async throws {
        let directory = TemporaryDirectory()
        var server = try #require(postgresServer(for: directory.file("Notes.sqlite")))
        server.schemaName = "Notes_" + server.schemaName
        let v1 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV1.self))
        v1.storeDescriptions = [.postgres(server)]
        try await v1.loadPersistentStores()
        try v1.perform { context in
            context.insert(NotesV1.Note(title: "capital", body: "letters"))
            try context.save()
        }
        try v1.persistentStoreCoordinator.close()
        let v2 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV2.self))
        v2.storeDescriptions = [.postgres(server)]
        try await v2.loadPersistentStores()
        #expect(try v2.perform { try $0.fetch(FetchRequest<NotesV2.Note>()).map(\.text) } == ["letters"])
    }
}
