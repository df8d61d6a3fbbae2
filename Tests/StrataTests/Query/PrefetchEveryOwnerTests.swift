import Foundation
import Strata
@testable import StrataCore
@testable import StrataSQLite
import Testing

/// A crate of jars; each jar counts its fetch hooks and, in its hook, calls
/// its crate's (which keeps the empty default).
@Model final class Crate {
    var label: String
    @Relationship(inverse: \Jar.crate) var jars: [Jar] = []

    init(label: String) { self.label = label }
}

@Model final class Jar {
    var contents: String
    var crate: Crate?
    @Transient var awakenings = 0

    init(contents: String) { self.contents = contents }

    func awakeFromFetch() {
        awakenings += 1
        crate?.awakeFromFetch()
    }
}

let crateSchema = Schema(Crate.self, Jar.self)

/// A fetch of every owner prefetches their members in one read of the member
/// table (on SQLite a scan rather than the index), so each owner's members
/// must come out in the stored order whatever order the table holds them in.
@Suite("Prefetching every owner")
struct PrefetchEveryOwnerTests {
    /// More shelves than a many-owner read takes through the index.
    private static let shelfCount = 80

    /// Shelves of 4 volumes, then some shelves' volumes reversed or moved, so
    /// the stored order no longer follows the order the rows were written in.
    private static func fillOutOfOrder(_ context: ManagedObjectContext) throws {
        var shelves: [Bookcase] = []
        for shelfNumber in 0..<shelfCount {
            let shelf = Bookcase(name: String(format: "shelf %03d", shelfNumber))
            context.insert(shelf)
            shelf.volumes = (0..<4).map { Tome(title: "\(shelfNumber).\($0)") }
            shelves.append(shelf)
        }
        try context.save()
        for shelf in shelves.enumerated() where shelf.offset % 3 == 0 {
            shelf.element.volumes = shelf.element.volumes.reversed()
        }
        // A volume moved to the front of a shelf written before it, and one put in the middle.
        let moved = shelves[70].volumes[2]
        shelves[5].volumes.insert(moved, at: 0)
        shelves[9].volumes.insert(shelves[71].volumes[0], at: 2)
        try context.save()
    }

    /// Each shelf's volumes as a context that reads them one shelf at a time sees them.
    private static func volumesOneShelfAtATime(_ container: PersistentContainer) throws -> [[String]] {
        let context = container.newContext()
        return try context.fetch(FetchRequest<Bookcase>(sortBy: [SortDescriptor(\.name)])).map { $0.volumes.map(\.title) }
    }

    @Test(arguments: testedStoreKinds)
    func aPrefetchOfEveryOwnerKeepsEachOwnersStoredOrder(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: bookcaseSchema)
        try stack.container.perform { context in try Self.fillOutOfOrder(context) }
        let expected = try Self.volumesOneShelfAtATime(stack.container)
        #expect(expected[0] == ["0.3", "0.2", "0.1", "0.0"])
        #expect(expected[5] == ["70.2", "5.0", "5.1", "5.2", "5.3"])
        #expect(expected[9] == ["9.3", "9.2", "71.0", "9.1", "9.0"])

        let context = stack.container.newContext()
        var request = FetchRequest<Bookcase>(sortBy: [SortDescriptor(\.name)])
        request.relationshipKeyPathsForPrefetching = [\.volumes]
        let shelves = try context.fetch(request)
        #expect(shelves.map { $0.volumes.map(\.title) } == expected)
        #expect(context.objectGraphProblems().isEmpty)
    }

    @Test func aPrefetchOfEveryOwnerRunsOneQueryForTheMembers() async throws {
        let stack = try await TestStack(.inMemory, schema: bookcaseSchema)
        try stack.container.perform { context in try Self.fillOutOfOrder(context) }
        let counter = try SelectCounter(stack.container)
        let context = stack.container.newContext()
        var request = FetchRequest<Bookcase>()
        request.relationshipKeyPathsForPrefetching = [\.volumes]
        let shelves = try context.fetch(request)
        #expect(counter.value == 2, "the shelves, then every shelf's volumes")
        #expect(counter.count(containing: "NOT INDEXED") == 1, "the volumes are read by a scan of their table")
        #expect(shelves.reduce(0) { $0 + $1.volumes.count } == Self.shelfCount * 4)
        #expect(counter.value == 2, "reading what was prefetched runs no query")

        // Some of the shelves: through the index.
        let some = stack.container.newContext()
        var first = FetchRequest<Bookcase>(sortBy: [SortDescriptor(\.name)])
        first.fetchLimit = Self.shelfCount - 1
        first.relationshipKeyPathsForPrefetching = [\.volumes]
        _ = try some.fetch(first)
        #expect(counter.count(containing: "NOT INDEXED") == 1, "a fetch of some owners does not scan")
    }

    /// Positions other programs left: none (they come first), ties (key
    /// order decides) and text (after every number), as SQLite orders them.
    @Test(arguments: [StoreKind.inMemory, .file])
    func aPrefetchOfEveryOwnerOrdersPositionsAsTheStoreDoes(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: bookcaseSchema)
        try stack.container.perform { context in
            for shelfNumber in 0..<Self.shelfCount {
                let shelf = Bookcase(name: String(format: "shelf %03d", shelfNumber))
                context.insert(shelf)
                shelf.volumes = (0..<4).map { Tome(title: "\(shelfNumber).\($0)") }
            }
            try context.save()
        }
        let store = try #require(try stack.container.persistentStoreCoordinator.loadedStore() as? SQLiteStore)
        try await #require(store.writer.writer).write { db in
            try db.execute(sql: #"UPDATE "Tome" SET "_order_shelf" = NULL WHERE "title" LIKE '3.%'"#)
            try db.execute(sql: #"UPDATE "Tome" SET "_order_shelf" = 1 WHERE "title" IN ('4.0', '4.3')"#)
            try db.execute(sql: #"UPDATE "Tome" SET "_order_shelf" = 'z' WHERE "title" = '6.0'"#)
            try db.execute(sql: #"UPDATE "Tome" SET "_order_shelf" = NULL WHERE "title" = '7.2'"#)
        }
        let expected = try Self.volumesOneShelfAtATime(stack.container)
        #expect(expected[3] == ["3.0", "3.1", "3.2", "3.3"])
        #expect(expected[4] == ["4.0", "4.1", "4.3", "4.2"])
        #expect(expected[6] == ["6.1", "6.2", "6.3", "6.0"])
        #expect(expected[7] == ["7.2", "7.0", "7.1", "7.3"])

        let context = stack.container.newContext()
        var request = FetchRequest<Bookcase>(sortBy: [SortDescriptor(\.name)])
        request.relationshipKeyPathsForPrefetching = [\.volumes]
        #expect(try context.fetch(request).map { $0.volumes.map(\.title) } == expected)
    }

    @Test(arguments: testedStoreKinds)
    func aPrefetchOfEveryOwnerKeepsTheObjectsAContextHolds(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: bookcaseSchema)
        try stack.container.perform { context in try Self.fillOutOfOrder(context) }
        let expected = try Self.volumesOneShelfAtATime(stack.container)
        let context = stack.container.newContext()
        // Volumes the context holds already, one of them changed and unsaved,
        // and a shelf deleted and unsaved (the fetch leaves a gap among the keys).
        let held = try context.fetch(FetchRequest<Tome>(predicate: #Predicate { $0.title.starts(with: "9.") }))
        let changed = try #require(held.first { $0.title == "9.1" })
        changed.title = "9.1, unsaved"
        let gone = try #require(try context.fetch(FetchRequest<Bookcase>(predicate: #Predicate { $0.name == "shelf 010" })).first)
        context.delete(gone)

        var request = FetchRequest<Bookcase>(sortBy: [SortDescriptor(\.name)])
        request.relationshipKeyPathsForPrefetching = [\.volumes]
        let shelves = try context.fetch(request)
        #expect(shelves.count == Self.shelfCount - 1)
        var remaining = expected
        remaining.remove(at: 10)
        remaining[9] = remaining[9].map { $0 == "9.1" ? "9.1, unsaved" : $0 }
        #expect(shelves.map { $0.volumes.map(\.title) } == remaining)
        let ninth = shelves[9].volumes
        #expect(held.allSatisfy { volume in ninth.contains { $0 === volume } }, "the objects it held, not copies")
        #expect(context.objectGraphProblems().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func everyFetchedAndPrefetchedObjectWithAHookHasItCalledOnce(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: crateSchema)
        try stack.container.perform { context in
            for number in 0..<Self.shelfCount {
                let crate = Crate(label: "crate \(number)")
                context.insert(crate)
                crate.jars = (0..<3).map { Jar(contents: "\(number).\($0)") }
            }
            try context.save()
        }
        // Prefetched members: the first jar's hook calls its crate's empty
        // default, which must not be taken for the jars' own.
        let context = stack.container.newContext()
        var request = FetchRequest<Crate>()
        request.relationshipKeyPathsForPrefetching = [\.jars]
        let crates = try context.fetch(request)
        let jars = crates.flatMap(\.jars)
        #expect(jars.count == Self.shelfCount * 3)
        #expect(jars.allSatisfy { $0.awakenings == 1 })

        // Fetched objects.
        let fetched = try stack.container.newContext().fetch(FetchRequest<Jar>())
        #expect(fetched.count == Self.shelfCount * 3)
        #expect(fetched.allSatisfy { $0.awakenings == 1 })
    }
}
