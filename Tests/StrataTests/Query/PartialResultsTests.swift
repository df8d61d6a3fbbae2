import Foundation
import Strata
import StrataTestModels
import Testing

/// `fetchProperties` returns chosen properties as dictionaries, as Core Data's
/// dictionary result type does, saved or not, on every store kind.
@Suite("Partial results")
struct PartialResultsTests {
    private static func fill(_ context: ManagedObjectContext) -> Author {
        let author = Author(email: "le@guin.example", name: "Le Guin")
        context.insert(author)
        for (title, year) in [("A Wizard of Earthsea", 1968), ("The Dispossessed", 1974), ("The Word for World", 1972),
                              ("Lathe of Heaven", 1971), ("Orphan", 1971)] {
            let book = Book(title: title, year: year, rating: year == 1974 ? 4.5 : nil)
            context.insert(book)
            if title != "Orphan" { book.author = author }
        }
        return author
    }

    private static func check(_ context: ManagedObjectContext, author: ObjectID) throws {
        let byYear = FetchRequest<Book>(sortBy: [SortDescriptor(\.year), SortDescriptor(\.title)])
        let rows = try context.fetchProperties([\Book.title, \Book.rating, \Book.author], of: byYear)
        #expect(rows.map { $0["title"] as? String } == ["A Wizard of Earthsea", "Lathe of Heaven", "Orphan", "The Word for World", "The Dispossessed"])
        #expect(rows[4]["rating"] as? Double == 4.5)
        #expect(rows[0]["rating"] == nil, "a nil value leaves its key out")
        #expect(rows[0]["author"] as? ObjectID == author)
        #expect(rows[2]["author"] == nil)

        let years = try context.fetchProperties([\Book.year], of: byYear, distinct: true).map { $0["year"] as? Int }
        #expect(years == [1968, 1971, 1972, 1974])
        var page = byYear
        page.fetchOffset = 1
        page.fetchLimit = 2
        #expect(try context.fetchProperties([\Book.year], of: page, distinct: true).map { $0["year"] as? Int } == [1971, 1972])
        let recent = FetchRequest<Book>(predicate: #Predicate { $0.year > 1970 }, sortBy: [SortDescriptor(\.year)])
        #expect(try context.fetchProperties([\Book.year], of: recent, distinct: true).count == 3)
    }

    @Test(arguments: testedStoreKinds)
    func chosenPropertiesComeBackAsDictionariesSavedOrNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context in
            let author = Self.fill(context)
            try Self.check(context, author: author.objectID)
            try context.save()
            context.reset()
            let saved = try #require(try context.fetch(FetchRequest<Author>()).first)
            try Self.check(context, author: saved.objectID)
        }
    }

    @Test(arguments: testedStoreKinds)
    func aChildReadsItsParentsUnsavedValues(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let parent = stack.container.newContext()
        let author = Self.fill(parent)
        try parent.save()
        let renamed = try #require(try parent.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == "Orphan" })).first)
        renamed.title = "Orphan, renamed"
        let child = parent.newChildContext()
        let titles = try child.fetchProperties([\Book.title, \Book.author], of: FetchRequest<Book>(predicate: #Predicate { $0.year == 1971 }))
        #expect(Set(titles.compactMap { $0["title"] as? String }) == ["Lathe of Heaven", "Orphan, renamed"])
        #expect(titles.compactMap { $0["author"] as? ObjectID } == [author.objectID])
    }

    @Test func aToManyRelationshipIsRefused() async throws {
        let stack = try await TestStack(.memory)
        #expect(throws: StrataError.self) {
            try stack.container.newContext().fetchProperties([\Author.books], of: FetchRequest<Author>())
        }
    }
}
