import Foundation
import GRDB
import Strata
import Synchronization
import StrataSQL
import Testing

/// Stores another program wrote into: values Strata never writes must fail
/// the fetch that loads them with `.valueConversion`, never trap.
@Suite("Values other programs wrote")
struct ForeignValueTests {
    /// A file store with two saved `Sample`s (keys 1 and 2), closed; returns its URL.
    private func storeWithSample(_ directory: TemporaryDirectory) async throws -> URL {
        let url = directory.file("Foreign.sqlite")
        let container = try PersistentContainer(name: "Foreign", schema: Schema(Sample.self))
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        try container.perform { context throws in
            context.insert(Sample(seed: 1))
            context.insert(Sample(seed: 2))
            try context.save()
        }
        try container.persistentStoreCoordinator.close()
        return url
    }

    /// Writes `sql` (a value expression) into `column` of the first sample, as
    /// another SQLite client would.
    private func write(_ sql: String, into column: String, at url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "UPDATE Sample SET \"\(column)\" = \(sql) WHERE pk = 1") }
        try queue.close()
    }

    private func open(_ url: URL) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Foreign", schema: Schema(Sample.self))
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        return container
    }

    static let unreadable: [(column: String, sql: String)] = [
        ("int", "'abc'"), ("int", "'42abc'"), ("int", "4.5"), ("int", "x'00'"),
        ("int8", "300"), ("uint8", "-1"), ("uint32", "5000000000"),
        ("double", "'fast'"), ("date", "'2024-01-01'"), ("string", "x'4142'"), ("data", "'text'"),
        ("uuid", "'not a uuid'"), ("decimal", "'twelve'"), ("url", "''"),
        ("genre", "'opera'"), ("priority", "7"), ("dimensions", "'{not json'"),
        ("optionalGenre", "'opera'"), ("optionalDimensions", "'[1,2]'"), ("optionalInt", "'seven'"),
    ]

    @Test(arguments: unreadable)
    func aValueThatCannotBeReadFailsTheFetchNamingEntityPropertyAndRow(column: String, sql: String) async throws {
        let directory = TemporaryDirectory()
        let url = try await storeWithSample(directory)
        try write(sql, into: column, at: url)
        let before = try storedColumn(column, at: url)
        let container = try await open(url)

        let error = #expect(throws: StrataError.self) {
            try container.perform { context in try context.fetch(FetchRequest<Sample>()) }
        }
        #expect(error?.code == .valueConversion)
        #expect(error?.entityName == "Sample")
        #expect(error?.propertyName == column)
        #expect(error?.objectIDs.first?.primaryKey == 1)
        #expect(error?.message.contains("Sample.\(column)") == true)

        // The other row reads; the store keeps the value as it was.
        let others = try container.perform { context in
            try context.fetch(FetchRequest<Sample>(predicate: #Predicate { $0.flag == true }))
        }
        #expect(others.count == 1)
        try container.persistentStoreCoordinator.close()
        #expect(try storedColumn(column, at: url) == before)
    }

    /// The column of every row, with each value's storage class.
    private func storedColumn(_ column: String, at url: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchAll(db, sql: "SELECT typeof(\"\(column)\") || ':' || quote(\"\(column)\") FROM Sample ORDER BY pk")
        }
    }

    @Test func existingObjectThrowsTooAndTheContextStaysUsable() async throws {
        let directory = TemporaryDirectory()
        let url = try await storeWithSample(directory)
        try write("'abc'", into: "int", at: url)
        let container = try await open(url)
        let identifier = try storeIdentifier(url)
        try container.perform { context throws in
            let samples = try context.fetch(FetchRequest<Sample>(predicate: #Predicate { $0.flag == true }))
            let id = try #require(samples.first).objectID
            #expect(id.storeIdentifier == identifier)
            let other = try #require(container.objectID(forURIRepresentation: URL(string: "\(id.uriRepresentation())".replacingOccurrences(of: "p2", with: "p1"))!))
            let error = #expect(throws: StrataError.self) { _ = try context.existingObject(with: other, as: Sample.self) }
            #expect(error?.code == .valueConversion)
            // A second fetch fails the same way; the context is not left half-loaded.
            #expect(throws: StrataError.self) { _ = try context.fetch(FetchRequest<Sample>()) }
            let sample = Sample(seed: 3)
            context.insert(sample)
            try context.save()
        }
    }

    @Test func anAccessorThatMeetsOneReportsItAndReadsAnEmptyValueWithoutWritingIt() async throws {
        let directory = TemporaryDirectory()
        let url = try await storeWithSample(directory)
        try write("'abc'", into: "int", at: url)
        try write("'seven'", into: "optionalInt", at: url)
        let container = try await open(url)
        let reported = Mutex<[StrataError]>([])
        container.logError = { error in
            if let error = error as? StrataError { reported.withLock { $0.append(error) } }
        }
        try container.perform { context throws in
            // Batched fetches hand out faults; the row is read when one fires,
            // inside an accessor that cannot throw.
            var request = FetchRequest<Sample>(sortBy: [SortDescriptor(\.int64)])
            request.fetchBatchSize = 1
            let samples = try context.fetch(request)
            let first = try #require(samples.first)
            #expect(first.int == 0)
            #expect(first.optionalInt == nil)
            #expect(first.string == "héllo, wörld \u{1F600} 1")
            first.string = "changed"
            try context.save()
        }
        #expect(reported.withLock { $0.contains { $0.code == .valueConversion && $0.propertyName == "int" } })
        // The foreign value is still there: only the changed column was written.
        let queue = try DatabaseQueue(path: url.path)
        let stored = try await queue.read { db in try String.fetchOne(db, sql: "SELECT int FROM Sample WHERE pk = 1") }
        #expect(stored == "abc")
    }

    private func storeIdentifier(_ url: URL) throws -> String {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM _strata_metadata WHERE key = 'storeIdentifier'") ?? ""
        }
    }
}
