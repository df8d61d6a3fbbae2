import Foundation
import Strata
import Testing

@Suite("Merge policies: concurrent writers")
struct ConcurrentOverwriteTests {
    @Test(arguments: testedStoreKinds)
    func hundredTasksAddingAndDeletingBooksKeepBothSidesInAgreement(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let container = stack.container
        let authorID = try container.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            try context.save()
            return author.objectID
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                let deletes = Bool.random()
                group.addTask {
                    try await container.performBackgroundTask { context in
                        context.mergePolicy = .overwrite
                        let author = try context.existingObject(with: authorID, as: Author.self)
                        if deletes {
                            for book in author.books { context.delete(book) }
                        } else {
                            let book = Book(title: "Book \(index)", year: index)
                            context.insert(book)
                            author.books.append(book)
                        }
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        let check = try container.perform { context throws in
            let author = try context.existingObject(with: authorID, as: Author.self)
            let books = try context.fetch(FetchRequest<Book>())
            let owned = books.filter { $0.author === author }
            return (
                stored: books.count, owned: owned.count, orphans: books.filter { $0.author == nil }.count,
                members: author.books.count,
                agree: author.books.allSatisfy { $0.author === author }
                    && Set(author.books.map(\.objectID)) == Set(owned.map(\.objectID)))
        }
        #expect(check.agree)
        #expect(check.members == check.owned)
        #expect(check.owned == check.stored - check.orphans)
    }
}
