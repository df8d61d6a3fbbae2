import Foundation
import Strata
@testable import StrataCore
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
        #expect(shelves.reduce(0) { $0 + $1.volumes.count } == Self.shelfCount * 4)
        #expect(counter.value == 2, "reading what was prefetched runs no query")
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
