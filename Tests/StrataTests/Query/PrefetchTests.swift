import Foundation
import Strata
@testable import StrataCore
import Testing

/// Shelves hold volumes in order; each volume has a press and labels.
@Model final class Bookcase {
    var name: String
    @Relationship(inverse: \Tome.shelf) var volumes: [Tome] = []

    init(name: String) { self.name = name }
}

@Model final class Tome {
    var title: String
    var shelf: Bookcase?
    var press: Imprint?
    @Relationship(inverse: \Sticker.volumes) var labels: [Sticker] = []

    init(title: String) { self.title = title }
}

@Model final class Imprint {
    var name: String
    @Relationship(inverse: \Tome.press) var volumes: [Tome] = []

    init(name: String) { self.name = name }
}

@Model final class Sticker {
    var name: String
    var volumes: [Tome] = []

    init(name: String) { self.name = name }
}

let bookcaseSchema = Schema(Bookcase.self, Tome.self, Imprint.self, Sticker.self)

@Suite("Prefetching")
struct PrefetchTests {
    /// 30 shelves of 5 volumes; each volume with one of 3 presses and 2 of 4 labels.
    private static func fill(_ context: ManagedObjectContext) throws {
        let presses = (0..<3).map { Imprint(name: "press \($0)") }
        let labels = (0..<4).map { Sticker(name: "label \($0)") }
        for shelfNumber in 0..<30 {
            let shelf = Bookcase(name: "shelf \(shelfNumber)")
            context.insert(shelf)
            for volumeNumber in 0..<5 {
                let volume = Tome(title: "\(shelfNumber).\(volumeNumber)")
                volume.press = presses[(shelfNumber + volumeNumber) % 3]
                volume.labels = [labels[volumeNumber % 4], labels[(volumeNumber + 1) % 4]]
                shelf.volumes.append(volume)
            }
        }
        try context.save()
    }

    /// What the app reads: every shelf's volumes in order with press and labels.
    private static func describe(_ shelves: [Bookcase]) -> [String] {
        shelves.map { shelf in
            shelf.name + ": " + shelf.volumes.map { volume in
                "\(volume.title) \(volume.press?.name ?? "-") [\(volume.labels.map(\.name).joined(separator: ","))]"
            }.joined(separator: "; ")
        }
    }

    private static var request: FetchRequest<Bookcase> {
        var request = FetchRequest<Bookcase>(sortBy: [SortDescriptor(\.name)])
        request.prefetch(\.volumes, then: [\Tome.press, \Tome.labels])
        return request
    }

    @Test func aPrefetchingFetchRunsOneQueryPerRelationshipWhateverTheNumberOfObjects() async throws {
        let stack = try await TestStack(.inMemory, schema: bookcaseSchema)
        try stack.container.perform { context in try Self.fill(context) }
        let counter = try SelectCounter(stack.container)

        let context = stack.container.newContext()
        let shelves = try context.fetch(Self.request)
        let afterFetch = counter.value
        // Shelves, their volumes, the volumes' presses, the volumes' labels.
        #expect(afterFetch == 4)
        let described = Self.describe(shelves)
        #expect(counter.value == afterFetch, "reading what was prefetched runs no query")
        #expect(described.count == 30)
        #expect(described[0] == "shelf 0: 0.0 press 0 [label 0,label 1]; 0.1 press 1 [label 1,label 2]; "
            + "0.2 press 2 [label 2,label 3]; 0.3 press 0 [label 3,label 0]; 0.4 press 1 [label 0,label 1]")

        // Without prefetching, the same reading costs a query per shelf and per volume.
        let unprefetched = stack.container.newContext()
        let before = counter.value
        _ = Self.describe(try unprefetched.fetch(FetchRequest<Bookcase>(sortBy: [SortDescriptor(\.name)])))
        #expect(counter.value - before > 150)
    }

    @Test(arguments: testedStoreKinds)
    func prefetchedRelationshipsShowUnsavedChanges(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: bookcaseSchema)
        try stack.container.perform { context in try Self.fill(context) }
        let context = stack.container.newContext()
        let plain = stack.container.newContext()
        let expected = Self.describe(try plain.fetch(FetchRequest<Bookcase>(sortBy: [SortDescriptor(\.name)])))
        #expect(Self.describe(try context.fetch(Self.request)) == expected)

        // A volume moved to another shelf, unsaved, and a new one added: a fresh
        // context's prefetch sees them where the moved objects are loaded.
        let editor = stack.container.newContext()
        let moved = try #require(try editor.fetch(FetchRequest<Tome>(predicate: #Predicate { $0.title == "0.0" })).first)
        let target = try #require(try editor.fetch(FetchRequest<Bookcase>(predicate: #Predicate { $0.name == "shelf 1" })).first)
        moved.shelf = target
        let added = Tome(title: "new")
        editor.insert(added)
        added.shelf = target
        let shelves = try editor.fetch(Self.request)
        #expect(shelves[0].volumes.map(\.title) == ["0.1", "0.2", "0.3", "0.4"])
        let joined = shelves[1].volumes.map(\.title)
        #expect(joined.prefix(5) == ["1.0", "1.1", "1.2", "1.3", "1.4"])
        #expect(Set(joined.dropFirst(5)) == ["0.0", "new"])
        #expect(editor.objectGraphProblems().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func aPrefetchOfSomeOwnersLoadsTheirMembersOnly(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: bookcaseSchema)
        try stack.container.perform { context in try Self.fill(context) }
        // Owners close together (shelves 3, 4 and 6 of 30) and far apart (0 and 29).
        for names in [["shelf 3", "shelf 4", "shelf 6"], ["shelf 0", "shelf 29"]] {
            let context = stack.container.newContext()
            var request = FetchRequest<Bookcase>(predicate: #Predicate { names.contains($0.name) }, sortBy: [SortDescriptor(\.name)])
            request.relationshipKeyPathsForPrefetching = [\.volumes]
            let shelves = try context.fetch(request)
            #expect(shelves.map(\.name) == names)
            let prefix = names.map { $0.dropFirst("shelf ".count) }
            #expect(shelves.map { $0.volumes.map(\.title) } == prefix.map { shelf in (0..<5).map { "\(shelf).\($0)" } })
            let volumes = context.registeredObjects.filter { $0 is Tome }
            #expect(volumes.count == 5 * names.count, "no other shelf's volumes are made")
        }
    }

    @Test(arguments: testedStoreKinds)
    func aChildPrefetchesThroughItsParent(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: bookcaseSchema)
        try stack.container.perform { context in try Self.fill(context) }
        let parent = stack.container.newContext()
        let renamed = try #require(try parent.fetch(FetchRequest<Imprint>(predicate: #Predicate { $0.name == "press 0" })).first)
        renamed.name = "renamed, unsaved"
        let child = parent.newChildContext()
        let shelves = try child.fetch(Self.request)
        #expect(shelves[0].volumes.first?.press?.name == "renamed, unsaved")
        #expect(shelves.count == 30)
        #expect(child.objectGraphProblems().isEmpty)
    }

    @Test func aKeyPathThatIsNotARelationshipIsRefused() async throws {
        let stack = try await TestStack(.memory, schema: bookcaseSchema)
        var request = FetchRequest<Bookcase>()
        request.prefetch(\.volumes, then: [\Tome.title])
        #expect(throws: StrataError.self) { try stack.container.newContext().fetch(request) }
    }
}
