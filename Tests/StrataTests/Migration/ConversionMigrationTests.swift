import Foundation
import Strata
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

@Suite("Migrating values to other types")
struct ConversionMigrationTests {
    private func load(_ url: URL, _ kind: StoreKind, _ model: any PersistentModel.Type) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Samples", schema: Schema(model))
        container.storeDescriptions = [kind.description(url)]
        try await container.loadPersistentStores()
        return container
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
        // The old version's next save is refused rather than written under the new schema's rows.
        let refused = #expect(throws: StrataError.self) {
            try v1.perform { context in
                context.insert(NotesV1.Note(title: "late", body: "from version 1"))
                try context.save()
            }
        }
        #expect(refused?.code == .incompatibleStore)
    }
}
