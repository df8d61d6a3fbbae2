import Foundation
import Strata
import Testing

@Suite("Context basics")
struct ContextBasicsTests {
    /// Saves `book` in a unit of work and returns its ID.
    static func savedBook(in stack: TestStack, _ book: @autoclosure @Sendable () -> Book) throws -> ObjectID {
        try stack.container.perform { context throws in
            let book = book()
            context.insert(book)
            try context.save()
            return book.objectID
        }
    }

    @Test(arguments: testedStoreKinds)
    func insertSaveFetchUpdateAndDelete(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            let book = Book(title: "Dune", year: 1965)
            context.insert(book)
            #expect(book.isInserted && context.hasChanges)
            #expect(book.objectID.isTemporary)
            try context.save()
            #expect(!book.objectID.isTemporary)
            #expect(!context.hasChanges && !book.hasChanges)

            book.rating = 4.5
            #expect(book.isUpdated)
            #expect(context.updatedObjects.count == 1)
            try context.save()
        }
        try stack.container.perform { context throws in
            let books = try context.fetch(FetchRequest<Book>())
            #expect(books.map(\.title) == ["Dune"])
            #expect(books.first?.rating == 4.5)
            context.delete(books[0])
            #expect(books[0].isDeleted)
            #expect(context.deletedObjects.count == 1)
            try context.save()
            #expect(try context.count(for: FetchRequest<Book>()) == 0)
        }
    }

    @Test(arguments: testedStoreKinds)
    func changesTrackTheSavedValuesThroughChangeBackRollbackAndSave(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let id = try Self.savedBook(in: stack, Book(title: "Dune", year: 1965, rating: 4.0))
        try stack.container.perform { context throws in
            let book = try context.existingObject(with: id, as: Book.self)
            book.title = "Dune (1)"
            book.title = "Dune (2)"
            book.year = 1966
            #expect(book.changedValues == ["title": .text("Dune (2)"), "year": .integer(1966)])
            book.title = "Dune"
            #expect(book.changedValues == ["year": .integer(1966)], "a property changed back is unchanged")
            book.year = 1965
            #expect(!book.isUpdated && !context.hasChanges)

            book.rating = nil
            book.title = "Children of Dune"
            context.rollback()
            #expect(book.title == "Dune" && book.rating == 4.0 && book.year == 1965)
            #expect(!book.hasChanges)

            book.year = 1970
            try context.save()
            book.year = 1965
            #expect(book.isUpdated, "after a save the saved value is the new one")
            context.refresh(book, mergeChanges: true)
            #expect(book.year == 1965 && book.isUpdated)
            context.rollback()
            #expect(book.year == 1970)
        }
    }

    @Test(arguments: testedStoreKinds)
    func changesMadeBeforeADeletionComeBackWithTheObjectOrGoWithARollback(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let id = try Self.savedBook(in: stack, Book(title: "Dune", year: 1965))
        try stack.container.perform { context throws in
            let book = try context.existingObject(with: id, as: Book.self)
            book.year = 1966
            context.delete(book)
            context.insert(book)
            #expect(book.isUpdated && context.updatedObjects.count == 1, "the undeleted object keeps its change")
            book.title = "Dune!"
            try context.save()
            book.year = 2000
            context.delete(book)
            context.rollback()
            #expect(book.year == 1966 && !book.hasChanges && !context.hasChanges)
            #expect(context.objectGraphProblems().isEmpty)
        }
        let saved = try stack.container.perform { context throws in
            let book = try context.existingObject(with: id, as: Book.self)
            return "\(book.title) \(book.year)"
        }
        #expect(saved == "Dune! 1966")
    }

    @Test(arguments: testedStoreKinds)
    func eachRowIsOneObjectPerContext(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            let book = Book(title: "Dune", year: 1965)
            context.insert(book)
            try context.save()
            let fetched = try context.fetch(FetchRequest<Book>())
            #expect(fetched.first === book)
            #expect(context.registeredObject(for: book.objectID) === book)
            #expect(try context.existingObject(with: book.objectID, as: Book.self) === book)
            let again = try context.fetch(FetchRequest<Book>())
            #expect(again.first === book)
        }
    }

    @Test(arguments: testedStoreKinds)
    func objectIDsRoundTripThroughTheirURIs(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let id = try stack.container.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            let temporary = author.objectID
            #expect(stack.container.objectID(forURIRepresentation: temporary.uriRepresentation()) == nil)
            try context.save()
            return author.objectID
        }
        let uri = id.uriRepresentation()
        #expect(uri.scheme == "strata")
        #expect(stack.container.objectID(forURIRepresentation: uri) == id)
        #expect(stack.container.objectID(forURIRepresentation: URL(string: "https://example.com/Author/p1")!) == nil)
        let otherStore = URL(string: "strata://00000000-0000-0000-0000-000000000000/Author/p1")!
        #expect(stack.container.objectID(forURIRepresentation: otherStore) == nil)
        let unknownEntity = URL(string: "strata://\(id.storeIdentifier)/Nothing/p1")!
        #expect(stack.container.objectID(forURIRepresentation: unknownEntity) == nil)
        let decoded = try JSONDecoder().decode(ObjectID.self, from: JSONEncoder().encode(id))
        #expect(decoded == id)
    }

    @Test(arguments: testedStoreKinds)
    func existingObjectThrowsObjectNotFoundForAMissingRow(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let id = try stack.container.perform { context throws in
            let book = Book(title: "Gone", year: 2000)
            context.insert(book)
            try context.save()
            let id = book.objectID
            context.delete(book)
            try context.save()
            return id
        }
        try stack.container.perform { context throws in
            let error = #expect(throws: StrataError.self) { try context.existingObject(with: id, as: Book.self) }
            #expect(error?.code == .objectNotFound)
            #expect(error?.objectIDs == [id])
        }
    }

    @Test(arguments: testedStoreKinds)
    func rollbackDiscardsInsertsChangesAndDeletes(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            let kept = Book(title: "Kept", year: 1)
            let doomed = Book(title: "Doomed", year: 2)
            context.insert(kept)
            context.insert(doomed)
            try context.save()

            kept.title = "Changed"
            context.delete(doomed)
            context.insert(Book(title: "New", year: 3))
            context.rollback()
            #expect(!context.hasChanges)
            #expect(kept.title == "Kept")
            #expect(!doomed.isDeleted)
            #expect(try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.title) == ["Kept", "Doomed"])
        }
    }

    @Test(arguments: testedStoreKinds)
    func resetForgetsEveryObject(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        let book = Book(title: "Dune", year: 1965)
        context.insert(book)
        try context.save()
        book.title = "Unsaved"
        context.reset()
        #expect(context.registeredObjects.isEmpty)
        #expect(!context.hasChanges)
        let fresh = try context.fetch(FetchRequest<Book>())
        #expect(fresh.count == 1 && fresh[0] !== book)
        #expect(fresh[0].title == "Dune")
    }

    @Test(arguments: testedStoreKinds)
    func aFailedSaveWritesNothingAndKeepsTheContextsChanges(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            context.insert(Author(email: "taken@example.com", name: "First"))
        }
        let context = stack.container.newContext()
        let unrelated = Book(title: "Unrelated", year: 1)
        context.insert(unrelated)
        let duplicate = Author(email: "taken@example.com", name: "Second")
        context.insert(duplicate)
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .uniquenessConflict)
        #expect(context.hasChanges)
        #expect(unrelated.isInserted && duplicate.isInserted)
        #expect(unrelated.objectID.isTemporary)
        let stored = try stack.container.perform { other throws in
            (try other.count(for: FetchRequest<Book>()), try other.count(for: FetchRequest<Author>()))
        }
        #expect(stored == (0, 1))
        // Fixing the problem lets the same changes save.
        duplicate.email = "free@example.com"
        try context.save()
        #expect(try context.count(for: FetchRequest<Author>()) == 2)
        #expect(!unrelated.objectID.isTemporary)
    }

    @Test(arguments: testedStoreKinds)
    func refreshWithoutMergeDropsChangesAndRefreshWithMergeKeepsThem(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        let book = Book(title: "Dune", year: 1965)
        context.insert(book)
        try context.save()
        try stack.container.perform { other throws in
            let copy = try other.existingObject(with: book.objectID, as: Book.self)
            copy.year = 1966
            copy.rating = 5
        }
        book.title = "Local"
        context.refresh(book, mergeChanges: true)
        #expect(book.title == "Local")
        #expect(book.year == 1966)
        context.refresh(book, mergeChanges: false)
        #expect(book.isFault)
        #expect(book.title == "Dune")
        #expect(book.rating == 5)
        #expect(!context.hasChanges)
    }

    @Test(arguments: testedStoreKinds)
    func refreshAllObjectsTakesInStoredValuesAndKeepsUnsavedOnes(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        let first = Book(title: "First", year: 1)
        let second = Book(title: "Second", year: 2)
        context.insert(first)
        context.insert(second)
        try context.save()
        try stack.container.perform { other in
            for book in try other.fetch(FetchRequest<Book>()) { book.rating = Double(book.year) }
        }
        second.title = "Unsaved"
        context.refreshAllObjects()
        #expect(first.rating == 1)
        #expect(second.rating == 2)
        #expect(second.title == "Unsaved")
        #expect(second.isUpdated && !first.isUpdated)
        #expect(context.objectGraphProblems().isEmpty)
    }

    @Test func handWrittenModelsSaveAndFetch() async throws {
        let stack = try await TestStack(.inMemory, schema: Schema(Note.self))
        try stack.container.perform { context throws in
            context.insert(Note(text: "one", pinned: true))
            context.insert(Note(text: "two"))
        }
        let pinned = try stack.container.perform { context throws in
            try context.fetch(FetchRequest<Note>(predicate: #Predicate { $0.pinned })).map(\.text)
        }
        #expect(pinned == ["one"])
    }

    @Test(arguments: testedStoreKinds)
    func aRelationshipToAnObjectInsertedLaterInTheSameSaveSurvivesARollback(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            // The book is inserted first, so its author gets its key after it.
            let book = Book(title: "Emma", year: 1815)
            context.insert(book)
            let author = Author(email: "jane@example.com", name: "Austen")
            context.insert(author)
            author.books.append(book)
            try context.save()
            context.rollback()
            #expect(book.author === author)
            book.rating = 3
            let unsaved = try context.count(for: FetchRequest<Book>(predicate: #Predicate { $0.author == nil }))
            try context.save()
            #expect(unsaved == 0)
            #expect(try context.count(for: FetchRequest<Book>(predicate: #Predicate { $0.author == nil })) == 0)
        }
    }

    @Test(arguments: testedStoreKinds)
    func aFaultWhoseRowIsGoneReadsAsEmptyAndIsReported(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let log = ErrorLog()
        stack.container.logError = log.record
        try stack.container.perform { context throws in
            context.insert(Book(title: "Kept", year: 1))
            context.insert(Book(title: "Gone", year: 2))
            try context.save()
        }
        let context = stack.container.newContext()
        var request = FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])
        request.fetchBatchSize = 1
        let books = try context.fetch(request)
        // Another writer deletes the second row before its fault fires.
        _ = try stack.container.execute(BatchDeleteRequest<Book>(predicate: #Predicate { $0.year == 2 }))
        #expect(books[0].title == "Kept")
        #expect(books[1].title == "")
        #expect(books[1].year == 0)
        #expect(log.errors.withLock { $0.contains(.objectNotFound) })
    }
}
