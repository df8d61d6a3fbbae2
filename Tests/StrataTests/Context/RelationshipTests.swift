import Strata
import StrataCore
@testable import StrataSQLite
import Synchronization
import Testing

@Suite("Relationships")
struct RelationshipTests {
    @Test(arguments: testedStoreKinds)
    func bothSidesSetBeforeInsertingHoldEachMemberOnce(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            let book = Book(title: "T", year: 1)
            author.books = [book]
            book.author = author
            context.insert(author)
            #expect(author.books.map(\.title) == ["T"])
            let other = Author(email: "b@example.com", name: "B")
            context.insert(other)
            book.author = other
            book.author = author
            #expect(author.books.map(\.title) == ["T"])
            #expect(other.books.isEmpty)
            #expect(context.objectGraphProblems().isEmpty)
            try context.save()
        }
        let reader = stack.container.newContext()
        let stored = try reader.fetch(FetchRequest<Author>(sortBy: [SortDescriptor(\.email)]))
        #expect(stored.map { $0.books.count } == [1, 0])
    }

    @Test(arguments: testedStoreKinds)
    func settingTheToOneSideUpdatesTheToManySide(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            let other = Author(email: "b@example.com", name: "B")
            context.insert(author)
            context.insert(other)
            let book = Book(title: "T", year: 1)
            book.author = author                       // inserted along with its author
            #expect(book.isInserted)
            #expect(author.books.map(\.title) == ["T"])
            book.author = other
            #expect(author.books.isEmpty)
            #expect(other.books.map(\.title) == ["T"])
            book.author = nil
            #expect(other.books.isEmpty)
            #expect(context.objectGraphProblems().isEmpty)
        }
    }

    @Test(arguments: testedStoreKinds)
    func changingTheToManySideUpdatesTheToOneSide(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            let other = Author(email: "b@example.com", name: "B")
            context.insert(author)
            context.insert(other)
            let first = Book(title: "1", year: 1)
            let second = Book(title: "2", year: 2)
            author.books.append(first)
            author.books.append(second)
            #expect(first.author === author && second.author === author)
            other.books = [second]
            #expect(second.author === other)
            #expect(author.books.map(\.title) == ["1"])
            author.books.removeAll()
            #expect(first.author == nil)
            #expect(context.objectGraphProblems().isEmpty)
        }
    }

    @Test(arguments: testedStoreKinds)
    func relationshipsSurviveSavingAndFetchingInAnotherContext(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let authorID = try stack.container.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            for year in 1...3 { Book(title: "B\(year)", year: year).author = author }
            try context.save()
            return author.objectID
        }
        try stack.container.perform { context throws in
            let author = try context.existingObject(with: authorID, as: Author.self)
            #expect(author.books.map(\.title).sorted() == ["B1", "B2", "B3"])
            let book = try #require(try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year == 2 })).first)
            #expect(book.author === author)
            #expect(context.objectGraphProblems().isEmpty)
        }
    }

    @Test(arguments: testedStoreKinds)
    func relationshipsSetBeforeInsertionAreKeptInLine(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            let book = Book(title: "T", year: 1)
            book.author = author
            context.insert(book)                     // brings the author along
            #expect(author.isInserted)
            #expect(author.books.map(\.title) == ["T"])
            try context.save()
            #expect(book.author === author)
            #expect(context.objectGraphProblems().isEmpty)
        }
    }

    @Test(arguments: testedStoreKinds)
    func deletingCascadesAndNullifies(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            Book(title: "1", year: 1).author = author
            Book(title: "2", year: 2).author = author
            let orphan = Book(title: "3", year: 3)
            context.insert(orphan)
            try context.save()

            // Author.books cascades: deleting the author deletes its books.
            context.delete(author)
            #expect(author.books.allSatisfy { $0.isDeleted })
            try context.save()
            #expect(try context.fetch(FetchRequest<Book>()).map(\.title) == ["3"])
        }
        try stack.container.perform { context throws in
            let author = Author(email: "b@example.com", name: "B")
            context.insert(author)
            let book = Book(title: "4", year: 4)
            book.author = author
            try context.save()
            // Book.author nullifies: deleting a book removes it from its author.
            context.delete(book)
            #expect(author.books.isEmpty)
            try context.save()
            #expect(author.books.isEmpty)
            #expect(context.objectGraphProblems().isEmpty)
        }
    }

    /// SQLite's `ON DELETE CASCADE` takes an author's books as the author
    /// goes: the books go first, so the save finds every row it expects.
    @Test(arguments: [StoreKind.inMemory, .file])
    func aDeletionThatCascadesIsSavedInOneAttempt(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let store = try #require(try stack.container.persistentStoreCoordinator.loadedStore() as? SQLiteStore)
        try stack.container.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            for year in 1...3 { Book(title: "\(year)", year: year).author = author }
        }
        try stack.container.perform { context throws in
            for author in try context.fetch(FetchRequest<Author>()) { context.delete(author) }
        }
        #expect(try stack.container.perform { context in try context.count(for: FetchRequest<Book>()) } == 0)
        #expect(store.rerunSaves.load(ordering: .relaxed) == 0, "the books went before the author")
    }

    @Test(arguments: testedStoreKinds)
    func unsavedChangesCountWhenAToManyLoadsLater(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let authorID = try stack.container.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            Book(title: "Stored", year: 1).author = author
            try context.save()
            return author.objectID
        }
        try stack.container.perform { context throws in
            let author = try context.existingObject(with: authorID, as: Author.self)
            let newBook = Book(title: "New", year: 2)
            context.insert(newBook)
            newBook.author = author                  // author.books is not loaded yet
            #expect(author.books.map(\.title).sorted() == ["New", "Stored"])
            #expect(context.objectGraphProblems().isEmpty)
        }
    }
}
