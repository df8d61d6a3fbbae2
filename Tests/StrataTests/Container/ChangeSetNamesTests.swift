import Foundation
import Strata
import Testing

@Suite("Change sets name their properties")
struct ChangeSetNamesTests {
    @Test(arguments: testedStoreKinds)
    func aMergedUpdateListsThePropertiesItChangedByName(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let watcher = stack.container.newContext()
        watcher.automaticallyMergesChangesFromParent = true
        var merged: [ChangeSet] = []
        let observation = watcher.onMerge { merged.append($0) }
        let id = try stack.container.perform { context throws in
            let book = Book(title: "Dune", year: 1965)
            context.insert(book)
            try context.save()
            book.rating = 4.5
            book.title = "Dune Messiah"
            return book.objectID
        }
        watcher.mergePendingChanges()
        withExtendedLifetime(observation) {}
        #expect(merged.count == 2)
        let insert = try #require(merged.first?.inserted.first)
        #expect(insert.entityName == "Book")
        #expect(Set(insert.propertyNames) == ["title", "year", "rating", "author"])
        #expect(insert.value(forProperty: "year") == .integer(1965))
        let update = try #require(merged.last?.updated.first)
        #expect(update.objectID == id)
        #expect(Set(update.propertyNames) == ["title", "rating"])
        #expect(update.valuesByName == ["title": .text("Dune Messiah"), "rating": .real(4.5)])
        #expect(update.value(forProperty: "year") == nil, "an update names only what it wrote")
    }

    @Test(arguments: testedStoreKinds)
    func batchResultsNameTheirProperties(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.execute(BatchInsertRequest<Book>(objects: [["title": "Emma", "year": 1815]]))
        var request = BatchUpdateRequest<Book>()
        request.set(\.rating, to: 3.0)
        let result = try stack.container.execute(request)
        #expect(result.changes.updated.map(\.propertyNames) == [["rating"]])
        #expect(result.changes.updated.first?.value(forProperty: "rating") == .real(3))
    }
}
