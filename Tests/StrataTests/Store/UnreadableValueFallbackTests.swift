import Foundation
import GRDB
import Strata
import Synchronization
import Testing

enum Shade: String, Codable, CaseIterable, Sendable {
    case red, green
}

enum Mood: String, Codable, Sendable {
    case calm, busy
}

/// Not `CaseIterable`, and no case has the raw value 0.
enum Urgency: Int, Sendable {
    case low = 1, high = 2
}

struct Weave: Codable, Equatable, Sendable {
    var threads: Int
    var pattern: String
    var mood: Mood
    var backing: Mood?
    var layers: [Int]
}

@Model final class Swatch {
    var name: String
    var shade: Shade
    var mood: Mood = .busy
    var tags: [String]
    var spareShade: Shade?
    var finish: Mood
    var urgency: Urgency
    var weave: Weave

    init(name: String) {
        self.name = name
        shade = .green
        mood = .calm
        tags = ["one"]
        spareShade = .green
        finish = .busy
        urgency = .high
        weave = Weave(threads: 3, pattern: "twill", mood: .busy, backing: .calm, layers: [1])
    }
}

/// Values another program wrote that an accessor meets when a fault fires
/// inside it, where it cannot throw: it reads a fallback and the process
/// goes on.
@Suite("Unreadable values read as fallbacks")
struct UnreadableValueFallbackTests {
    /// A file store with one swatch whose every value after `name` another
    /// program replaced with one no property can read; returns its URL.
    private func storeWithForeignValues(_ directory: TemporaryDirectory) async throws -> URL {
        let url = directory.file("Swatches.sqlite")
        let container = try PersistentContainer(name: "Swatches", schema: Schema(Swatch.self))
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        try container.perform { context throws in
            context.insert(Swatch(name: "first"))
            try context.save()
        }
        try container.persistentStoreCoordinator.close()
        try writeForeignValues(at: url)
        return url
    }

    /// Writes values as another SQLite client would.
    private func writeForeignValues(at url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: """
                UPDATE Swatch SET shade = 'mauve', mood = 'grumpy', tags = '{not json', spareShade = 'teal',
                    finish = 'matte', urgency = 7, weave = '{"threads": "many"}'
                """)
        }
        try queue.close()
    }

    /// The stored columns of the swatch, as text.
    private func storedValues(at url: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT name, shade, mood, tags, spareShade, finish, CAST(urgency AS TEXT), weave FROM Swatch")
                .map { row in (0..<row.count).map { row[$0] as String } } ?? []
        }
    }

    private func open(_ url: URL) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Swatches", schema: Schema(Swatch.self))
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        return container
    }

    @Test func aFaultFiredInAnAccessorReadsTheInitialValueOrAValueMadeFromNothing() async throws {
        let directory = TemporaryDirectory()
        let url = try await storeWithForeignValues(directory)
        let container = try await open(url)
        let reported = Mutex<[String]>([])
        container.logError = { error in
            if let error = error as? StrataError, error.code == .valueConversion, let name = error.propertyName {
                reported.withLock { $0.append(name) }
            }
        }
        try container.perform { context throws in
            // A batched fetch hands out faults: the row is read inside the accessor.
            var request = FetchRequest<Swatch>()
            request.fetchBatchSize = 1
            let swatch = try #require(try context.fetch(request).first)
            #expect(swatch.name == "first")
            #expect(swatch.mood == .busy)  // its declared initial value
            #expect(swatch.tags == [])  // an empty collection
            #expect(swatch.shade == .red)  // a CaseIterable enum's first case
            #expect(swatch.spareShade == nil)
            #expect(swatch.finish == .calm)  // any enum's first case
            #expect(swatch.urgency == .low)
            // A Codable struct of empty values.
            #expect(swatch.weave == Weave(threads: 0, pattern: "", mood: .calm, backing: nil, layers: []))
            swatch.name = "renamed"
            try context.save()
        }
        #expect(Set(reported.withLock { $0 }).isSuperset(of: ["mood", "tags", "shade", "spareShade", "finish", "urgency", "weave"]))
        try container.persistentStoreCoordinator.close()

        // Only the assigned column was written: the foreign values are still there.
        #expect(try storedValues(at: url) == [
            "renamed", "mauve", "grumpy", "{not json", "teal", "matte", "7", #"{"threads": "many"}"#,
        ])
    }

    @Test func aSnapshotOfSuchAnObjectReadsTheSameFallbacks() async throws {
        let directory = TemporaryDirectory()
        let container = try await open(try await storeWithForeignValues(directory))
        container.logError = { _ in }
        let snapshot = try container.perform { context throws in
            var request = FetchRequest<Swatch>()
            request.fetchBatchSize = 1
            return Snapshot(try #require(try context.fetch(request).first))
        }
        #expect(snapshot.name == "first")
        #expect(snapshot.mood == .busy)
        #expect(snapshot.tags == [])
        #expect(snapshot.shade == .red)
        #expect(snapshot.spareShade == nil)
        #expect(snapshot.finish == .calm)
        #expect(snapshot.urgency == .low)
        #expect(snapshot.weave.threads == 0)
    }

    @Test func aFetchStillRefusesThemWhereItCanThrow() async throws {
        let directory = TemporaryDirectory()
        let container = try await open(try await storeWithForeignValues(directory))
        let error = #expect(throws: StrataError.self) {
            try container.perform { context in try context.fetch(FetchRequest<Swatch>()) }
        }
        #expect(error?.code == .valueConversion)
        #expect(error?.entityName == "Swatch")
    }

    @Test func aSchemaRefusesAPropertyNothingCanStandInFor() throws {
        let error = #expect(throws: StrataError.self) { try Schema(Tapestry.self).validate() }
        #expect(error?.code == .invalidSchema)
        #expect(error?.message.contains("Tapestry.pattern") == true)
        #expect(error?.message.contains("Tapestry.backup") == false)
        #expect(error?.message.contains("Tapestry.spare") == false)
    }

    @Test func aCodableStructOfAnyKindOfNumberHasAStandIn() throws {
        try Schema(Tally.self).validate()
    }
}

/// Numbers Strata stores only inside `Codable` values.
struct Counters: Codable, Equatable, Sendable {
    var views: UInt
    var bytes: UInt64
    var ratio: Float16
}

@Model final class Tally {
    var counters: Counters

    init() {
        counters = Counters(views: 1, bytes: 2, ratio: 0.5)
    }
}

/// A type with payloads that is neither `CaseIterable` nor decodable from
/// nothing: Strata cannot make one.
enum Stitch: Codable, Equatable, Sendable {
    case cross(size: Int), chain(String)
}

@Model final class Tapestry {
    var pattern: Stitch
    var backup: Stitch = .chain("plain")
    var spare: Stitch?

    init() {
        pattern = .cross(size: 2)
    }
}
