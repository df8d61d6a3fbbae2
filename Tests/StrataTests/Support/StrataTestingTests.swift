import Foundation
import Strata
import Testing

/// The helpers StrataTesting gives apps' tests.
@Suite("StrataTesting")
struct StrataTestingTests {
    @Test
    func anInMemoryContainerInOneLine() async throws {
        let container = try await PersistentContainer.inMemory(Author.self, Book.self)
        let context = container.newContext()
        context.insert(Book(title: "Dune", year: 1965))
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest<Book>()) == 1)
        expectValidObjectGraph(context)
    }

    @Test(arguments: testedStoreKinds)
    func aMergeIsAwaitedThroughTheContextsEvents(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let events = await MainActor.run { stack.container.viewContext.events }
        try stack.container.perform { context in context.insert(Book(title: "Elsewhere", year: 1)) }
        let merged = try await events.first(within: .seconds(5)) { $0.isMerge }
        #expect(merged?.mergedChanges?.inserted.count == 1)
    }

    @Test
    func nothingArrivingEndsTheWaitAtItsBound() async throws {
        let stack = try await TestStack(.memory)
        let events = stack.container.newContext().events
        let started = ContinuousClock.now
        #expect(try await events.first(within: .milliseconds(50)) == nil)
        // Generous: the bound only tells a wait that ends from one that does not.
        // Every test starts at once and queues for the cooperative threads, so a
        // 50 ms wait ends when the run gets to it: after 20–25 s on two cores,
        // over a minute under ThreadSanitizer.
        #expect(ContinuousClock.now - started < .seconds(300))
    }
}
