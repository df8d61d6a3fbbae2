import Foundation
import Strata
import Testing

/// The authors in the store, by email, with their names and book titles.
private func storedAuthors(_ container: PersistentContainer) throws -> [String: (name: String, books: [String])] {
    try container.perform { context throws in
        var result: [String: (name: String, books: [String])] = [:]
        for author in try context.fetch(FetchRequest<Author>()) {
            result[author.email] = (author.name, author.books.map(\.title).sorted())
        }
        for book in try context.fetch(FetchRequest<Book>()) { _ = book.author }
        #expect(context.objectGraphProblems().isEmpty)
        return result
    }
}

/// Saves an author "a@example.com" named "Stored" with one book; returns its ID.
private func saveStoredAuthor(_ container: PersistentContainer) throws -> ObjectID {
    try container.perform { context throws in
        let author = Author(email: "a@example.com", name: "Stored")
        context.insert(author)
        let book = Book(title: "Old", year: 1)
        context.insert(book)
        book.author = author
        try context.save()
        return author.objectID
    }
}

/// Names an author with no way back: a to-one relationship without an inverse.
@Model final class Citation {
    var text: String
    var source: Author?

    init(text: String) { self.text = text }
}

/// A crew that cannot be deleted while it has sailors.
@Model final class Crew {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .deny, inverse: \Sailor.crew) var sailors: [Sailor] = []

    init(name: String) { self.name = name }
}

@Model final class Sailor {
    var name: String
    var crew: Crew?

    init(name: String) { self.name = name }
}

@Suite("Merge policies: uniqueness")
struct UniquenessConflictTests {
    @Test(arguments: testedStoreKinds)
    func aTakenKeyFailsUnderErrorNamingTheConstraintButNotTheValue(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let storedID = try saveStoredAuthor(stack.container)
        let context = stack.container.newContext()
        let author = Author(email: "a@example.com", name: "New")
        context.insert(author)
        let error = try #require(throws: StrataError.self) { try context.save() }
        #expect(error.code == .uniquenessConflict)
        #expect(error.entityName == "Author")
        #expect(error.propertyName == "email")
        #expect(error.objectIDs == [author.objectID, storedID])
        #expect(!error.message.contains("a@example.com"))
        let conflict = try #require(error.conflicts.first)
        #expect(conflict.kind == .uniqueness)
        #expect(conflict.constraint == ["email"])
        #expect(conflict.objectValues["name"] == .text("New"))
        #expect(conflict.storedValues?["name"] == .text("Stored"))
        #expect(conflict.conflictingObjectID == storedID)
        #expect(try storedAuthors(stack.container).mapValues(\.name) == ["a@example.com": "Stored"])
        #expect(author.isInserted)
    }

    @Test(arguments: testedStoreKinds)
    func aUniquenessFailureMixedWithUnrelatedInsertsWritesNoneOfThem(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        _ = try saveStoredAuthor(stack.container)
        let context = stack.container.newContext()
        context.insert(Book(title: "Unrelated 1", year: 2))
        context.insert(Author(email: "b@example.com", name: "Fine"))
        context.insert(Author(email: "a@example.com", name: "Clash"))
        context.insert(Book(title: "Unrelated 2", year: 3))
        #expect(throws: StrataError.self) { try context.save() }
        #expect(try storedAuthors(stack.container).keys.sorted() == ["a@example.com"])
        let books = try stack.container.perform { context throws in try context.count(for: FetchRequest<Book>()) }
        #expect(books == 1)
    }

    @Test(arguments: testedStoreKinds, [MergePolicy.mergeByPropertyObjectTrump, .overwrite])
    func objectTrumpTurnsAnInsertIntoAnUpdateOfTheRowWithTheKey(_ kind: StoreKind, _ policy: MergePolicy) async throws {
        let stack = try await TestStack(kind)
        let storedID = try saveStoredAuthor(stack.container)
        let context = stack.container.newContext()
        context.mergePolicy = policy
        let author = Author(email: "a@example.com", name: "New")
        context.insert(author)
        let book = Book(title: "New book", year: 2)
        context.insert(book)
        book.author = author
        try context.save()
        #expect(author.objectID == storedID)
        #expect(!author.hasChanges)
        let stored = try storedAuthors(stack.container)
        #expect(stored.count == 1)
        #expect(stored["a@example.com"]?.name == "New")
        #expect(stored["a@example.com"]?.books == ["New book", "Old"])
        #expect(author.books.map(\.title).sorted() == ["New book", "Old"])
    }

    @Test(arguments: testedStoreKinds, [MergePolicy.mergeByPropertyStoreTrump, .rollback])
    func storeTrumpMakesTheInsertedObjectTheStoredRow(_ kind: StoreKind, _ policy: MergePolicy) async throws {
        let stack = try await TestStack(kind)
        let storedID = try saveStoredAuthor(stack.container)
        let context = stack.container.newContext()
        context.mergePolicy = policy
        let author = Author(email: "a@example.com", name: "New")
        context.insert(author)
        try context.save()
        #expect(author.objectID == storedID)
        #expect(author.name == "Stored")
        #expect(try storedAuthors(stack.container)["a@example.com"]?.name == "Stored")
        #expect(try storedAuthors(stack.container).count == 1)
    }

    @Test(arguments: testedStoreKinds)
    func anUpsertIntoARowThisContextHoldsKeepsThatObject(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let storedID = try saveStoredAuthor(stack.container)
        let context = stack.container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        let existing = try context.existingObject(with: storedID, as: Author.self)
        let duplicate = Author(email: "a@example.com", name: "New")
        context.insert(duplicate)
        let book = Book(title: "New book", year: 2)
        context.insert(book)
        book.author = duplicate
        try context.save()
        // One object per row: the registered object stays; the duplicate leaves the context.
        #expect(existing.name == "New")
        #expect(book.author === existing)
        #expect(context.registeredObject(for: storedID) === existing)
        #expect(!duplicate.isInserted)
        #expect(existing.books.map(\.title).sorted() == ["New book", "Old"])
        #expect(try storedAuthors(stack.container)["a@example.com"]?.books == ["New book", "Old"])
    }

    @Test(arguments: testedStoreKinds)
    func twoInsertedObjectsWithOneKeyFailUnderError(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        let first = Author(email: "a@example.com", name: "First")
        let second = Author(email: "a@example.com", name: "Second")
        context.insert(first)
        context.insert(second)
        context.insert(Book(title: "Unrelated", year: 1))
        let error = try #require(throws: StrataError.self) { try context.save() }
        #expect(error.code == .uniquenessConflict)
        #expect(error.objectIDs == [second.objectID, first.objectID])
        #expect(error.conflicts.first?.storedValues == nil)
        #expect(try storedAuthors(stack.container).isEmpty)
    }

    @Test(arguments: testedStoreKinds, MergeResolution.allCases.filter { $0 != .error })
    func twoInsertedObjectsWithOneKeyLeaveOneRow(_ kind: StoreKind, _ resolution: MergeResolution) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        context.mergePolicy = .custom { conflicts in
            Dictionary(uniqueKeysWithValues: conflicts.map { ($0.objectID, resolution) })
        }
        let first = Author(email: "a@example.com", name: "First")
        let second = Author(email: "a@example.com", name: "Second")
        context.insert(first)
        context.insert(second)
        let book = Book(title: "Second's book", year: 1)
        context.insert(book)
        book.author = second
        try context.save()
        // The first inserted survives; object-trump resolutions give it the latest values.
        let expectedName = resolution == .mergeByPropertyObjectTrump || resolution == .overwrite ? "Second" : "First"
        #expect(!first.objectID.isTemporary)
        #expect(first.name == expectedName)
        #expect(book.author === first)
        let stored = try storedAuthors(stack.container)
        #expect(stored.count == 1)
        #expect(stored["a@example.com"]?.name == expectedName)
        #expect(stored["a@example.com"]?.books == ["Second's book"])
    }

    @Test(arguments: testedStoreKinds)
    func changingAKeyToATakenOneRevertsUnderStoreTrump(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        _ = try saveStoredAuthor(stack.container)
        let otherID = try stack.container.perform { context throws in
            let author = Author(email: "b@example.com", name: "Other")
            context.insert(author)
            try context.save()
            return author.objectID
        }
        let context = stack.container.newContext()
        context.mergePolicy = .mergeByPropertyStoreTrump
        let other = try context.existingObject(with: otherID, as: Author.self)
        other.email = "a@example.com"
        other.name = "Renamed"
        try context.save()
        #expect(other.email == "b@example.com")
        let stored = try storedAuthors(stack.container)
        #expect(stored.mapValues(\.name) == ["a@example.com": "Stored", "b@example.com": "Renamed"])
    }

    @Test(arguments: testedStoreKinds)
    func changingAKeyToATakenOneReplacesThatRowUnderObjectTrump(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        _ = try saveStoredAuthor(stack.container)
        let otherID = try stack.container.perform { context throws in
            let author = Author(email: "b@example.com", name: "Other")
            context.insert(author)
            try context.save()
            return author.objectID
        }
        let context = stack.container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        let other = try context.existingObject(with: otherID, as: Author.self)
        other.email = "a@example.com"
        try context.save()
        #expect(try storedAuthors(stack.container).mapValues(\.name) == ["a@example.com": "Other"])
    }

    @Test(arguments: testedStoreKinds)
    func deletingAKeysHolderAndInsertingTheKeyInOneSaveReplacesTheRow(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let storedID = try saveStoredAuthor(stack.container)
        let context = stack.container.newContext()
        context.delete(try context.existingObject(with: storedID, as: Author.self))
        context.insert(Author(email: "a@example.com", name: "Replacement"))
        try context.save()
        #expect(try storedAuthors(stack.container).mapValues(\.name) == ["a@example.com": "Replacement"])
    }

    @Test(arguments: testedStoreKinds, MergeResolution.allCases.filter { $0 != .error })
    func aFoldedObjectsReferrersWithoutAnInverseMoveToTheSurvivor(_ kind: StoreKind, _ resolution: MergeResolution) async throws {
        let stack = try await TestStack(kind, schema: Schema(Author.self, Book.self, Citation.self))
        let context = stack.container.newContext()
        context.mergePolicy = .custom { conflicts in
            Dictionary(uniqueKeysWithValues: conflicts.map { ($0.objectID, resolution) })
        }
        let saved = Citation(text: "saved before")
        context.insert(saved)
        try context.save()

        let first = Author(email: "a@example.com", name: "First")
        let second = Author(email: "a@example.com", name: "Second")
        context.insert(first)
        context.insert(second)
        let new = Citation(text: "new")
        context.insert(new)
        new.source = second
        saved.source = second
        try context.save()

        #expect(saved.source === first)
        #expect(new.source === first)
        let stored = try stack.container.perform { context in
            try context.fetch(FetchRequest<Citation>(sortBy: [SortDescriptor(\.text)])).map { $0.source?.email }
        }
        #expect(stored == ["a@example.com", "a@example.com"])
    }

    @Test(arguments: testedStoreKinds, [MergePolicy.mergeByPropertyObjectTrump, .overwrite])
    func keepingAKeyCannotDeleteTheRowThatHeldItPastADenyRule(_ kind: StoreKind, _ policy: MergePolicy) async throws {
        let stack = try await TestStack(kind, schema: Schema(Crew.self, Sailor.self))
        try stack.container.perform { context in
            let manned = Crew(name: "Manned")
            context.insert(manned)
            context.insert(Crew(name: "Empty"))
            let sailor = Sailor(name: "S")
            context.insert(sailor)
            sailor.crew = manned
            try context.save()
        }
        let context = stack.container.newContext()
        context.mergePolicy = policy
        let empty = try #require(try context.fetch(FetchRequest<Crew>(predicate: #Predicate { $0.name == "Empty" })).first)
        empty.name = "Manned"
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validation)
        #expect(error?.propertyName == "sailors")
        #expect(context.deletedObjects.isEmpty, "the crew holding the name was not deleted")
        #expect(empty.name == "Manned", "the context keeps its change")
        let stored = try stack.container.perform { context in
            try context.fetch(FetchRequest<Crew>(sortBy: [SortDescriptor(\.name)])).map { "\($0.name):\($0.sailors.count)" }
        }
        #expect(stored == ["Empty:0", "Manned:1"])
    }
}
