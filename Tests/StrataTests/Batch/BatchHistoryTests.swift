import Foundation
import Strata
import Testing

@Suite("Batch operations in history")
struct BatchHistoryTests {
    @Test(arguments: testedStoreKinds)
    func eachBatchOperationIsOneHistoryTransactionListingItsObjectIDs(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let container = stack.container
        let authorID = try container.perform { context in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            try context.save()
            return author.objectID
        }
        let start = try #require(container.fetchHistory(after: nil).last?.token)

        let inserted = try container.execute(BatchInsertRequest<Book>(objects: [
            ["title": "One", "year": 1, "author": authorID],
            ["title": "Two", "year": 2, "author": authorID],
        ], resultType: .objectIDs), author: "importer")
        var request = BatchUpdateRequest<Book>(predicate: #Predicate { $0.year == 1 }, resultType: .objectIDs)
        request.set(\.rating, to: 4.0)
        let updated = try container.execute(request, author: "editor")
        let deleted = try container.execute(BatchDeleteRequest<Author>(objectIDs: [authorID]), author: "cleaner")

        let history = try container.fetchHistory(after: start)
        try #require(history.count == 3)
        #expect(history.map(\.author) == ["importer", "editor", "cleaner"])
        #expect(inserted.changes.historyToken == history[0].token)
        #expect(deleted.changes.historyToken == history[2].token)

        #expect(history[0].changes.filter { $0.changeType == .insert }.map(\.objectID) == inserted.objectIDs)
        // The owner whose to-many gained members is recorded as updated.
        #expect(history[0].change(for: authorID)?.updatedProperties == ["books"])

        #expect(history[1].changes.map(\.objectID) == updated.objectIDs)
        #expect(history[1].changes.allSatisfy { $0.changeType == .update && $0.updatedProperties == ["rating"] })

        // The author and the books its `.cascade` rule took with it.
        #expect(Set(history[2].changes.map(\.objectID)) == Set([authorID] + inserted.objectIDs))
        #expect(history[2].changes.allSatisfy { $0.changeType == .delete })
    }

    @Test(arguments: testedStoreKinds)
    func aBatchDeleteLeavesTombstonesWithPreservedValues(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let container = stack.container
        try container.execute(BatchInsertRequest<Memo>(objects: [
            ["title": "Keep me", "body": "gone", "words": 2],
            ["title": "Other", "body": "stays", "words": 1],
        ]))
        let result = try container.execute(
            BatchDeleteRequest<Memo>(predicate: #Predicate { $0.words > 1 }, resultType: .objectIDs))
        let transaction = try #require(container.fetchHistory(after: nil).last)
        let id = try #require(result.objectIDs.first)
        let change = try #require(transaction.change(for: id))
        #expect(change.changeType == .delete)
        #expect(change.tombstone == ["title": .text("Keep me")])
    }
}
