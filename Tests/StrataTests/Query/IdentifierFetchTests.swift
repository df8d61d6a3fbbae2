import Foundation
import Strata
import Testing

/// Fetching identifiers instead of objects, and SwiftData's `fetchCount`.
@Suite("Fetching identifiers")
struct IdentifierFetchTests {
    private func library(_ stack: TestStack) throws {
        try stack.container.perform { context throws in
            for (index, year) in [1965, 1851, 2003, 1932, 1818].enumerated() {
                context.insert(Book(title: "book \(index)", year: year))
            }
            try context.save()
        }
    }

    @Test(arguments: testedStoreKinds)
    func identifiersComeInTheRequestsOrderWithoutMakingObjects(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        var request = FetchRequest<Book>(predicate: #Predicate { $0.year < 2000 }, sortBy: [SortDescriptor(\.year)])
        request.fetchOffset = 1
        request.fetchLimit = 2
        let context = stack.container.newContext()
        let ids = try context.fetchIdentifiers(request)
        #expect(context.registeredObjects.isEmpty)
        let objects = try context.fetch(request)
        #expect(ids == objects.map(\.objectID))
        #expect(objects.map(\.year) == [1851, 1932])
        #expect(ids.allSatisfy { !$0.isTemporary })
        #expect(try context.existingObject(with: ids[1], as: Book.self).year == 1932)
    }

    @Test(arguments: testedStoreKinds)
    func unsavedChangesCountAsTheyDoInAFetch(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        let request = FetchRequest<Book>(predicate: #Predicate { $0.year < 1900 }, sortBy: [SortDescriptor(\.year)])
        let new = Book(title: "new", year: 1800)
        context.insert(new)
        let oldest = try #require(try context.fetch(request).last)
        context.delete(oldest)
        let ids = try context.fetchIdentifiers(request)
        #expect(ids == [new.objectID, try context.fetch(request)[1].objectID])
        #expect(ids[0].isTemporary)
        #expect(try await context.fetchIdentifiersAsync(request) == ids)

        var stored = request
        stored.includesPendingChanges = false
        #expect(try context.fetchIdentifiers(stored).count == 2)
        #expect(try await context.fetchIdentifiersAsync(stored) == context.fetchIdentifiers(stored))
    }

    @Test(arguments: testedStoreKinds)
    func fetchCountIsCountForSwiftDataUsers(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        let request = FetchRequest<Book>(predicate: #Predicate { $0.year >= 1900 })
        #expect(try context.fetchCount(request) == 3)
        #expect(try context.fetchCount(request) == context.count(for: request))
    }

    @Test(arguments: testedStoreKinds)
    func aChildContextListsItsParentsObjectsAndItsOwn(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let parent = stack.container.newContext()
        let child = parent.newChildContext()
        let draft = Book(title: "draft", year: 1700)
        child.insert(draft)
        let request = FetchRequest<Book>(predicate: #Predicate { $0.year < 1850 }, sortBy: [SortDescriptor(\.year)])
        let ids = try child.fetchIdentifiers(request)
        #expect(ids.count == 2)
        #expect(ids.first == draft.objectID)
    }
}
