import Foundation
import Strata
import Testing

/// A writer with books, each book by one writer.
enum ShelfOne {
    @Model final class Writer {
        var name: String
        @Relationship(inverse: \Volume.writer) var volumes: [Volume] = []
        init(name: String) { self.name = name }
    }
    @Model final class Volume {
        var title: String
        var writer: Writer?
        init(title: String) { self.title = title }
    }
}

/// The same, with books that may have several writers.
enum ShelfMany {
    @Model final class Writer {
        var name: String
        @Relationship(inverse: \Volume.writers) var volumes: [Volume] = []
        init(name: String) { self.name = name }
    }
    @Model final class Volume {
        var title: String
        @Relationship(originalName: "writer") var writers: [Writer] = []
        init(title: String) { self.title = title }
    }
}

/// Back to one writer a book, from the many-writer version.
enum ShelfOneAgain {
    @Model final class Writer {
        var name: String
        @Relationship(inverse: \Volume.writer) var volumes: [Volume] = []
        init(name: String) { self.name = name }
    }
    @Model final class Volume {
        var title: String
        @Relationship(originalName: "writers") var writer: Writer?
        init(title: String) { self.title = title }
    }
}

@Suite("Migrating relationships")
struct RelationshipMigrationTests {
    private func load(_ url: URL, _ kind: StoreKind, _ models: any PersistentModel.Type...) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Shelf", schema: Schema(models))
        container.storeDescriptions = [kind.description(url)]
        try await container.loadPersistentStores()
        return container
    }

    @Test(arguments: persistentStoreKinds)
    func aToOneThatBecomesToManyKeepsEveryPairAndTheOrder(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Shelf.sqlite")
        let one = try await load(url, kind, ShelfOne.Writer.self, ShelfOne.Volume.self)
        try one.perform { context in
            let writer = ShelfOne.Writer(name: "Le Guin")
            context.insert(writer)
            for title in ["c", "a", "b"] {
                let volume = ShelfOne.Volume(title: title)
                context.insert(volume)
                writer.volumes.append(volume)
            }
            context.insert(ShelfOne.Volume(title: "orphan"))
            try context.save()
        }
        try one.persistentStoreCoordinator.close()

        let many = try await load(url, kind, ShelfMany.Writer.self, ShelfMany.Volume.self)
        try many.perform { context in
            let writer = try #require(try context.fetch(FetchRequest<ShelfMany.Writer>()).first)
            #expect(writer.volumes.map(\.title) == ["c", "a", "b"])
            let volumes = try context.fetch(FetchRequest<ShelfMany.Volume>(sortBy: [SortDescriptor(\.title, comparator: .lexical)]))
            #expect(volumes.map { $0.writers.map(\.name) } == [["Le Guin"], ["Le Guin"], ["Le Guin"], []])
        }
        if kind == .file { #expect(try StoreCheck(url: url).problems == [], "the migrated store passes strata check") }
    }

    @Test(arguments: persistentStoreKinds)
    func aToManyThatBecomesToOneMigratesWhenNoRowHasTwo(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Shelf.sqlite")
        let many = try await load(url, kind, ShelfMany.Writer.self, ShelfMany.Volume.self)
        try many.perform { context in
            let writer = ShelfMany.Writer(name: "Herbert")
            context.insert(writer)
            for title in ["z", "y"] {
                let volume = ShelfMany.Volume(title: title)
                context.insert(volume)
                writer.volumes.append(volume)
            }
            try context.save()
        }
        try many.persistentStoreCoordinator.close()

        let one = try await load(url, kind, ShelfOneAgain.Writer.self, ShelfOneAgain.Volume.self)
        try one.perform { context in
            let writer = try #require(try context.fetch(FetchRequest<ShelfOneAgain.Writer>()).first)
            #expect(writer.volumes.map(\.title) == ["z", "y"])
            #expect(try context.fetch(FetchRequest<ShelfOneAgain.Volume>()).allSatisfy { $0.writer?.name == "Herbert" })
        }
        if kind == .file { #expect(try StoreCheck(url: url).problems == [], "the migrated store passes strata check") }
    }

    @Test(arguments: persistentStoreKinds)
    func aToManyThatBecomesToOneIsRefusedWhenARowHasTwo(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Shelf.sqlite")
        let many = try await load(url, kind, ShelfMany.Writer.self, ShelfMany.Volume.self)
        let shared = try many.perform { context in
            let volume = ShelfMany.Volume(title: "Good Omens")
            context.insert(volume)
            for name in ["Pratchett", "Gaiman"] {
                let writer = ShelfMany.Writer(name: name)
                context.insert(writer)
                volume.writers.append(writer)
            }
            try context.save()
            return volume.objectID.primaryKey ?? 0
        }
        try many.persistentStoreCoordinator.close()

        let error = await #expect(throws: StrataError.self) { _ = try await load(url, kind, ShelfOneAgain.Writer.self, ShelfOneAgain.Volume.self) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("keys \(shared)") == true)
        let again = try await load(url, kind, ShelfMany.Writer.self, ShelfMany.Volume.self)
        #expect(try again.perform { try $0.fetch(FetchRequest<ShelfMany.Volume>()).first?.writers.count } == 2)
    }
}
