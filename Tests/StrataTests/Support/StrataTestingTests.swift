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
        // Generous: the suites run in parallel, and store tests that wait for a
        // server on the cooperative threads can hold them for seconds at a time.
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}
