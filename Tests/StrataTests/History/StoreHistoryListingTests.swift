import Foundation
import Strata
import Testing

/// What `strata history` reads: transactions and their changes, filtered by
/// token and author, without the app's models.
@Suite("Store history listings")
struct StoreHistoryListingTests {
    @Test
    func transactionsComeWithTheirChangesFilteredByTokenAndAuthor() async throws {
        let stack = try await TestStack(history: .file)
        try save(in: stack.container, author: "importer", name: "import") { context in
            context.insert(Book(title: "Dune", year: 1965))
        }
        let id = try save(in: stack.container, author: "editor") { context in
            let book = try #require(try context.fetch(FetchRequest<Book>()).first)
            book.title = "Dune Messiah"
            return book.objectID
        }
        let url = stack.directory.file("History.sqlite")

        let all = try StoreHistoryListing(url: url)
        #expect(all.transactions.map(\.author) == ["importer", "editor"])
        #expect(all.transactions.first?.contextName == "import")
        #expect(all.transactions.first?.changes.map(\.type) == [.insert])
        #expect(all.transactions.last?.changes.first?.updatedProperties == ["title"])
        #expect(all.transactions.last?.changes.first?.primaryKey == id.primaryKey)

        let first = try #require(all.transactions.first?.token)
        #expect(try StoreHistoryListing(url: url, after: first).transactions.map(\.author) == ["editor"])
        #expect(try StoreHistoryListing(url: url, author: "importer").transactions.count == 1)
    }

    @Test
    func aStoreWithoutHistorySaysSo() async throws {
        let stack = try await TestStack(.file, schema: librarySchema, name: "Plain")
        try stack.container.perform { context in context.insert(Book(title: "Dune", year: 1965)) }
        let error = #expect(throws: StrataError.self) { try StoreHistoryListing(url: stack.directory.file("Plain.sqlite")) }
        #expect(error?.message.contains("keeps no history") == true)
    }
}
