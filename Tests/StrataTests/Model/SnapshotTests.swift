import Foundation
import Strata
import Testing

@Suite("Snapshots")
struct SnapshotTests {
    @Test(arguments: testedStoreKinds)
    func aSnapshotCarriesValuesAndRelatedIDsAcrossDomains(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let (authorID, bookIDs) = try stack.container.perform { context in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            let books = [Book(title: "One", year: 1, rating: 4), Book(title: "Two", year: 2)]
            for book in books { book.author = author }
            try context.save()
            return (author.objectID, books.map(\.objectID))
        }
        let snapshot = try await stack.container.performBackgroundTask { context in
            try context.existingObject(with: bookIDs[0], as: Book.self).snapshot()
        }
        #expect(snapshot.objectID == bookIDs[0])
        #expect(snapshot.title == "One")
        #expect(snapshot.year == 1)
        #expect(snapshot.rating == 4)
        #expect(snapshot.author == authorID)
        let authorSnapshot = try await stack.container.performBackgroundTask { context in
            Snapshot(try context.existingObject(with: authorID, as: Author.self))
        }
        #expect(authorSnapshot.books == bookIDs)
        #expect(authorSnapshot.email == "a@example.com")
    }

    @Test func aSnapshotIsImmutableAndIncludesUnsavedValues() async throws {
        let stack = try await TestStack(.inMemory, schema: Schema(Sample.self))
        try stack.container.perform { context in
            let sample = Sample(seed: 3)
            context.insert(sample)
            sample.optionalGenre = .fiction
            let snapshot = sample.snapshot()
            sample.optionalGenre = nil
            sample.string = "later"
            #expect(snapshot.optionalGenre == .fiction)
            #expect(snapshot.string == "héllo, wörld \u{1F600} 3")
            #expect(snapshot.dimensions == Dimensions(width: 1.25, height: 2, labels: ["a", "b"]))
            #expect(snapshot.priority == .high)
            #expect(snapshot.optionalDimensions == Dimensions(width: 0, height: 0, labels: []))
            #expect(snapshot.objectID.isTemporary)
        }
    }
}
