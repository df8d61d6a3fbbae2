import Foundation
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Strata
import StrataServiceLifecycle
import StrataTestModels
import StrataTesting
import Testing

/// A server stopping: the container lets work in flight finish, refuses
/// new work, closes its store, and can be loaded again.
@Suite("Closing a container")
struct ClosingTests {
    @Test(arguments: testedStoreKinds)
    func closingLetsASaveInFlightFinishAndRefusesNewWork(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(SlowNote.self))
        let container = stack.container
        let text = UUID().uuidString
        // The note's `willSave` holds its save in flight for a moment.
        async let saved: Void = container.performBackgroundTask { context in
            context.insert(SlowNote(text: text))
            try context.save()
        }
        while !SlowNote.began.withLock({ $0.contains(text) }) { try await Task.sleep(for: .milliseconds(1)) }
        try await container.close()
        #expect(SlowNote.finished.withLock { $0.contains(text) }, "closing waited for the save")
        try await saved
        #expect(!container.isLoaded)
        #expect(throws: StrataError.self) { try container.perform { try $0.count(for: FetchRequest<SlowNote>()) } }
        if kind == .file || kind == .postgres {
            // The save reached the store before it closed.
            try await container.loadPersistentStores()
            #expect(try container.perform { try $0.count(for: FetchRequest<SlowNote>()) } == 1)
        }
    }

    @Test func aServiceGroupLoadsTheStoreAndClosesItAtShutdown() async throws {
        let directory = TemporaryDirectory()
        let container = try PersistentContainer(name: "Library", schema: librarySchema)
        container.storeDescriptions = [StoreDescription(url: directory.file("Library.sqlite"))]
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await ServiceGroup(services: [container], logger: Logger(label: "test")).run()
                }
                try await container.waitUntilLoaded()
                try container.perform { $0.insert(Book(title: "Dune", year: 1965)) }
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(!container.isLoaded)
        // Closed cleanly: another container opens the file and finds the book.
        let reopened = try PersistentContainer(name: "Library", schema: librarySchema)
        reopened.storeDescriptions = container.storeDescriptions
        try await reopened.loadPersistentStores()
        #expect(try reopened.perform { try $0.count(for: FetchRequest<Book>()) } == 1)
    }
}

/// A note whose save takes a while: its `willSave` says it began, waits,
/// fetches, then says it finished (by the note's text, as tests run side by side).
@Model final class SlowNote {
    var text: String
    init(text: String) { self.text = text }

    static let began = Locked<Set<String>>([])
    static let finished = Locked<Set<String>>([])

    func willSave() {
        Self.began.withLock { _ = $0.insert(text) }
        Thread.sleep(forTimeInterval: 0.2)
        // A fetch inside the save, after closing began: part of the work in flight.
        guard (try? context?.count(for: FetchRequest<SlowNote>())) != nil else { return }
        Self.finished.withLock { _ = $0.insert(text) }
    }
}
