import Foundation
import GRDB
import Strata
import Testing

@Suite("Recording persistent history")
struct HistoryRecordingTests {
    @Test(arguments: testedStoreKinds)
    func twoSavesByDifferentAuthorsComeBackInOrderWithTheirAuthorsAndChangeTypes(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let container = stack.container
        let (duneID, emmaID) = try save(in: container, author: "app", name: "editor") { context in
            let dune = Book(title: "Dune", year: 1965)
            let emma = Book(title: "Emma", year: 1815)
            context.insert(dune)
            context.insert(emma)
            try context.save()
            return (dune.objectID, emma.objectID)
        }
        try save(in: container, author: "importer", name: "sync") { context in
            try context.existingObject(with: duneID, as: Book.self).rating = 4.5
            context.delete(try context.existingObject(with: emmaID, as: Book.self))
        }

        let history = try container.fetchHistory(after: nil)
        try #require(history.count == 2)
        #expect(history[0].token < history[1].token)
        #expect(history.map(\.author) == ["app", "importer"])
        #expect(history.map(\.contextName) == ["editor", "sync"])
        #expect(history[0].changes.map(\.changeType) == [.insert, .insert])
        #expect(Set(history[0].changes.map(\.objectID)) == [duneID, emmaID])
        #expect(history[1].change(for: duneID)?.changeType == .update)
        #expect(history[1].change(for: emmaID)?.changeType == .delete)
        #expect(history[1].changes.allSatisfy { $0.entityName == "Book" })
        #expect(history.allSatisfy { $0.processID == ProcessInfo.processInfo.processIdentifier })
        #expect(history.allSatisfy { $0.origin == container.historyOrigin })
        #expect(history[0].timestamp <= history[1].timestamp)
        #expect(try container.currentHistoryToken() == history[1].token)
    }

    @Test(arguments: testedStoreKinds)
    func updatedPropertiesNameExactlyTheChangedAttributesAndRelationships(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let (bookID, authorID) = try save(in: stack.container) { context in
            let book = Book(title: "Dune", year: 1965)
            let author = Author(email: "fh@example.com", name: "Frank")
            context.insert(book)
            context.insert(author)
            try context.save()
            return (book.objectID, author.objectID)
        }
        try save(in: stack.container) { context in
            let book = try context.existingObject(with: bookID, as: Book.self)
            book.title = "Dune Messiah"
            book.rating = 4
            book.year = 1965 // the same value: not a change
        }
        try save(in: stack.container) { context in
            let book = try context.existingObject(with: bookID, as: Book.self)
            book.author = try context.existingObject(with: authorID, as: Author.self)
        }

        let history = try stack.container.fetchHistory(after: nil)
        try #require(history.count == 3)
        #expect(history[1].changes.count == 1)
        #expect(history[1].change(for: bookID)?.updatedProperties == ["title", "rating"])
        #expect(history[2].change(for: bookID)?.updatedProperties == ["author"])
        // The inverse side changed too: the author's books gained one.
        #expect(history[2].change(for: authorID)?.updatedProperties == ["books"])
        #expect(history[0].changes.allSatisfy { $0.updatedProperties.isEmpty && $0.oldValues == nil && $0.newValues == nil })
    }

    @Test(arguments: testedStoreKinds)
    func aDeletionsTombstoneCarriesOnlyThePreservedValues(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let (memoID, bookID) = try save(in: stack.container) { context in
            let memo = Memo(title: "Groceries", body: "milk", words: 1)
            let book = Book(title: "Dune", year: 1965)
            context.insert(memo)
            context.insert(book)
            try context.save()
            memo.title = "Shopping" // the tombstone keeps the last saved value
            return (memo.objectID, book.objectID)
        }
        try save(in: stack.container) { context in
            context.delete(try context.existingObject(with: memoID, as: Memo.self))
            context.delete(try context.existingObject(with: bookID, as: Book.self))
        }

        let deletion = try #require(try stack.container.fetchHistory(after: nil).last)
        #expect(deletion.change(for: memoID)?.tombstone == ["title": .text("Shopping")])
        #expect(deletion.change(for: bookID)?.changeType == .delete)
        #expect(deletion.change(for: bookID)?.tombstone == nil)
    }

    @Test(arguments: testedStoreKinds)
    func oldAndNewValuesAreRecordedWhenTheStoreAsksForThem(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind, recordsValueChanges: true)
        let memoID = try save(in: stack.container) { context in
            let memo = Memo(title: "Plan", body: "draft", words: 1)
            context.insert(memo)
            try context.save()
            return memo.objectID
        }
        try save(in: stack.container) { context in
            let memo = try context.existingObject(with: memoID, as: Memo.self)
            memo.body = "final"
            memo.words = 2
        }
        try save(in: stack.container) { context in
            context.delete(try context.existingObject(with: memoID, as: Memo.self))
        }

        let changes = try stack.container.fetchHistory(after: nil).compactMap { $0.change(for: memoID) }
        try #require(changes.count == 3)
        #expect(changes[0].newValues == ["title": .text("Plan"), "body": .text("draft"), "words": .integer(1)])
        #expect(changes[0].oldValues == nil)
        #expect(changes[1].oldValues == ["body": .text("draft"), "words": .integer(1)])
        #expect(changes[1].newValues == ["body": .text("final"), "words": .integer(2)])
        #expect(changes[2].oldValues == ["title": .text("Plan"), "body": .text("final"), "words": .integer(2)])
        #expect(changes[2].tombstone == ["title": .text("Plan")])
    }

    @Test(arguments: testedStoreKinds)
    func aSavesChangeSetCarriesTheTokenOfTheTransactionItRecorded(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let observer = stack.container.newContext()
        observer.automaticallyMergesChangesFromParent = true
        var tokens: [HistoryToken?] = []
        let observation = observer.onMerge { tokens.append($0.historyToken) }
        try save(in: stack.container) { $0.insert(Book(title: "Dune", year: 1965)) }
        observer.mergePendingChanges()
        #expect(tokens == [try stack.container.currentHistoryToken()])
        _ = observation
    }

    @Test(arguments: testedStoreKinds)
    func aLargeSaveRecordsEveryChange(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        try save(in: stack.container) { context in
            for index in 0..<5_000 { context.insert(Memo(title: "memo \(index)", words: index)) }
        }
        let ids = try save(in: stack.container) { context in
            let memos = try context.fetch(FetchRequest<Memo>())
            for memo in memos { context.delete(memo) }
            return memos.map(\.objectID)
        }
        let history = try stack.container.fetchHistory(after: nil)
        #expect(history.map(\.changes.count) == [5_000, 5_000])
        #expect(Set(history[1].changes.map(\.objectID)) == Set(ids))
        #expect(history[1].changes.allSatisfy { $0.tombstone?["title"] != nil })
    }

    @Test
    func withHistoryOffThereAreNoHistoryTablesAndFetchingSaysSo() async throws {
        let stack = try await TestStack(.file, schema: historySchema)
        try save(in: stack.container) { $0.insert(Memo(title: "Plan")) }
        let error = #expect(throws: StrataError.self) { try stack.container.fetchHistory(after: nil) }
        #expect(error?.code == .historyTrackingDisabled)
        #expect(error?.message.contains("historyTracking") == true)
        #expect(throws: StrataError.self) { try stack.container.currentHistoryToken() }
        try stack.container.persistentStoreCoordinator.close()

        let url = stack.container.storeDescriptions[0].url
        func historyTables() throws -> [String] {
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            return try queue.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE '_strata_history%'")
            }
        }
        #expect(try historyTables().isEmpty)

        // Turning history on later adds the tables; the store stays compatible.
        let reopened = try PersistentContainer(name: "Reopened", schema: historySchema)
        reopened.storeDescriptions = stack.container.storeDescriptions
        reopened.storeDescriptions[0].historyTracking = true
        try await reopened.loadPersistentStores()
        #expect(try reopened.fetchHistory(after: nil).isEmpty)
        try save(in: reopened, author: "later") { $0.insert(Memo(title: "Later")) }
        #expect(try reopened.fetchHistory(after: nil).map(\.author) == ["later"])
        try reopened.persistentStoreCoordinator.close()
        #expect(try historyTables().count >= 2)
    }
}
