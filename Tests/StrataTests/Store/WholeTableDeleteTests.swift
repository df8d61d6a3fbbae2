import Foundation
import Strata
import Testing

/// Saves that delete every row of an entity empty its table in one statement;
/// these check that nothing else about such a save changes.
@Suite("Deleting every row of an entity")
struct WholeTableDeleteTests {
    static let count = 1_200

    /// A history-tracking stack holding `count` memos and one author.
    static func memos(_ kind: StoreKind) async throws -> TestStack {
        let stack = try await TestStack(history: kind)
        try stack.container.perform { context in
            context.insert(Author(email: "a@example.com", name: "A"))
            for number in 0..<count { context.insert(Memo(title: "memo \(number)", words: number)) }
        }
        return stack
    }

    static func memoCount(_ stack: TestStack) throws -> Int {
        try stack.container.perform { context in try context.count(for: FetchRequest<Memo>()) }
    }

    @Test(arguments: testedStoreKinds)
    func deletingEveryRowRecordsEachDeletionAndLeavesOtherEntities(_ kind: StoreKind) async throws {
        let stack = try await Self.memos(kind)
        let before = try stack.container.currentHistoryToken()
        try stack.container.perform { context in
            for memo in try context.fetch(FetchRequest<Memo>()) { context.delete(memo) }
        }
        #expect(try Self.memoCount(stack) == 0)
        let authors = try stack.container.perform { context in try context.count(for: FetchRequest<Author>()) }
        #expect(authors == 1)
        let transactions = try stack.container.fetchHistory(after: before)
        let deletions = transactions.flatMap(\.changes).filter { $0.changeType == .delete }
        #expect(deletions.count == Self.count)
        let titles = Set(deletions.compactMap { $0.tombstone?["title"] })
        #expect(titles.count == Self.count)
        #expect(titles.contains(.text("memo 0")))
    }

    @Test(arguments: testedStoreKinds)
    func aRowInsertedElsewhereSurvives(_ kind: StoreKind) async throws {
        let stack = try await Self.memos(kind)
        let mine = stack.container.newContext()
        let memos = try mine.fetch(FetchRequest<Memo>())
        try stack.container.perform { context in context.insert(Memo(title: "late")) }
        for memo in memos { mine.delete(memo) }
        try mine.save()
        let left = try stack.container.perform { context in try context.fetch(FetchRequest<Memo>()).map(\.title) }
        #expect(left == ["late"])
    }

    @Test(arguments: testedStoreKinds)
    func aRowChangedElsewhereMakesTheSaveAConflictThatDeletesNothing(_ kind: StoreKind) async throws {
        let stack = try await Self.memos(kind)
        let mine = stack.container.newContext()
        let memos = try mine.fetch(FetchRequest<Memo>(sortBy: [SortDescriptor(\.words)]))
        let changed = memos[7].objectID
        try stack.container.perform { context in
            try context.existingObject(with: changed, as: Memo.self).words = -1
        }
        for memo in memos { mine.delete(memo) }
        let error = try #require(throws: StrataError.self) { try mine.save() }
        #expect(error.code == .mergeConflict)
        #expect(error.conflicts.map(\.objectID) == [changed])
        #expect(try Self.memoCount(stack) == Self.count)
        #expect(mine.deletedObjects.count == Self.count, "the context keeps its deletions")
    }

    /// Memos at `versions` different versions: memo `n` changed `n % versions` times.
    static func memosAtVersions(_ kind: StoreKind, _ versions: Int) async throws -> TestStack {
        let stack = try await Self.memos(kind)
        for round in 1..<versions {
            try stack.container.perform { context in
                for memo in try context.fetch(FetchRequest<Memo>()) where memo.words % versions >= round {
                    memo.title += "'"
                }
            }
        }
        return stack
    }

    @Test(arguments: testedStoreKinds, [3, 6])
    func rowsAtManyVersionsAreDeletedAndAStaleOneAmongThemIsAConflict(_ kind: StoreKind, versions: Int) async throws {
        let stack = try await Self.memosAtVersions(kind, versions)
        let mine = stack.container.newContext()
        let memos = try mine.fetch(FetchRequest<Memo>(sortBy: [SortDescriptor(\.words)]))
        #expect(Set(memos.map { $0.title.filter { $0 == "'" }.count }).count == versions, "the memos are at \(versions) versions")
        // A memo at the highest version, changed again elsewhere.
        let changed = memos[versions - 1].objectID
        try stack.container.perform { context in
            try context.existingObject(with: changed, as: Memo.self).words = -1
        }
        for memo in memos { mine.delete(memo) }
        let error = try #require(throws: StrataError.self) { try mine.save() }
        #expect(error.conflicts.map(\.objectID) == [changed])
        #expect(try Self.memoCount(stack) == Self.count, "a conflict deletes nothing")

        let again = stack.container.newContext()
        for memo in try again.fetch(FetchRequest<Memo>()) { again.delete(memo) }
        try again.save()
        #expect(try Self.memoCount(stack) == 0)
    }

    @Test(arguments: testedStoreKinds)
    func deletingEveryBookNullifiesTheirAuthorsToMany(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context in
            let authors = [Author(email: "a@example.com", name: "A"), Author(email: "b@example.com", name: "B")]
            for author in authors { context.insert(author) }
            for number in 0..<Self.count {
                let book = Book(title: "book \(number)", year: number)
                context.insert(book)
                book.author = authors[number % 2]
            }
        }
        try stack.container.perform { context in
            let authors = try context.fetch(FetchRequest<Author>())
            #expect(authors.map(\.books.count) == [Self.count / 2, Self.count / 2])
            for book in try context.fetch(FetchRequest<Book>()) { context.delete(book) }
            try context.save()
            #expect(authors.allSatisfy { $0.books.isEmpty })
            #expect(context.objectGraphProblems().isEmpty)
        }
        let (books, members) = try stack.container.perform { context in
            (try context.count(for: FetchRequest<Book>()),
             try context.fetch(FetchRequest<Author>()).map(\.books.count))
        }
        #expect(books == 0)
        #expect(members == [0, 0])
    }
}
