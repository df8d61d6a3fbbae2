import Foundation
import Strata
import Testing

@Suite("Batch update")
struct BatchUpdateTests {
    /// Saves three books and returns their IDs, oldest first.
    private func saveBooks(_ container: PersistentContainer) throws -> [ObjectID] {
        try container.perform { context in
            let books = [Book(title: "Emma", year: 1815), Book(title: "Ulysses", year: 1922), Book(title: "Dune", year: 1965)]
            for book in books { context.insert(book) }
            try context.save()
            return books.map(\.objectID)
        }
    }

    private func olderThan1950() -> BatchUpdateRequest<Book> {
        var request = BatchUpdateRequest<Book>(predicate: #Predicate { $0.year < 1950 }, resultType: .objectIDs)
        request.set(\.rating, to: 5.0)
        request.propertiesToUpdate["title"] = "Classic"
        return request
    }

    @Test(arguments: testedStoreKinds)
    @MainActor
    func anUpdateByPredicateReachesTheViewContextWithoutACall(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let ids = try saveBooks(stack.container)
        let view = stack.container.viewContext
        let books = try ids.map { try view.existingObject(with: $0, as: Book.self) }

        let result = try stack.container.execute(olderThan1950())
        #expect(result.count == 2)
        #expect(result.objectIDs == [ids[0], ids[1]])
        #expect(result.changes.updated.allSatisfy { $0.version == 2 })

        #expect(await eventually { books[0].rating == 5 && books[1].rating == 5 })
        #expect(books.map(\.title) == ["Classic", "Classic", "Dune"])
        #expect(books[2].rating == nil)
        #expect(!view.hasChanges)
        // The view context took the new versions, so its next change saves cleanly.
        books[0].year = 1816
        try view.save()
    }

    @Test(arguments: testedStoreKinds)
    func aPlainContextShowsTheUpdateAfterMergingTheResult(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let ids = try saveBooks(stack.container)
        let context = stack.container.newContext()
        let emma = try context.existingObject(with: ids[0], as: Book.self)

        let result = try stack.container.execute(olderThan1950())
        context.mergePendingChanges()
        #expect(emma.title == "Emma")   // not merging automatically
        context.merge(result.changes)
        #expect(emma.title == "Classic")
        #expect(emma.rating == 5)
        #expect(!emma.hasChanges)
        emma.year = 1816
        try context.save()
    }

    @Test(arguments: testedStoreKinds)
    func anUpdateBumpsVersionsSoAStaleContextMeetsAMergeConflict(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let ids = try saveBooks(stack.container)
        let stale = stack.container.newContext()
        stale.mergePolicy = .error
        let emma = try stale.existingObject(with: ids[0], as: Book.self)
        _ = emma.title

        try stack.container.execute(olderThan1950())
        emma.year = 1816
        let error = try #require(throws: StrataError.self) { try stale.save() }
        #expect(error.code == .mergeConflict)
        #expect(error.objectIDs == [ids[0]])
    }

    @Test(arguments: testedStoreKinds)
    func executingInAContextMergesTheResultIntoIt(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let ids = try saveBooks(stack.container)
        let context = stack.container.newContext()
        let ulysses = try context.existingObject(with: ids[1], as: Book.self)
        let result = try context.execute(olderThan1950())
        #expect(result.count == 2)
        #expect(ulysses.title == "Classic")
        ulysses.year = 1923
        try context.save()
        let stored = try stack.container.newContext().existingObject(with: ids[1], as: Book.self)
        #expect(stored.title == "Classic" && stored.year == 1923 && stored.rating == 5)
    }

    @Test(arguments: testedStoreKinds)
    func invalidValuesThrowAndWriteNothing(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let ids = try saveBooks(stack.container)
        func attempt(_ values: [String: any Sendable]) throws -> StrataError {
            try #require(throws: StrataError.self) {
                try stack.container.execute(BatchUpdateRequest<Book>(propertiesToUpdate: values))
            }
        }
        let required = try attempt(["title": Optional<String>.none])
        #expect(required.code == .validation && required.propertyName == "title")
        let unknown = try attempt(["pages": 3, "title": "X"])
        #expect(unknown.code == .validation && unknown.propertyName == "pages")
        let relationship = try attempt(["author": ids[0], "title": "X"])
        #expect(relationship.code == .validation && relationship.propertyName == "author")
        let wrongType = try attempt(["year": "MCMLXV"])
        #expect(wrongType.code == .validation && wrongType.propertyName == "year")
        let titles = try stack.container.newContext().fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.title)
        #expect(titles == ["Emma", "Ulysses", "Dune"])
    }

    @Test(arguments: testedStoreKinds)
    func aUniquenessClashPartWayThroughWritesNothing(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context in
            for index in 0..<3 { context.insert(Author(email: "\(index)@example.com", name: "A\(index)")) }
        }
        // The first row takes the email; the second clashes with it inside the one UPDATE.
        let error = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchUpdateRequest<Author>(
                propertiesToUpdate: ["email": "same@example.com", "name": "Renamed"]))
        }
        #expect(error.code == .uniquenessConflict)
        let names = try stack.container.newContext().fetch(FetchRequest<Author>()).map(\.name)
        #expect(names.sorted() == ["A0", "A1", "A2"])
    }
}
