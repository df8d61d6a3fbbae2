import Foundation
import Strata
import Synchronization
import Testing

@Suite("Destroying, replacing and migrating store files")
struct StoreFileOperationTests {
    private func library(_ url: URL, titles: [String]) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Library", schema: librarySchema)
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        try container.perform { context in
            for title in titles { context.insert(Book(title: title, year: 1)) }
            try context.save()
        }
        return container
    }

    private func titles(_ container: PersistentContainer) throws -> [String] {
        try container.perform { try $0.fetch(FetchRequest<Book>()).map(\.title).sorted() }
    }

    @Test func aStoreIsDestroyedWithItsSideFilesOnlyOnceNothingHasItOpen() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Doomed.sqlite")
        let container = try await library(url, titles: ["a"])
        let other = try PersistentContainer(name: "Other", schema: librarySchema)

        let loaded = #expect(throws: StrataError.self) { try container.persistentStoreCoordinator.destroyPersistentStore(at: url) }
        #expect(loaded?.code == .invalidStoreLocation)
        let elsewhere = #expect(throws: StrataError.self) { try other.persistentStoreCoordinator.destroyPersistentStore(at: url) }
        #expect(elsewhere?.code == .invalidStoreLocation)
        #expect(try titles(container) == ["a"])

        try container.persistentStoreCoordinator.close()
        try other.persistentStoreCoordinator.destroyPersistentStore(at: url)
        for suffix in ["", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: url.path + suffix)) }
    }

    @Test func aStoreIsReplacedByACopyOfAnotherInUse() async throws {
        let directory = TemporaryDirectory()
        let source = try await library(directory.file("Source.sqlite"), titles: ["kept", "also kept"])
        let destination = directory.file("Destination.sqlite")
        try await library(destination, titles: ["replaced"]).persistentStoreCoordinator.close()

        let user = try PersistentContainer(name: "User", schema: librarySchema)
        user.storeDescriptions = [StoreDescription(url: destination)]
        try user.persistentStoreCoordinator.replacePersistentStore(
            at: destination, withPersistentStoreFrom: directory.file("Source.sqlite"))
        try await user.loadPersistentStores()
        #expect(try titles(user) == ["also kept", "kept"])
        #expect(try titles(source) == ["also kept", "kept"])

        let refused = #expect(throws: StrataError.self) {
            try user.persistentStoreCoordinator.replacePersistentStore(
                at: destination, withPersistentStoreFrom: directory.file("Source.sqlite"))
        }
        #expect(refused?.code == .invalidStoreLocation)
    }

    @Test func aMigrationReportsItsProgressToTheEnd() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        let v1 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV1.self))
        v1.storeDescriptions = [StoreDescription(url: url)]
        try await v1.loadPersistentStores()
        try v1.perform { context in
            context.insert(NotesV1.Note(title: "t", body: "b"))
            try context.save()
        }
        try v1.persistentStoreCoordinator.close()

        let reports = Mutex<[MigrationProgress]>([])
        let v3 = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self)
        v3.storeDescriptions = [StoreDescription(url: url)]
        v3.migrationProgress = { progress in reports.withLock { $0.append(progress) } }
        try await v3.loadPersistentStores()
        let seen = reports.withLock { $0 }
        #expect(seen.last?.fractionCompleted == 1)
        #expect(seen.map(\.completedUnitCount) == Array(1...seen.count))
        #expect(seen.contains { $0.step == "1.0.0 → 2.0.0" && $0.detail == "migrated Note" })
        #expect(seen.contains { $0.step == "2.0.0 → 3.0.0" && $0.detail == "ran didMigrate" })
    }
}
