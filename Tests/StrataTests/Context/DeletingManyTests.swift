import Foundation
import Strata
import Testing

/// Saves that delete many objects at once, in runs of consecutive keys with
/// gaps between them (which a store may delete by key range): exactly the
/// deleted rows go, and a row changed or deleted elsewhere meanwhile is a
/// conflict that leaves every row in place.
@Suite("Deleting many objects")
struct DeletingManyTests {
    /// Saves `count` books, titled and dated by their number.
    private func saveBooks(_ count: Int, in stack: TestStack) throws {
        try stack.container.perform { context throws in
            for number in 1...count { context.insert(Book(title: "\(number)", year: number)) }
            try context.save()
        }
    }

    /// A stack of 30 saved books, and a context under `policy` that fetched them.
    private static func thirtyBooks(
        _ kind: StoreKind, policy: MergePolicy
    ) async throws -> (stack: TestStack, context: ManagedObjectContext, books: [Book]) {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            for number in 1...30 { context.insert(Book(title: "\(number)", year: number)) }
            try context.save()
        }
        let context = stack.container.newContext()
        context.mergePolicy = policy
        return (stack, context, try context.fetch(FetchRequest<Book>()))
    }

    private func storedTitles(_ stack: TestStack) throws -> [String] {
        try stack.container.perform { context throws in
            try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.title)
        }
    }

    @Test(arguments: testedStoreKinds)
    func runsWithGapsDeleteOnlyTheListedRows(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try saveBooks(40, in: stack)
        let context = stack.container.newContext()
        let request = FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])
        // Three runs, then single rows: 1–9, 11–19, 21–30, 32, 34, …, 40.
        let doomed = Set(1...9).union(11...19).union(21...30).union(stride(from: 32, through: 40, by: 2))
        for book in try context.fetch(request) where doomed.contains(book.year) { context.delete(book) }
        try context.save()
        #expect(try storedTitles(stack) == ["10", "20", "31", "33", "35", "37", "39"])
    }

    @Test(arguments: testedStoreKinds)
    func aSaveThatDeletesEveryObjectOfOneEntityAndSomeOfAnotherForgetsExactlyThose(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try saveBooks(5, in: stack)
        try stack.container.perform { context throws in
            for number in 1...3 { context.insert(Author(email: "\(number)@example.com", name: "A\(number)")) }
            try context.save()
        }
        let context = stack.container.newContext()
        let books = try context.fetch(FetchRequest<Book>())
        let authors = try context.fetch(FetchRequest<Author>(sortBy: [SortDescriptor(\.name)]))
        for book in books { context.delete(book) }
        context.delete(authors[0])
        try context.save()
        let gone = books.map(\.objectID) + [authors[0].objectID]
        for id in gone { #expect(context.registeredObject(for: id) == nil) }
        #expect(context.registeredObjects.count == 2)
        #expect(context.registeredObject(for: authors[1].objectID) === authors[1])
        #expect(context.registeredObject(for: authors[2].objectID) === authors[2])
        #expect(try context.fetch(FetchRequest<Author>()).count == 2)
        #expect(try context.fetch(FetchRequest<Book>()).isEmpty)
        #expect(context.objectGraphProblems().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func aRunWithARowChangedElsewhereIsAConflictAndDeletesNothing(_ kind: StoreKind) async throws {
        let (stack, mine, books) = try await Self.thirtyBooks(kind, policy: .error)
        for book in books { _ = book.title }
        try stack.container.perform { theirs throws in
            let book = try #require(try theirs.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year == 17 })).first)
            book.rating = 5
            try theirs.save()
        }
        for book in books { mine.delete(book) }
        let error = try #require(throws: StrataError.self) { try mine.save() }
        #expect(error.code == .mergeConflict)
        #expect(error.conflicts.count == 1)
        #expect(try storedTitles(stack).count == 30, "the save wrote nothing")
        #expect(mine.deletedObjects.count == 30, "the deletions are still there to resolve")
    }

    @Test(arguments: testedStoreKinds)
    func aRunWithARowDeletedElsewhereIsResolvedByThePolicy(_ kind: StoreKind) async throws {
        let (stack, mine, books) = try await Self.thirtyBooks(kind, policy: .mergeByPropertyObjectTrump)
        try stack.container.perform { theirs throws in
            for book in try theirs.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year == 5 || $0.year == 25 })) {
                theirs.delete(book)
            }
            try theirs.save()
        }
        for book in books where book.year <= 20 { mine.delete(book) }
        try mine.save()
        #expect(try storedTitles(stack) == (21...30).filter { $0 != 25 }.map(String.init))
    }
}
