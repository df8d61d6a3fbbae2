import Foundation
import Strata
import StrataTestModels
import Testing

/// `strata fetch` and `strata migrate --dry-run`: rows and a migration's
/// preview, read without the app's models and without changing the file.
@Suite("Store rows and migration previews")
struct StoreRowsTests {
    private static func library(_ directory: TemporaryDirectory) async throws -> URL {
        let url = directory.file("Library.sqlite")
        let container = try PersistentContainer(name: "Library", schema: librarySchema)
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        try container.perform { context in
            let leGuin = Author(email: "u@example.com", name: "Le Guin")
            let herbert = Author(email: "f@example.com", name: "Herbert")
            context.insert(leGuin)
            context.insert(herbert)
            Book(title: "The Left Hand of Darkness", year: 1969, rating: 4.5).author = leGuin
            Book(title: "The Dispossessed", year: 1974).author = leGuin
            Book(title: "Dune", year: 1965, rating: 4).author = herbert
            Book(title: "Children of Dune", year: 1976).author = herbert
            try context.save()
        }
        try container.persistentStoreCoordinator.close()
        return url
    }

    private static func titles(_ rows: StoreRows) -> [String] {
        let column = rows.columns.firstIndex(of: "title") ?? 0
        return rows.rows.map { if case .text(let title) = $0[column] { title } else { "?" } }
    }

    @Test func rowsAreFilteredSortedAndLimited() async throws {
        let directory = TemporaryDirectory()
        let url = try await Self.library(directory)
        let before = try Data(contentsOf: url)
        func fetch(_ conditions: [String], sort: [String] = [], limit: Int? = nil) throws -> [String] {
            try Self.titles(StoreRows(
                url: url, entity: "Book",
                conditions: conditions.map { text throws(StrataError) in try StoreRows.Condition(parsing: text) },
                sort: sort.map { text throws(StrataError) in try StoreRows.SortKey(parsing: text) }, limit: limit))
        }
        #expect(try fetch(["year >= 1969"], sort: ["-year"]) == ["Children of Dune", "The Dispossessed", "The Left Hand of Darkness"])
        #expect(try fetch(["year >= 1969"], sort: ["year desc"], limit: 1) == ["Children of Dune"])
        #expect(try fetch(["title contains Dune"], sort: ["title"]) == ["Children of Dune", "Dune"])
        #expect(try fetch(["title beginswith \"The L\""]) == ["The Left Hand of Darkness"])
        #expect(try fetch(["rating = nil"], sort: ["title"]) == ["Children of Dune", "The Dispossessed"])
        #expect(try fetch(["rating > 4", "author = 1"]) == ["The Left Hand of Darkness"])
        let all = try StoreRows(url: url, entity: "Book")
        #expect(all.columns == ["_pk", "title", "year", "rating", "author"])
        #expect(all.rows.count == 4)

        let unknown = #expect(throws: StrataError.self) { try fetch(["pages > 100"]) }
        #expect(unknown?.code == .unsupportedPredicate)
        let wrongType = #expect(throws: StrataError.self) { try fetch(["year >= soon"]) }
        #expect(wrongType?.code == .valueConversion)
        #expect(throws: StrataError.self) { try StoreRows.Condition(parsing: "year") }
        #expect(throws: StrataError.self) { try StoreRows(url: url, entity: "Magazine") }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func decimalsCompareAndSortAsNumbers() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Samples.sqlite")
        let container = try PersistentContainer(name: "Samples", schema: Schema(Sample.self))
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        try container.perform { context in
            for (seed, text) in ["100.25", "9.5", "10"].enumerated() {
                let sample = Sample(seed: seed)
                sample.decimal = Decimal(string: text)!
                context.insert(sample)
            }
            try context.save()
        }
        try container.persistentStoreCoordinator.close()
        let rows = try StoreRows(
            url: url, entity: "Sample", conditions: [try StoreRows.Condition(parsing: "decimal > 9.75")],
            sort: [try StoreRows.SortKey(parsing: "decimal")])
        let column = try #require(rows.columns.firstIndex(of: "decimal"))
        #expect(rows.rows.map { $0[column] } == [.text("10"), .text("100.25")])
    }

    @Test func aPreviewSaysWhatTheNextLoadWouldDo() async throws {
        let directory = TemporaryDirectory()
        let url = try await Self.library(directory)
        let before = try Data(contentsOf: url)

        let same = try StoreMigrationPreview(url: url, to: librarySchema.summary)
        #expect(!same.isNeeded && same.steps.isEmpty && same.problems.isEmpty)

        // Book gains an optional subtitle and a required edition, and loses its rating.
        let summary = librarySchema.summary
        var book = try #require(summary.entities.first { $0.name == "Book" })
        book.properties.removeAll { $0.name == "rating" }
        book.properties.append(.attribute(AttributeDescription(name: "subtitle", type: .string, isOptional: true)))
        book.properties.append(.attribute(AttributeDescription(name: "edition", type: .int, isOptional: false)))
        var changed = summary
        changed.entities = summary.entities.map { $0.name == "Book" ? book : $0 }
        let preview = try StoreMigrationPreview(url: url, to: changed)
        #expect(preview.isNeeded)
        #expect(preview.problems.isEmpty)
        #expect(preview.steps.contains { $0.hasPrefix("Book.subtitle is new") })
        #expect(preview.steps.contains { $0.hasPrefix("Book.edition is new") && $0.contains("must declare one") })
        #expect(preview.steps.contains("Book.rating is removed, with its values"))
        #expect(preview.differences.contains("Book.rating was removed"))

        // A change that cannot be inferred: text to a number.
        var retyped = try #require(summary.entities.first { $0.name == "Author" })
        retyped.properties = retyped.properties.map { property in
            guard property.name == "name" else { return property }
            return .attribute(AttributeDescription(name: "name", type: .int, isOptional: false))
        }
        var refused = summary
        refused.entities = summary.entities.map { $0.name == "Author" ? retyped : $0 }
        let problems = try StoreMigrationPreview(url: url, to: refused).problems
        #expect(problems.contains { $0.contains("Author.name changes from string to int") })
        #expect(try Data(contentsOf: url) == before)
    }
}
