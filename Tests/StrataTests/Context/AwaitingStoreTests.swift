import Foundation
import Strata
import Testing

@Suite("Awaiting the store")
struct AwaitingStoreTests {
    @Test(arguments: testedStoreKinds)
    @MainActor
    func awaitedFetchesCountsAndSavesMatchTheSynchronousOnes(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let view = stack.container.viewContext
        for year in [1965, 1974, 2001] { view.insert(Book(title: "B\(year)", year: year)) }
        try await view.saveAsync()
        #expect(!view.hasChanges)

        let request = FetchRequest<Book>(predicate: #Predicate { $0.year > 1970 }, sortBy: [SortDescriptor(\.year)])
        let awaited = try await view.fetchAsync(request)
        let direct = try view.fetch(request)
        #expect(awaited.map(\.year) == [1974, 2001])
        #expect(awaited.map(ObjectIdentifier.init) == direct.map(ObjectIdentifier.init), "one identity map")
        #expect(try await view.countAsync(for: request) == 2)

        // Pending changes count, as in the synchronous fetch.
        view.insert(Book(title: "Pending", year: 2020))
        awaited[0].year = 1960
        #expect(try await view.fetchAsync(request).map(\.year) == [2001, 2020])
        #expect(try await view.countAsync(for: request) == 2)
        try await view.saveAsync()
        let stored = try await stack.container.performBackgroundTask { context in
            try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.year)
        }
        #expect(stored == [1960, 2001, 2020, 1965].sorted())
    }

    @Test(arguments: testedStoreKinds)
    func anAwaitedSaveSettlesConflictsByItsPolicyOrWritesNothing(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        context.insert(Author(email: "a@example.com", name: "First"))
        try await context.saveAsync()

        let other = stack.container.newContext()
        other.insert(Author(email: "a@example.com", name: "Second"))
        await #expect(throws: StrataError.self) { try await other.saveAsync() }
        #expect(other.hasChanges, "a failed save keeps the context's changes")

        other.mergePolicy = .mergeByPropertyObjectTrump
        try await other.saveAsync()
        let names = try await stack.container.performBackgroundTask { context in
            try context.fetch(FetchRequest<Author>()).map(\.name)
        }
        #expect(names == ["Second"])
    }

    @Test(arguments: testedStoreKinds)
    func aChildContextSavesIntoItsParentWhenAwaited(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let parent = stack.container.newContext()
        let child = parent.newChildContext()
        child.insert(Book(title: "Draft", year: 2024))
        try await child.saveAsync()
        #expect(try await parent.countAsync(for: FetchRequest<Book>()) == 1)
        try await parent.saveAsync()
        #expect(try await child.fetchAsync(FetchRequest<Book>()).map(\.title) == ["Draft"])
    }
}
