import Foundation
import Strata
import Testing

/// A request's results as snapshots, emitted after each commit that changes them.
@Suite("Snapshot sequences")
struct SnapshotSequenceTests {
    @Test(arguments: testedStoreKinds)
    func resultsComeFirstThenAfterEachCommitThatChangesThem(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let request = FetchRequest<Book>(predicate: #Predicate { $0.year > 1900 }, sortBy: [SortDescriptor(\.title)])
        var results = stack.container.snapshots(of: request).makeAsyncIterator()
        #expect(try await results.next()?.map(\.title) == [])

        let context = stack.container.newContext()
        let a = Book(title: "A", year: 2000)
        context.insert(a)
        try context.save()
        #expect(try await results.next()?.map(\.title) == ["A"])

        // Commits that change nothing the request returns emit nothing:
        // another entity, a book that does not match.
        context.insert(Author(email: "x@example.com", name: "X"))
        try context.save()
        context.insert(Book(title: "Old", year: 1800))
        try context.save()
        // A change of a returned object's value does.
        a.rating = 3
        try context.save()
        let changed = try #require(try await results.next())
        #expect(changed.map(\.title) == ["A"])
        #expect(changed.first?.rating == 3)

        // So does a batch operation.
        _ = try stack.container.execute(BatchDeleteRequest<Book>(predicate: #Predicate { $0.title == "A" }))
        #expect(try await results.next()?.map(\.title) == [])
    }
}
