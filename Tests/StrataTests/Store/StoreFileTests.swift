import Foundation
import GRDB
import Strata
import Testing

@Suite("Store files")
struct StoreFileTests {
    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftUntouched() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Garbage.sqlite")
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: url)
        let container = try PersistentContainer(name: "Garbage", schema: librarySchema)
        container.storeDescriptions = [StoreDescription(url: url)]

        let error = await #expect(throws: StrataError.self) { try await container.loadPersistentStores() }
        #expect(error?.code == .corruptStore)
        #expect(try Data(contentsOf: url) == garbage)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        // The container stays unusable rather than half-loaded.
        #expect(throws: StrataError.self) { try container.perform { _ in } }
    }

    @Test func aStoreWithAnotherSchemaIsRefusedListingTheDifferencesAndLeftUntouched() async throws {
        let stack = try await TestStack(.file)
        try stack.container.perform { context throws in
            context.insert(Author(email: "a@example.com", name: "A"))
        }
        let url = stack.container.storeDescriptions[0].url
        try stack.container.persistentStoreCoordinator.close()
        let before = try Data(contentsOf: url)

        let other = try PersistentContainer(name: "Other", schema: Schema(Note.self))
        other.storeDescriptions = [StoreDescription(url: url)]
        let error = await #expect(throws: StrataError.self) { try await other.loadPersistentStores() }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("entity Note was added") == true)
        #expect(error?.message.contains("entity Book was removed") == true)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aSQLiteDatabaseStrataDidNotCreateIsRefusedAndLeftUntouched() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Foreign.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)") }
        try queue.close()
        let before = try Data(contentsOf: url)

        let container = try PersistentContainer(name: "Foreign", schema: Schema(Note.self))
        container.storeDescriptions = [StoreDescription(url: url)]
        let error = await #expect(throws: StrataError.self) { try await container.loadPersistentStores() }
        #expect(error?.code == .incompatibleStore)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func anEmptyFileBecomesANewStore() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Empty.sqlite")
        #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
        let container = try PersistentContainer(name: "Empty", schema: Schema(Note.self))
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        try container.perform { context in context.insert(Note(text: "hello")) }
        #expect(try container.perform { try $0.count(for: FetchRequest<Note>()) } == 1)
    }

    @Test func aNewStoreIsCreatedInItsFolderAndReopensWithItsData() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url.appendingPathComponent("nested/deeper/Library.sqlite")
        let first = try PersistentContainer(name: "Library", schema: librarySchema)
        first.storeDescriptions = [StoreDescription(url: url)]
        try await first.loadPersistentStores()
        let id = try first.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            try context.save()
            return author.objectID
        }
        try first.persistentStoreCoordinator.close()

        let second = try PersistentContainer(name: "Library", schema: librarySchema)
        second.storeDescriptions = [StoreDescription(url: url)]
        try await second.loadPersistentStores()
        let name = try second.perform { context in try context.existingObject(with: id, as: Author.self).name }
        #expect(name == "A")
        #expect(second.objectID(forURIRepresentation: id.uriRepresentation()) == id)
    }

    @Test func theDefaultStoreLivesInTheDefaultDirectory() throws {
        let container = try PersistentContainer(name: "Library", schema: librarySchema)
        let expected = PersistentContainer.defaultDirectoryURL.appendingPathComponent("Library.sqlite")
        #expect(container.storeDescriptions.map(\.url) == [expected])
        #if os(Linux)
        let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
        let base = xdg.flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.local/share")
        #expect(PersistentContainer.defaultDirectoryURL.standardizedFileURL.path
            == URL(fileURLWithPath: base).standardizedFileURL.path)
        #endif
    }
}
