import Foundation
import Strata
import Synchronization
@testable import StrataPostgres
import Testing

@Model final class PgFolder {
    var name: String
    var parent: PgFolder?
    @Relationship(deleteRule: .cascade, inverse: \PgFolder.parent) var children: [PgFolder] = []

    init(name: String) { self.name = name }
}

/// Deletions that the database cascades as well as the context: the save
/// goes through in one attempt, whatever order the entities come in.
@Suite("PostgreSQL cascading deletes", .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresCascadeDeleteTests {
    @Test
    func aWriterDeletedWithHerStoriesIsSavedInOneAttempt() async throws {
        let stack = try await PostgresTestStack()
        let store = try #require(try stack.container.persistentStoreCoordinator.loadedStore() as? PostgresStore)
        try stack.container.perform { context in
            let writer = PgWriter(email: "w@example.com", name: "W")
            context.insert(writer)
            for year in 1...3 {
                let story = PgStory(title: "Story \(year)", year: year)
                context.insert(story)
                story.writer = writer
            }
        }
        try stack.container.perform { context in
            for writer in try context.fetch(FetchRequest<PgWriter>()) { context.delete(writer) }
        }
        let left = try stack.container.perform { context in try context.count(for: FetchRequest<PgStory>()) }
        #expect(left == 0)
        #expect(store.rerunSaves.load(ordering: .relaxed) == 0, "the stories went before the writer whose deletion cascades to them")
    }

    @Test
    func foldersAtSeveralVersionsDeletedWithTheirParentAreSavedInOneAttempt() async throws {
        let server = try PostgresTestServer.description()
        defer { try? PostgresTestServer.drop(server) }
        let container = try PersistentContainer(name: "Folders", schema: Schema(PgFolder.self))
        container.storeDescriptions = [.postgres(server)]
        try await container.loadPersistentStores()
        defer { try? container.persistentStoreCoordinator.close() }
        let store = try #require(try container.persistentStoreCoordinator.loadedStore() as? PostgresStore)
        try container.perform { context in
            let root = PgFolder(name: "root")
            context.insert(root)
            for number in 1...4 {
                let child = PgFolder(name: "child \(number)")
                context.insert(child)
                child.parent = root
            }
        }
        // The children now stand at two versions.
        try container.perform { context in
            for folder in try context.fetch(FetchRequest<PgFolder>()) where folder.name.hasSuffix("2") {
                folder.name += "'"
            }
        }
        try container.perform { context in
            let root = try #require(try context.fetch(FetchRequest<PgFolder>(predicate: #Predicate { $0.name == "root" })).first)
            context.delete(root)
            try context.save()
        }
        #expect(try container.perform { context in try context.count(for: FetchRequest<PgFolder>()) } == 0)
        #expect(store.rerunSaves.load(ordering: .relaxed) == 0, "rows that cascade within their entity go in one statement")
    }
}
