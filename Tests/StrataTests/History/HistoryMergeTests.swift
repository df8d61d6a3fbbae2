import Foundation
import Strata
import Testing

@Suite("Merging history into contexts")
struct HistoryMergeTests {
    /// A context that does not merge saves automatically, so only history
    /// brings other saves in (as for another process's saves).
    private func isolatedContext(_ container: PersistentContainer) -> ManagedObjectContext {
        let context = container.newContext()
        context.automaticallyMergesChangesFromParent = false
        return context
    }

    @Test(arguments: testedStoreKinds)
    func mergingATransactionUpdatesAndRemovesTheObjectsAContextHolds(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let container = stack.container
        let context = isolatedContext(container)
        let dune = Book(title: "Dune", year: 1965)
        let emma = Book(title: "Emma", year: 1815)
        let memo = Memo(title: "Plan", body: "draft")
        context.insert(dune)
        context.insert(emma)
        context.insert(memo)
        try context.save()
        memo.body = "mine, unsaved"
        let start = try container.currentHistoryToken()
        let (duneID, emmaID, memoID) = (dune.objectID, emma.objectID, memo.objectID)

        try save(in: container, author: "extension") { other in
            let book = try other.existingObject(with: duneID, as: Book.self)
            book.title = "Dune (revised)"
            book.rating = 5
            let memo = try other.existingObject(with: memoID, as: Memo.self)
            memo.title = "Plan B"
            memo.body = "theirs"
            other.delete(try other.existingObject(with: emmaID, as: Book.self))
        }
        #expect(dune.title == "Dune")

        let transactions = try container.fetchHistory(after: start)
        try #require(transactions.count == 1)
        context.merge(transactions[0])

        #expect(dune.title == "Dune (revised)")
        #expect(dune.rating == 5)
        #expect(!dune.hasChanges)
        #expect(memo.title == "Plan B")
        #expect(memo.body == "mine, unsaved") // unsaved local change kept
        #expect(memo.isUpdated)
        #expect(context.registeredObject(for: emmaID) == nil)
        #expect(try context.fetch(FetchRequest<Book>()).map(\.title) == ["Dune (revised)"])
        #expect(context.objectGraphProblems().isEmpty)
        // The merged versions are the stored ones, so saving local changes does not conflict.
        try context.save()
    }

    @Test(arguments: testedStoreKinds)
    func mergedInsertsShowInLoadedToManyRelationships(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let container = stack.container
        let context = isolatedContext(container)
        let author = Author(email: "fh@example.com", name: "Frank")
        context.insert(author)
        try context.save()
        #expect(author.books.isEmpty)
        let authorID = author.objectID
        let start = try container.currentHistoryToken()

        let bookID = try save(in: container, author: "extension") { other in
            let book = Book(title: "Dune", year: 1965)
            book.author = try other.existingObject(with: authorID, as: Author.self)
            other.insert(book)
            try other.save()
            return book.objectID
        }
        #expect(author.books.isEmpty)
        context.merge(try container.fetchHistory(after: start))
        #expect(author.books.map(\.title) == ["Dune"])

        let next = try container.currentHistoryToken()
        try save(in: container) { other in other.delete(try other.existingObject(with: bookID, as: Book.self)) }
        context.merge(try container.fetchHistory(after: next))
        #expect(author.books.isEmpty)
        #expect(context.registeredObject(for: bookID) == nil)
        #expect(context.objectGraphProblems().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func mergingSeveralTransactionsSettlesOnTheirOutcome(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let container = stack.container
        let context = isolatedContext(container)
        let memo = Memo(title: "Plan")
        context.insert(memo)
        try context.save()
        let memoID = memo.objectID
        let start = try container.currentHistoryToken()
        try save(in: container) { try $0.existingObject(with: memoID, as: Memo.self).words = 3 }
        try save(in: container) { $0.delete(try $0.existingObject(with: memoID, as: Memo.self)) }

        var merged: [ChangeSet] = []
        let observation = context.onMerge { merged.append($0) }
        context.merge(try container.fetchHistory(after: start))
        #expect(context.registeredObject(for: memoID) == nil)
        #expect(merged.count == 1)
        #expect(merged.first?.deleted.map(\.objectID) == [memoID])
        _ = observation
    }

    @Test
    func aSecondContainerOnTheSameFileCatchesUpThroughHistory() async throws {
        let stack = try await TestStack(history: .file)
        let app = stack.container
        let context = app.newContext()
        let book = Book(title: "Dune", year: 1965)
        context.insert(book)
        try context.save()
        let bookID = book.objectID
        let start = try app.currentHistoryToken()

        // Another container on the file: its saves reach `app` only through history.
        let extensionContainer = try PersistentContainer(name: "Extension", schema: historySchema)
        extensionContainer.storeDescriptions = app.storeDescriptions
        try await extensionContainer.loadPersistentStores()
        try save(in: extensionContainer, author: "extension") { other in
            try other.existingObject(with: bookID, as: Book.self).title = "Dune (extension)"
        }
        #expect(book.title == "Dune")

        let transactions = try app.fetchHistory(after: start)
        #expect(transactions.map(\.author) == ["extension"])
        #expect(transactions.allSatisfy { $0.origin == extensionContainer.historyOrigin && $0.origin != app.historyOrigin })
        context.merge(transactions)
        #expect(book.title == "Dune (extension)")
        try extensionContainer.persistentStoreCoordinator.close()
    }
}
