import Foundation
import Strata
import Testing

@Suite("Merging between contexts")
struct MergeTests {
    @Test(arguments: testedStoreKinds)
    @MainActor
    func aBackgroundSaveShowsInAnObjectTheViewContextHolds(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let view = stack.container.viewContext
        #expect(view.automaticallyMergesChangesFromParent)
        let book = Book(title: "Dune", year: 1965)
        view.insert(book)
        try view.save()
        let id = book.objectID

        try await stack.container.performBackgroundTask { context in
            let copy = try context.existingObject(with: id, as: Book.self)
            copy.rating = 4.9
            copy.title = "Dune (revised)"
            try context.save()
        }
        // No call from the app: the merge is scheduled on the main actor.
        #expect(await eventually { book.rating == 4.9 })
        #expect(book.title == "Dune (revised)")
        #expect(!book.hasChanges)
    }

    @Test(arguments: testedStoreKinds)
    @MainActor
    func insertsAndDeletesFromOtherContextsReachTheViewContext(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let view = stack.container.viewContext
        let author = Author(email: "a@example.com", name: "A")
        view.insert(author)
        try view.save()
        #expect(author.books.isEmpty)
        let authorID = author.objectID

        let bookID = try await stack.container.performBackgroundTask { context in
            let author = try context.existingObject(with: authorID, as: Author.self)
            let book = Book(title: "New", year: 2000)
            book.author = author
            try context.save()
            return book.objectID
        }
        #expect(await eventually { author.books.map(\.title) == ["New"] })

        try await stack.container.performBackgroundTask { context in
            context.delete(try context.existingObject(with: bookID, as: Book.self))
            try context.save()
        }
        #expect(await eventually { author.books.isEmpty })
        #expect(view.registeredObject(for: bookID) == nil)
        #expect(view.objectGraphProblems().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    @MainActor
    func localChangesSurviveAMerge(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let view = stack.container.viewContext
        let book = Book(title: "Dune", year: 1965)
        view.insert(book)
        try view.save()
        book.title = "Mine"
        let id = book.objectID
        try await stack.container.performBackgroundTask { context in
            let copy = try context.existingObject(with: id, as: Book.self)
            copy.year = 2001
            copy.title = "Theirs"
            try context.save()
        }
        #expect(await eventually { book.year == 2001 })
        #expect(book.title == "Mine")
        #expect(book.isUpdated)
        #expect(view.objectGraphProblems().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func hundredConcurrentBackgroundInsertsAllLand(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let container = stack.container
        let ids = try await withThrowingTaskGroup(of: ObjectID.self) { group in
            for index in 0..<100 {
                group.addTask {
                    try await container.performBackgroundTask { context in
                        let book = Book(title: "Book \(index)", year: index)
                        context.insert(book)
                        try context.save()
                        return book.objectID
                    }
                }
            }
            return try await group.reduce(into: [ObjectID]()) { $0.append($1) }
        }
        #expect(Set(ids).count == 100)
        let years = try container.perform { context throws in
            try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.year)
        }
        #expect(years == Array(0..<100))
    }

    @Test(arguments: testedStoreKinds)
    func backgroundContextsMergeOnTheirOwnActor(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let reader = stack.container.newBackgroundContext()
        await reader.setAutomaticallyMergesChangesFromParent(true)
        let id = try await reader.perform { context throws in
            let book = Book(title: "Shared", year: 1)
            context.insert(book)
            try context.save()
            return book.objectID
        }
        try stack.container.perform { context throws in
            try context.existingObject(with: id, as: Book.self).year = 2
        }
        var year = 0
        for _ in 0..<500 where year != 2 {
            year = try await reader.perform { context in try context.existingObject(with: id, as: Book.self).year }
            if year != 2 { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(year == 2)
    }
}

@Suite("Durability of merged changes")
struct DurabilityTests {
    @Test(arguments: testedStoreKinds)
    @MainActor
    func aFailedSaveShowsNothingAnywhere(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let view = stack.container.viewContext
        let author = Author(email: "taken@example.com", name: "Original")
        view.insert(author)
        try view.save()
        var merges = 0
        let observation = view.onMerge { _ in merges += 1 }
        let authorID = author.objectID

        let failed = await #expect(throws: StrataError.self) {
            try await stack.container.performBackgroundTask { context in
                let copy = try context.existingObject(with: authorID, as: Author.self)
                copy.name = "Renamed"
                context.insert(Author(email: "taken@example.com", name: "Duplicate"))
                try context.save()
            }
        }
        #expect(failed?.code == .uniquenessConflict)
        try await Task.sleep(for: .milliseconds(100))
        #expect(merges == 0)
        #expect(author.name == "Original")
        #expect(try view.count(for: FetchRequest<Author>()) == 1)
        withExtendedLifetime(observation) {}
    }

    @Test(arguments: testedStoreKinds)
    @MainActor
    func theViewContextSeesASaveOnlyAfterItCommitted(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let view = stack.container.viewContext
        var countsSeenAtMerge: [Int] = []
        let observation = view.onMerge { _ in
            // Read through a separate context: the store already holds what was merged.
            let stored = (try? stack.container.perform { try $0.count(for: FetchRequest<Book>()) }) ?? -1
            countsSeenAtMerge.append(stored)
        }
        try await stack.container.performBackgroundTask { context in
            for index in 0..<10 { context.insert(Book(title: "B\(index)", year: index)) }
            try context.save()
        }
        #expect(await eventually { countsSeenAtMerge.count == 1 })
        #expect(countsSeenAtMerge == [10])
        withExtendedLifetime(observation) {}
    }
}
