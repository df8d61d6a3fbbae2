import Foundation
import Strata
import StrataPostgres
import StrataTestModels
import Testing

/// `strata` given a PostgreSQL URL reads the store as it reads a file, and
/// changes nothing.
@Suite("The strata command on PostgreSQL", .enabled(if: postgresTestServer != nil))
struct StrataCommandPostgresTests {
    @Test func theInspectingCommandsReadAStoreByItsURL() async throws {
        let directory = TemporaryDirectory()
        let server = try #require(postgresServer(for: directory.url))
        try? server.destroyStore()
        let container = try PersistentContainer(name: "Library", schema: librarySchema)
        var description = StoreDescription.postgres(server)
        description.historyTracking = true
        container.storeDescriptions = [description]
        try await container.loadPersistentStores()
        try container.perform { context in
            context.transactionAuthor = "importer"
            let author = Author(email: "le.guin@example.com", name: "Ursula K. Le Guin")
            context.insert(author)
            for (title, year) in [("The Dispossessed", 1974), ("The Lathe of Heaven", 1971), ("Always Coming Home", 1985)] {
                Book(title: title, year: year).author = author
            }
        }
        try container.persistentStoreCoordinator.close()
        let base = try #require(postgresTestServerURL)
        let url = base + (base.contains("?") ? "&" : "?") + "schema=\(server.schemaName)"

        let inspected = try run("strata", ["inspect", url], in: directory.url)
        #expect(inspected.status == 0, "\(inspected.errors)")
        #expect(inspected.output.contains("Author: 1 row") && inspected.output.contains("Book: 3 rows"), "\(inspected.output)")
        #expect(inspected.output.contains("history: 1 transaction"), "\(inspected.output)")

        let fetched = try run("strata", ["fetch", url, "Book", "--where", "year >= 1970 and year < 1980", "--sort", "-year"], in: directory.url)
        #expect(fetched.status == 0, "\(fetched.errors)")
        let lines = fetched.output.split(separator: "\n")
        #expect(lines.count == 5 && lines[2].contains("The Dispossessed") && lines[3].contains("The Lathe of Heaven"), "\(fetched.output)")
        let json = try run("strata", ["fetch", url, "Author", "--json"], in: directory.url)
        let authors = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
        #expect(authors?.first?["email"] as? String == "le.guin@example.com")

        let history = try run("strata", ["history", url, "--author", "importer"], in: directory.url)
        #expect(history.status == 0 && history.output.contains("importer") && history.output.contains("insert Book"), "\(history.output)")
        let check = try run("strata", ["check", url], in: directory.url)
        #expect(check.status == 0 && check.output.hasSuffix(": ok\n"), "\(check.output)\(check.errors)")
        let schema = try run("strata", ["schema", url], in: directory.url)
        #expect(try JSONDecoder().decode(SchemaSummary.self, from: Data(schema.output.utf8)).fingerprint == librarySchema.fingerprint)

        // Exported from PostgreSQL, imported into a SQLite file: the same rows and order.
        let exported = try run("strata", ["export", url, "--to", "json", "-o", "library.json"], in: directory.url)
        #expect(exported.status == 0, "\(exported.errors)")
        let imported = try run("strata", ["import", "Library.sqlite", "library.json"], in: directory.url)
        #expect(imported.status == 0, "\(imported.errors)")
        let copy = try PersistentContainer(name: "Copy", schema: librarySchema)
        copy.storeDescriptions = [StoreDescription(url: directory.file("Library.sqlite"))]
        try await copy.loadPersistentStores()
        let books = try copy.perform { context in
            try context.fetch(FetchRequest<Author>()).first?.books.map(\.title) ?? []
        }
        #expect(books == ["The Dispossessed", "The Lathe of Heaven", "Always Coming Home"])

        // A namespace without a store is said to be one, in one line.
        let none = try run("strata", ["inspect", base + (base.contains("?") ? "&" : "?") + "schema=no_store_here"], in: directory.url)
        #expect(none.status == 1 && none.errorLines.count == 1 && none.errors.contains("holds no Strata store"), "\(none.errors)")
        try server.destroyStore()
    }
}
