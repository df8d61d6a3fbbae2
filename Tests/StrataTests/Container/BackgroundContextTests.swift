import Foundation
import Synchronization
import Strata
import Testing

@Suite("Background contexts")
struct BackgroundContextTests {
    @Test(arguments: testedStoreKinds)
    func aBackgroundContextIsConfiguredWhereItIsCreated(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let importer = stack.container.newBackgroundContext(
            name: "importer", transactionAuthor: "sync", mergePolicy: .mergeByPropertyObjectTrump)
        let settings = try await importer.perform { context in
            context.insert(Author(email: "a@example.com", name: "A"))
            try context.save()
            return (context.name, context.transactionAuthor, "\(context.mergePolicy)", context.automaticallyMergesChangesFromParent)
        }
        #expect(settings.0 == "importer")
        #expect(settings.1 == "sync")
        #expect(settings.2 == "\(MergePolicy.mergeByPropertyObjectTrump)")
        #expect(!settings.3)
        let transaction = try #require(try stack.container.fetchHistory(after: nil).last)
        #expect(transaction.author == "sync")
        #expect(transaction.contextName == "importer")

        // Its merge policy is in force: a second author with the same email updates the first.
        try await importer.perform { context in
            context.insert(Author(email: "a@example.com", name: "A again"))
            try context.save()
        }
        let names = try stack.container.perform { context in try context.fetch(FetchRequest<Author>()).map(\.name) }
        #expect(names == ["A again"])
    }

    @Test(arguments: testedStoreKinds)
    func aBackgroundContextCreatedMergingTakesInOtherSavesOnItsOwn(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let reader = stack.container.newBackgroundContext(automaticallyMergesChangesFromParent: true)
        let id = try stack.container.perform { context in
            let book = Book(title: "Dune", year: 1965)
            context.insert(book)
            try context.save()
            return book.objectID
        }
        let merged = Mutex(0)
        try await reader.perform { context in
            _ = try context.existingObject(with: id, as: Book.self)
            // Kept for the test's length: counts merges the actor runs by itself.
            _ = Unmanaged.passRetained(context.onMerge { _ in merged.withLock { $0 += 1 } })
        }
        try stack.container.perform { context in
            try context.existingObject(with: id, as: Book.self).title = "Dune Messiah"
        }
        // No call into the reader: the merge is scheduled on its actor.
        for _ in 0..<1000 where merged.withLock({ $0 }) == 0 {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(merged.withLock { $0 } == 1)
        let title = try await reader.perform { context in (context.registeredObject(for: id) as? Book)?.title }
        #expect(title == "Dune Messiah")
    }
}
