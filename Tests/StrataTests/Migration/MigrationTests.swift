import Foundation
import Strata
import Testing

/// Opens `url` with a versioned schema (and plan), as the app of that version would.
private func open(
    _ url: URL, _ version: any VersionedSchema.Type, plan: (any SchemaMigrationPlan.Type)? = nil, kind: StoreKind = .file,
    configure: (inout StoreDescription) -> Void = { _ in }
) async throws -> PersistentContainer {
    let container = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: version), migrationPlan: plan)
    var description = kind.description(url)
    configure(&description)
    container.storeDescriptions = [description]
    try await container.loadPersistentStores()
    return container
}

/// A closed version-1 store with two folders and `count` notes; returns the notes' keys by title.
private func versionOneStore(_ url: URL, count: Int = 6, kind: StoreKind = .file) async throws -> [String: Int64] {
    let container = try await open(url, NotesV1.self, kind: kind)
    let keys = try container.perform { context in
        let work = NotesV1.Folder(name: "work"), home = NotesV1.Folder(name: "home")
        context.insert(work)
        context.insert(home)
        var notes: [NotesV1.Note] = []
        for index in 0..<count {
            let note = NotesV1.Note(title: "note \(index)", body: "body of note \(index)")
            context.insert(note)
            (index % 2 == 0 ? work : home).notes.append(note)
            notes.append(note)
        }
        // An order that is not key order, to see it kept.
        work.notes.reverse()
        try context.save()
        return Dictionary(uniqueKeysWithValues: notes.map { ($0.title, $0.objectID.primaryKey ?? 0) })
    }
    try container.persistentStoreCoordinator.close()
    return keys
}

/// A container of one unversioned model over `url`, loaded.
private func load(_ url: URL, _ model: any PersistentModel.Type, kind: StoreKind = .file) async throws -> PersistentContainer {
    let container = try PersistentContainer(name: "Items", schema: Schema(model))
    container.storeDescriptions = [kind.description(url)]
    try await container.loadPersistentStores()
    return container
}

/// A closed store of `RefusedV1.Item`s with these codes.
private func itemStore(_ url: URL, codes: [String], kind: StoreKind = .file) async throws {
    let container = try await load(url, RefusedV1.Item.self, kind: kind)
    try container.perform { context in
        for (index, code) in codes.enumerated() { context.insert(RefusedV1.Item(code: code, count: index)) }
        try context.save()
    }
    try container.persistentStoreCoordinator.close()
}

@Suite("Migrating a schema")
struct MigrationTests {
    @Test(arguments: persistentStoreKinds)
    func anInferredMigrationRenamesAddsWithDefaultsAndKeepsKeysAndRelationships(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        let keys = try await versionOneStore(url, kind: kind)

        let container = try await open(url, NotesV2.self, kind: kind)
        try container.perform { context in
            let notes = try context.fetch(FetchRequest<NotesV2.Note>(sortBy: [SortDescriptor(\.title, comparator: .lexical)]))
            #expect(notes.count == 6)
            for note in notes {
                #expect(note.text == "body of \(note.title)")
                #expect(note.priority == 3)
                #expect(note.pinnedAt == nil)
                #expect(note.objectID.primaryKey == keys[note.title])
            }
            let work = try #require(try context.fetch(FetchRequest<NotesV2.Folder>(predicate: #Predicate { $0.name == "work" })).first)
            #expect(work.notes.map(\.title) == ["note 4", "note 2", "note 0"])
            // The renamed text answers folded queries as before.
            let needle = "BODY OF NOTE 1".folded
            #expect(try context.count(for: FetchRequest<NotesV2.Note>(predicate: #Predicate { $0.text.folded.contains(needle) })) == 1)
            // The migrated store takes new saves.
            context.insert(NotesV2.Note(title: "new", text: "after"))
            try context.save()
        }
        try container.persistentStoreCoordinator.close()
        // And opens again without migrating.
        let again = try await open(url, NotesV2.self, kind: kind)
        #expect(try again.perform { try $0.count(for: FetchRequest<NotesV2.Note>()) } == 7)
    }

    @Test(arguments: persistentStoreKinds)
    func aPlanRunsEveryStageFromTheStoresVersionInOneLoad(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        _ = try await versionOneStore(url, kind: kind)
        let container = try await open(url, NotesV3.self, plan: NotesPlan.self, kind: kind)
        let words = try container.perform { context in
            try context.fetch(FetchRequest<NotesV3.Note>()).map { ($0.text, $0.words, $0.priority) }
        }
        #expect(words.count == 6)
        #expect(words.allSatisfy { $0.0.hasPrefix("body of note") && $0.1 == 4 && $0.2 == 3 })
    }

    @Test(arguments: persistentStoreKinds)
    func aFailingStageLeavesTheStoreExactlyAsItWas(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        _ = try await versionOneStore(url, kind: kind)
        // Bring it to version 2 first, so the failing stage has a store to start from.
        try await open(url, NotesV2.self, kind: kind).persistentStoreCoordinator.close()
        let rowsBefore = try storeContents(kind, url)

        let error = await #expect(throws: StrataError.self) { _ = try await open(url, NotesV3.self, plan: FailingPlan.self, kind: kind) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("2.0.0 → 3.0.0") == true)
        #expect(try storeContents(kind, url) == rowsBefore)
        let old = try await open(url, NotesV2.self, kind: kind)
        #expect(try old.perform { try $0.fetch(FetchRequest<NotesV2.Note>()).allSatisfy { $0.text != "changed" } })
    }

    @Test(arguments: persistentStoreKinds)
    func aChangeThatCannotBeInferredIsRefusedNamingEveryPropertyAndTouchesNothing(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Refused.sqlite")
        try await itemStore(url, codes: ["a"], kind: kind)
        let before = try storeContents(kind, url)

        let error = await #expect(throws: StrataError.self) { _ = try await load(url, RefusedV2.Item.self, kind: kind) }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("Item.code changes from string to int") == true)
        #expect(error?.message.contains("Item.owner is new and required") == true)
        #expect(try storeContents(kind, url) == before)
        if kind == .file {
            let bytes = try Data(contentsOf: url)
            _ = try? await load(url, RefusedV2.Item.self, kind: kind)
            #expect(try Data(contentsOf: url) == bytes, "the file is left byte for byte")
        }
    }

    @Test(arguments: persistentStoreKinds)
    func migrationOffRefusesAChangedStore(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        _ = try await versionOneStore(url, kind: kind)
        let before = try storeContents(kind, url)
        let error = await #expect(throws: StrataError.self) {
            _ = try await open(url, NotesV2.self, kind: kind) { $0.migratesAutomatically = false }
        }
        #expect(error?.code == .incompatibleStore)
        let inference = await #expect(throws: StrataError.self) {
            _ = try await open(url, NotesV2.self, kind: kind) { $0.infersMappingAutomatically = false }
        }
        #expect(inference?.code == .incompatibleStore)
        #expect(try storeContents(kind, url) == before)
    }

    @Test(arguments: persistentStoreKinds)
    func aStoreOfANewerVersionIsNeverMigratedBackwards(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        _ = try await versionOneStore(url, kind: kind)
        try await open(url, NotesV3.self, plan: NotesPlan.self, kind: kind).persistentStoreCoordinator.close()
        let before = try storeContents(kind, url)
        let error = await #expect(throws: StrataError.self) { _ = try await open(url, NotesV2.self, plan: NotesPlan.self, kind: kind) }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("newer") == true)
        #expect(try storeContents(kind, url) == before)
    }

    @Test func aStoreOpenElsewhereIsNotMigratedUnderIt() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        _ = try await versionOneStore(url)
        let first = try await open(url, NotesV1.self)
        _ = try first.perform { try $0.count(for: FetchRequest<NotesV1.Note>()) }

        let error = await #expect(throws: StrataError.self) { _ = try await open(url, NotesV2.self) }
        #expect(error?.code == .migrationFailed)
        #expect(try first.perform { try $0.count(for: FetchRequest<NotesV1.Note>()) } == 6)
        try first.persistentStoreCoordinator.close()
        // Once it is closed there, the migration goes ahead.
        let second = try await open(url, NotesV2.self)
        #expect(try second.perform { try $0.count(for: FetchRequest<NotesV2.Note>()) } == 6)
    }

    @Test(arguments: persistentStoreKinds)
    func aUniquenessConstraintThatStoredRowsBreakFailsNamingThem(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Unique.sqlite")
        try await itemStore(url, codes: ["same", "same"], kind: kind)
        let before = try storeContents(kind, url)

        let error = await #expect(throws: StrataError.self) { _ = try await load(url, UniqueV2.Item.self, kind: kind) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("keys 1, 2") == true)
        #expect(try storeContents(kind, url) == before)
        // The refused migration wrote nothing the old schema can tell.
        let old = try await load(url, RefusedV1.Item.self, kind: kind)
        #expect(try old.perform { try $0.count(for: FetchRequest<RefusedV1.Item>()) } == 2)
    }

    @Test(arguments: persistentStoreKinds)
    func swormsThreeVersionsGiveTheSameStoreInOneLoadAndStepByStep(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        func versionOne(_ url: URL) async throws {
            let container = try await open(url, SwormV1.self, kind: kind)
            try container.perform { context in
                for id in 0..<10_000 { context.insert(SwormV1.A(id: id, name: "name \(id)")) }
                try context.save()
            }
            try container.persistentStoreCoordinator.close()
        }
        func contents(_ container: PersistentContainer) throws -> [String] {
            try container.perform { context in
                #expect(try context.count(for: FetchRequest<SwormV3.C>()) == 0)
                return try context.fetch(FetchRequest<SwormV3.B>(sortBy: [SortDescriptor(\.identifier)])).map { "\($0.identifier) \($0.text)" }
            }
        }
        let once = directory.file("Once.sqlite")
        try await versionOne(once)
        let direct = try contents(try await open(once, SwormV3.self, plan: SwormPlan.self, kind: kind))

        let stepwise = directory.file("Stepwise.sqlite")
        try await versionOne(stepwise)
        try await open(stepwise, SwormV2.self, plan: SwormPlanToV2.self, kind: kind).persistentStoreCoordinator.close()
        let stepped = try contents(try await open(stepwise, SwormV3.self, plan: SwormPlan.self, kind: kind))

        #expect(direct.count == 10_000)
        #expect(direct.first == "0.0 NAME 0")
        #expect(direct.last == "4999.5 NAME 9999")
        #expect(direct == stepped)
    }
}

enum RefusedV1 {
    @Model final class Item {
        var code: String
        var count: Int
        init(code: String, count: Int) {
            self.code = code
            self.count = count
        }
    }
}

enum RefusedV2 {
    @Model final class Item {
        var code: Int
        var count: Int
        var owner: String
        init(code: Int, count: Int, owner: String) {
            self.code = code
            self.count = count
            self.owner = owner
        }
    }
}

enum UniqueV2 {
    @Model final class Item {
        @Attribute(.unique) var code: String
        var count: Int
        init(code: String, count: Int) {
            self.code = code
            self.count = count
        }
    }
}
