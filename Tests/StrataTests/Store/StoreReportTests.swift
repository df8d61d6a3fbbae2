import Foundation
import Strata
import Testing

/// What `strata inspect` reads: a store's schema, counts, size and history,
/// without the app's models and without changing the file.
@Suite("Store reports")
struct StoreReportTests {
    @Test
    func aReportListsEntitiesCountsAndHistory() async throws {
        let stack = try await TestStack(.file, schema: librarySchema, name: "Library") { $0.historyTracking = true }
        try stack.container.perform { context in
            let author = Author(email: "u@example.com", name: "Le Guin")
            context.insert(author)
            for year in [1968, 1971, 1974] { Book(title: "\(year)", year: year).author = author }
        }
        try stack.container.perform { context in context.insert(Author(email: "j@example.com", name: "Austen")) }
        let url = stack.directory.file("Library.sqlite")
        let before = try Data(contentsOf: url)

        let report = try StoreReport(url: url)
        #expect(report.fileName == "Library.sqlite")
        #expect(report.entities.map(\.summary.name) == ["Author", "Book"])
        #expect(report.entities.map(\.rowCount) == [2, 3])
        let email = report.entities[0].summary.properties.first { $0.name == "email" }
        guard case .attribute(let attribute)? = email else {
            Issue.record("no email attribute")
            return
        }
        #expect(attribute.isUnique && attribute.type == .string)
        #expect(report.history?.transactionCount == 2)
        #expect(report.sizeInBytes > 0)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test
    func filesThatAreNoStoreAreRefusedWithTheReasonAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let missing = #expect(throws: StrataError.self) { try StoreReport(url: directory.file("None.sqlite")) }
        #expect(missing?.code == .invalidStoreLocation)

        let text = directory.file("Notes.sqlite")
        try Data("not a database, just some text that is long enough to have a header".utf8).write(to: text)
        let damaged = #expect(throws: StrataError.self) { try StoreReport(url: text) }
        #expect(damaged?.code == .corruptStore)
        #expect(try String(contentsOf: text, encoding: .utf8).hasPrefix("not a database"))
    }
}
