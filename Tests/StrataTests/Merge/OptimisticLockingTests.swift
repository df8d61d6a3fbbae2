import Foundation
import Strata
import Testing

/// A book's stored attributes, for comparing outcomes.
struct BookState: Equatable, Sendable {
    var title: String
    var year: Int
    var rating: Double?
}

/// Two contexts that have both read one saved book ("Dune", 1965, no rating).
struct LockingScenario {
    let stack: TestStack
    let mine: ManagedObjectContext
    let theirs: ManagedObjectContext
    let id: ObjectID
    let myBook: Book
    let theirBook: Book

    init(_ kind: StoreKind, policy: MergePolicy) async throws {
        stack = try await TestStack(kind)
        let id = try stack.container.perform { context throws in
            let book = Book(title: "Dune", year: 1965)
            context.insert(book)
            try context.save()
            return book.objectID
        }
        self.id = id
        mine = stack.container.newContext()
        mine.mergePolicy = policy
        theirs = stack.container.newContext()
        myBook = try mine.existingObject(with: id, as: Book.self)
        theirBook = try theirs.existingObject(with: id, as: Book.self)
        _ = myBook.title
        _ = theirBook.title
    }

    /// Another context changes the title and year; this one the title and rating.
    func editBothSides() throws {
        theirBook.title = "Theirs"
        theirBook.year = 2000
        try theirs.save()
        myBook.title = "Mine"
        myBook.rating = 4.5
    }

    /// The book as the store holds it now, read by a fresh context (nil when deleted).
    func stored() throws -> BookState? {
        #expect(mine.objectGraphProblems().isEmpty)
        #expect(theirs.objectGraphProblems().isEmpty)
        let id = self.id
        return try stack.container.perform { context throws in
            try context.fetch(FetchRequest<Book>()).first { $0.objectID == id }
                .map { BookState(title: $0.title, year: $0.year, rating: $0.rating) }
        }
    }
}

@Suite("Merge policies: optimistic locking")
struct OptimisticLockingTests {
    @Test(arguments: testedStoreKinds)
    func errorPolicyThrowsWithBothSidesValuesAndWritesNothing(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .error)
        try scenario.editBothSides()
        let error = try #require(throws: StrataError.self) { try scenario.mine.save() }
        #expect(error.code == .mergeConflict)
        #expect(error.objectIDs == [scenario.id])
        let conflict = try #require(error.conflicts.first)
        #expect(conflict.kind == .optimisticLocking)
        #expect(conflict.objectValues["title"] == .text("Mine"))
        #expect(conflict.cachedValues["title"] == .text("Dune"))
        #expect(conflict.storedValues?["title"] == .text("Theirs"))
        #expect(conflict.changedInStore == ["title", "year"])
        #expect(conflict.storedVersion == 2 && conflict.cachedVersion == 1)
        #expect(!error.message.contains("Mine") && !error.message.contains("Theirs"))
        #expect(try scenario.stored() == BookState(title: "Theirs", year: 2000, rating: nil))
        #expect(scenario.mine.hasChanges)
        #expect(scenario.myBook.title == "Mine")
    }

    @Test(arguments: testedStoreKinds)
    func storeTrumpKeepsTheStoreValueForPropertiesChangedOnBothSides(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .mergeByPropertyStoreTrump)
        try scenario.editBothSides()
        try scenario.mine.save()
        let expected = BookState(title: "Theirs", year: 2000, rating: 4.5)
        #expect(try scenario.stored() == expected)
        #expect(BookState(title: scenario.myBook.title, year: scenario.myBook.year, rating: scenario.myBook.rating) == expected)
        #expect(!scenario.mine.hasChanges)
    }

    @Test(arguments: testedStoreKinds)
    func objectTrumpKeepsThisContextsChangesAndTheStoresOthers(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .mergeByPropertyObjectTrump)
        try scenario.editBothSides()
        try scenario.mine.save()
        let expected = BookState(title: "Mine", year: 2000, rating: 4.5)
        #expect(try scenario.stored() == expected)
        #expect(BookState(title: scenario.myBook.title, year: scenario.myBook.year, rating: scenario.myBook.rating) == expected)
    }

    @Test(arguments: testedStoreKinds)
    func overwriteWritesTheWholeObjectAsThisContextHasIt(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .overwrite)
        try scenario.editBothSides()
        try scenario.mine.save()
        #expect(try scenario.stored() == BookState(title: "Mine", year: 1965, rating: 4.5))
        #expect(scenario.myBook.year == 1965)
    }

    @Test(arguments: testedStoreKinds)
    func rollbackDropsThisContextsChangesAndKeepsTheStoredState(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .rollback)
        try scenario.editBothSides()
        try scenario.mine.save()
        let expected = BookState(title: "Theirs", year: 2000, rating: nil)
        #expect(try scenario.stored() == expected)
        #expect(BookState(title: scenario.myBook.title, year: scenario.myBook.year, rating: scenario.myBook.rating) == expected)
        #expect(!scenario.mine.hasChanges)
    }

    @Test(arguments: testedStoreKinds)
    func aSaveRetriedAfterResolutionChecksTheNewVersion(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .mergeByPropertyObjectTrump)
        try scenario.editBothSides()
        try scenario.mine.save()
        scenario.theirBook.year = 1999   // `theirs` read version 2; the store is at 3 now
        scenario.theirs.mergePolicy = .error
        #expect(throws: StrataError.self) { try scenario.theirs.save() }
    }

    @Test(arguments: testedStoreKinds)
    func aContextThatMergedTheOtherSaveHasNoConflict(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .error)
        scenario.theirBook.year = 2000
        try scenario.theirs.save()
        scenario.mine.refresh(scenario.myBook, mergeChanges: true)
        scenario.myBook.title = "Mine"
        try scenario.mine.save()
        #expect(try scenario.stored() == BookState(title: "Mine", year: 2000, rating: nil))
    }

    @Test(arguments: testedStoreKinds)
    func everyConflictOfOneSaveIsReported(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .error)
        let ids = try scenario.stack.container.perform { context throws in
            let books = (1...3).map { Book(title: "B\($0)", year: $0) }
            books.forEach { context.insert($0) }
            try context.save()
            return books.map(\.objectID)
        }
        let mineBooks = try ids.map { try scenario.mine.existingObject(with: $0, as: Book.self) }
        let theirBooks = try ids.map { try scenario.theirs.existingObject(with: $0, as: Book.self) }
        theirBooks.forEach { $0.year += 10 }
        try scenario.theirs.save()
        mineBooks.forEach { $0.title += "!" }
        scenario.myBook.title = "Unrelated, no conflict"
        let error = try #require(throws: StrataError.self) { try scenario.mine.save() }
        #expect(Set(error.objectIDs) == Set(ids))
        #expect(error.conflicts.count == 3)
        #expect(try scenario.stored()?.title == "Dune")
    }

    @Test(arguments: testedStoreKinds)
    func aCustomPolicyChoosesPerObject(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .custom { conflicts in
            Dictionary(uniqueKeysWithValues: conflicts.map { ($0.objectID, MergeResolution.mergeByPropertyObjectTrump) })
        })
        try scenario.editBothSides()
        try scenario.mine.save()
        #expect(try scenario.stored() == BookState(title: "Mine", year: 2000, rating: 4.5))
    }

    @Test(arguments: testedStoreKinds)
    func aCustomPolicyThatLeavesAnObjectOutFails(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .custom { _ in [:] })
        try scenario.editBothSides()
        let error = try #require(throws: StrataError.self) { try scenario.mine.save() }
        #expect(error.code == .mergeConflict)
        #expect(try scenario.stored()?.title == "Theirs")
    }
}
