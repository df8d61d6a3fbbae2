import Foundation
import GRDB
import Strata
@testable import StrataCore
import Testing

/// Counters and metadata that another program, or a damaged or hand-edited
/// file, left at the edge of their range: each is refused with a typed error
/// that changes nothing, never a trap.
@Suite("Stores at the edge of their ranges")
struct EdgeOfRangeStoreTests {
    /// A file store with one saved book, closed; returns its URL.
    private func storeWithBook(_ directory: TemporaryDirectory, history: Bool = false) async throws -> URL {
        let url = directory.file("Edge.sqlite")
        let container = try await open(url, history: history)
        try container.perform { context in
            context.insert(Book(title: "Dune", year: 1965))
            try context.save()
        }
        try container.persistentStoreCoordinator.close()
        return url
    }

    private func open(_ url: URL, history: Bool = false) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Edge", schema: librarySchema)
        var description = StoreDescription(url: url)
        description.historyTracking = history
        container.storeDescriptions = [description]
        try await container.loadPersistentStores()
        return container
    }

    /// Runs `sql` on the file as another SQLite client would.
    private func execute(_ sql: String, at url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    /// A store with one book that another client then changed with `sql`, opened.
    private func openAfter(_ sql: String, in directory: TemporaryDirectory) async throws -> PersistentContainer {
        let url = try await storeWithBook(directory)
        try execute(sql, at: url)
        return try await open(url)
    }

    /// Opening the file fails with `.corruptStore` and leaves it byte for byte.
    private func expectRefusedAsCorruptAndUntouched(_ url: URL) async throws {
        let before = try Data(contentsOf: url)
        let container = try PersistentContainer(name: "Edge", schema: librarySchema)
        container.storeDescriptions = [StoreDescription(url: url)]
        let error = await #expect(throws: StrataError.self) { try await container.loadPersistentStores() }
        #expect(error?.code == .corruptStore)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test
    func aRowAtTheHighestVersionRefusesItsUpdateAndKeepsTheChange() async throws {
        let directory = TemporaryDirectory()
        let container = try await openAfter("UPDATE Book SET _version = 9223372036854775807", in: directory)
        let context = container.newContext()
        let book = try #require(try context.fetch(FetchRequest<Book>()).first)
        book.title = "Dune Messiah"
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .corruptStore)
        #expect(error?.entityName == "Book")
        #expect(book.title == "Dune Messiah", "the context keeps its change")
        #expect(context.hasChanges)
        let stored = try container.newContext().fetch(FetchRequest<Book>()).map(\.title)
        #expect(stored == ["Dune"], "the store is unchanged")
    }

    @Test
    func aBatchUpdateOfARowAtTheHighestVersionIsRefusedWhole() async throws {
        let directory = TemporaryDirectory()
        let container = try await openAfter("UPDATE Book SET _version = 9223372036854775807", in: directory)
        try container.perform { context in
            context.insert(Book(title: "Emma", year: 1815))
            try context.save()
        }
        var request = BatchUpdateRequest<Book>(predicate: #Predicate { $0.year > 0 }, resultType: .objectIDs)
        request.propertiesToUpdate["title"] = "Renamed"
        let error = #expect(throws: StrataError.self) { try container.execute(request) }
        #expect(error?.code == .corruptStore)
        #expect(error?.message.contains("Book") == true, "\(error?.message ?? "")")
        let titles = try container.newContext().fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.title)
        #expect(titles == ["Emma", "Dune"], "neither row changed")
    }

    @Test
    func aKeySequenceWithNoRoomLeftRefusesInsertsAndKeepsThem() async throws {
        let directory = TemporaryDirectory()
        let container = try await openAfter("UPDATE _strata_sequence SET max_pk = 9223372036854775806 WHERE entity = 'Book'", in: directory)
        let context = container.newContext()
        // One key is left: the first insert takes it.
        let last = Book(title: "Children of Dune", year: 1976)
        context.insert(last)
        try context.save()
        #expect(last.objectID.primaryKey == Int64.max)

        let next = Book(title: "God Emperor of Dune", year: 1981)
        context.insert(next)
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .corruptStore)
        #expect(error?.entityName == "Book")
        #expect(context.insertedObjects.count == 1, "the context keeps its insert")
        #expect(try container.newContext().count(for: FetchRequest<Book>()) == 2)

        // A batch insert is refused the same way.
        let batch = #expect(throws: StrataError.self) {
            try container.execute(BatchInsertRequest<Book>(objects: [["title": "Heretics of Dune", "year": 1984]]))
        }
        #expect(batch?.code == .corruptStore)
        #expect(try container.newContext().count(for: FetchRequest<Book>()) == 2)
    }

    @Test
    func metadataRowsThatAreNotTextAreSkipped() async throws {
        let directory = TemporaryDirectory()
        let container = try await openAfter("INSERT INTO _strata_metadata (key, value) VALUES ('note', x'FF'), (x'FE', 'value')", in: directory)
        #expect(try container.newContext().fetch(FetchRequest<Book>()).map(\.title) == ["Dune"])
    }

    @Test
    func aRecordedSchemaNamingAPropertyTwiceIsACorruptStoreAndTheFileIsUntouched() async throws {
        let directory = TemporaryDirectory()
        let url = try await storeWithBook(directory)
        let queue = try DatabaseQueue(path: url.path)
        let json = try #require(try await queue.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM _strata_metadata WHERE key = 'schema'")
        })
        // The first property of every entity, listed twice.
        var summary = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        var entities = summary["entities"] as! [[String: Any]]
        for index in entities.indices {
            var properties = entities[index]["properties"] as! [Any]
            properties.append(properties[0])
            entities[index]["properties"] = properties
        }
        summary["entities"] = entities
        let damaged = String(decoding: try JSONSerialization.data(withJSONObject: summary), as: UTF8.self)
        try await queue.write { db in
            try db.execute(sql: "UPDATE _strata_metadata SET value = ? WHERE key = 'schema'", arguments: [damaged])
        }
        try queue.close()
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SchemaSummary.self, from: Data(damaged.utf8)) }

        try await expectRefusedAsCorruptAndUntouched(url)
    }

    @Test
    func aStoreIdentifierThatCannotNameObjectsIsACorruptStoreAndTheFileIsUntouched() async throws {
        let directory = TemporaryDirectory()
        let url = try await storeWithBook(directory)
        try execute("UPDATE _strata_metadata SET value = 'a b/c?d' WHERE key = 'storeIdentifier'", at: url)
        try await expectRefusedAsCorruptAndUntouched(url)
    }

    /// SQLite stores at most 1,000,000,000 bytes a value and PostgreSQL
    /// 1 GB; a larger one fails the save, where it had been stored as NULL.
    @Test(arguments: testedStoreKinds.filter { $0 != .memory })
    func aValueLargerThanTheDatabaseStoresFailsTheSaveAndIsKept(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Sample.self))
        let context = stack.container.newContext()
        let sample = Sample(seed: 1)
        // Pages of zeros the system maps on first touch: nothing is written here.
        sample.data = Data(count: 1_100_000_000)
        context.insert(sample)
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.message.contains("1100000000 bytes") == true, "\(error?.message ?? "")")
        #expect(context.insertedObjects.count == 1)
        #expect(sample.data.count == 1_100_000_000)
        #expect(try stack.container.newContext().count(for: FetchRequest<Sample>()) == 0)
    }

    @Test(arguments: testedStoreKinds)
    func deletingHistoryBeforeTheLowestTokenDeletesNothing(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        try save(in: stack.container) { $0.insert(Book(title: "Dune", year: 1965)) }
        let current = try #require(try stack.container.currentHistoryToken())
        let json = #"{"storeIdentifier":"\#(current.storeIdentifier)","transactionNumber":-9223372036854775808}"#
        let lowest = try JSONDecoder().decode(HistoryToken.self, from: Data(json.utf8))
        _ = try stack.container.deleteHistory(before: lowest)
        #expect(try stack.container.fetchHistory(after: nil).count == 1)
    }
}
