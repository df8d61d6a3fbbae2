import Foundation
import Strata
import Testing

/// A model with the wide unsigned types, stored as integers.
@Model final class Counter {
    var name: String
    var hits: UInt64
    var views: UInt
    var limit: UInt64?

    init(name: String, hits: UInt64, views: UInt = 0) {
        self.name = name
        self.hits = hits
        self.views = views
    }
}

@Suite("Unsigned integers")
struct UnsignedIntegerTests {
    private let values: [(String, UInt64)] = [
        ("zero", 0), ("seven", 7), ("beyond 32 bits", 5_000_000_000), ("largest", UInt64(Int64.max)),
    ]

    @Test(arguments: testedStoreKinds)
    func unsignedValuesAreStoredComparedAndSortedByValue(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Counter.self))
        try stack.container.perform { context throws in
            for (name, hits) in values.reversed() {
                let counter = Counter(name: name, hits: hits, views: UInt(hits / 2))
                counter.limit = hits == 7 ? nil : hits
                context.insert(counter)
            }
            try context.save()
        }
        try stack.container.perform { context throws in
            let sorted = try context.fetch(FetchRequest<Counter>(sortBy: [SortDescriptor(\.hits)]))
            #expect(sorted.map(\.name) == values.map(\.0))
            #expect(sorted.map(\.hits) == values.map(\.1))
            #expect(sorted.map(\.views) == values.map { UInt($0.1 / 2) })
            #expect(sorted.map(\.limit) == values.map { $0.1 == 7 ? nil : $0.1 })

            let five = UInt64(5), largest = UInt64(Int64.max), beyond = UInt64.max, justBeyond = UInt64(Int64.max) + 1
            #expect(try context.count(for: FetchRequest<Counter>(predicate: #Predicate { $0.hits > five })) == 3)
            #expect(try context.count(for: FetchRequest<Counter>(predicate: #Predicate { $0.hits == largest })) == 1)
            // A constant no stored integer reaches still compares by value.
            #expect(try context.count(for: FetchRequest<Counter>(predicate: #Predicate { $0.hits < beyond })) == 4)
            #expect(try context.count(for: FetchRequest<Counter>(predicate: #Predicate { $0.hits >= justBeyond })) == 0)
            #expect(try context.count(for: FetchRequest<Counter>(predicate: #Predicate { $0.hits == beyond })) == 0)
            let views = UInt(2_500_000_000)
            #expect(try context.fetch(FetchRequest<Counter>(predicate: #Predicate { $0.views == views })).map(\.name) == ["beyond 32 bits"])

            let small = FetchRequest<Counter>(predicate: #Predicate { $0.hits < largest })
            #expect(try context.aggregate(.sum(\.hits), of: small) == 5_000_000_007)
            #expect(try context.aggregate(.max(\.hits), of: FetchRequest<Counter>()) == largest)
        }
    }

    @Test(arguments: testedStoreKinds)
    func aValueAboveInt64MaxFailsItsSaveAndStaysOnTheObject(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Counter.self))
        try stack.container.perform { context throws in
            let counter = Counter(name: "huge", hits: .max)
            context.insert(counter)
            #expect(counter.hits == .max, "the object holds the exact value until a save refuses it")
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .validation)
            #expect(error?.propertyName == "hits")
            #expect(error?.message.contains("Counter.hits") == true)
            #expect(counter.hits == .max && counter.hasChanges)

            counter.limit = UInt64(Int64.max) + 1
            counter.hits = 1
            let second = #expect(throws: StrataError.self) { try context.save() }
            #expect(second?.propertyName == "limit")

            counter.limit = 2
            try context.save()
        }
        try stack.container.perform { context throws in
            let stored = try context.fetch(FetchRequest<Counter>())
            #expect(stored.map(\.hits) == [1] && stored.map(\.limit) == [2])
        }
    }

    @Test(arguments: testedStoreKinds)
    func batchRequestsRefuseAValueAboveInt64Max(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Counter.self))
        let error = #expect(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Counter> { row in
                row[\.name] = "huge"
                row[\.hits] = UInt64.max
                row[\.views] = 0
                return false
            })
        }
        #expect(error?.code == .validation)
        #expect(error?.message.contains("Int64.max") == true)
        let byName = #expect(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Counter>(objects: [["name": "huge", "hits": UInt.max, "views": 0]]))
        }
        #expect(byName?.code == .validation)
        let result = try stack.container.execute(BatchInsertRequest<Counter>(objects: [
            ["name": "fits", "hits": UInt64(Int64.max), "views": UInt(3)],
        ]))
        #expect(result.count == 1)
        try stack.container.perform { context throws in
            #expect(try context.fetch(FetchRequest<Counter>()).map(\.hits) == [UInt64(Int64.max)])
        }
    }
}

/// A `UInt64` as earlier versions stored it: JSON text of the number.
struct JSONNumber: Codable, Sendable {
    var value: UInt64
    init(_ value: UInt64) { self.value = value }
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(UInt64.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

enum UnsignedAsJSON {
    @Model final class Counter {
        var name: String
        var hits: JSONNumber
        var limit: JSONNumber?
        init(name: String, hits: UInt64, limit: UInt64?) {
            self.name = name
            self.hits = JSONNumber(hits)
            self.limit = limit.map(JSONNumber.init)
        }
    }
}

enum UnsignedAsIntegers {
    @Model final class Counter {
        var name: String
        var hits: UInt64
        var limit: UInt?
        init(name: String) {
            self.name = name
            hits = 0
        }
    }
}

@Suite("Migrating unsigned values kept as JSON")
struct UnsignedMigrationTests {
    private func load(_ url: URL, _ kind: StoreKind, _ model: any PersistentModel.Type) async throws -> PersistentContainer {
        try await loadedContainer(at: url, kind, model, name: "Counters")
    }

    @Test(arguments: persistentStoreKinds)
    func unsignedValuesKeptAsJSONBecomeIntegersThatSortByValue(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Counters.sqlite")
        let old = try await load(url, kind, UnsignedAsJSON.Counter.self)
        try old.perform { context throws in
            context.insert(UnsignedAsJSON.Counter(name: "ten", hits: 10, limit: nil))
            context.insert(UnsignedAsJSON.Counter(name: "nine", hits: 9, limit: 3))
            context.insert(UnsignedAsJSON.Counter(name: "largest", hits: UInt64(Int64.max), limit: 0))
            try context.save()
        }
        try old.persistentStoreCoordinator.close()

        let new = try await load(url, kind, UnsignedAsIntegers.Counter.self)
        try new.perform { context throws in
            let sorted = try context.fetch(FetchRequest<UnsignedAsIntegers.Counter>(sortBy: [SortDescriptor(\.hits)]))
            #expect(sorted.map(\.name) == ["nine", "ten", "largest"], "as JSON text, \"10\" sorted before \"9\"")
            #expect(sorted.map(\.hits) == [9, 10, UInt64(Int64.max)])
            #expect(sorted.map(\.limit) == [3, nil, 0])
        }
    }

    @Test(arguments: persistentStoreKinds)
    func aJSONValueNoIntegerHoldsFailsTheMigrationAndLeavesTheStore(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Counters.sqlite")
        let old = try await load(url, kind, UnsignedAsJSON.Counter.self)
        try old.perform { context throws in
            context.insert(UnsignedAsJSON.Counter(name: "fits", hits: 1, limit: nil))
            context.insert(UnsignedAsJSON.Counter(name: "huge", hits: .max, limit: nil))
            try context.save()
        }
        try old.persistentStoreCoordinator.close()

        let error = await #expect(throws: StrataError.self) {
            _ = try await load(url, kind, UnsignedAsIntegers.Counter.self)
        }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("Counter.hits") == true)

        let again = try await load(url, kind, UnsignedAsJSON.Counter.self)
        try again.perform { context throws in
            #expect(try context.fetch(FetchRequest<UnsignedAsJSON.Counter>()).map(\.hits.value).sorted() == [1, .max])
        }
    }
}
