import Foundation
import Strata
import Testing

@Suite("Fetching in batches")
struct BatchedFetchTests {
    static let sorted = [SortDescriptor<Book>(\.year), SortDescriptor(\.title, comparator: .lexical)]

    @Test(arguments: testedStoreKinds)
    func batchesReturnTheSameObjectsInTheSameOrderAsAWholeFetch(_ kind: StoreKind) async throws {
        let stack = try await FetchTests.library(kind)
        try stack.container.perform { context throws in
            var request = FetchRequest<Book>(sortBy: Self.sorted)
            request.fetchOffset = 1
            request.fetchLimit = 4
            let whole = try context.fetch(request).map(\.title)
            let batched = try context.fetch(request, batchSize: 3)
            #expect(batched.count == 4)
            #expect(batched.map(\.title) == whole)
            #expect(whole == ["A Wizard of Earthsea", "Dune Messiah", "Anonymous", "The Dispossessed"])
            #expect(batched.last?.title == "The Dispossessed")
            #expect(batched[1].title == "Dune Messiah", "going back reloads an earlier batch")
        }
    }

    @Test(arguments: testedStoreKinds)
    func objectsOfPassedBatchesThatNothingHoldsAreFreed(_ kind: StoreKind) async throws {
        let stack = try await FetchTests.library(kind)
        try stack.container.perform { context throws in
            let results = try context.fetch(FetchRequest<Book>(sortBy: Self.sorted), batchSize: 2)
            weak let first = results[0]
            #expect(first?.title == "Dune")
            #expect(context.registeredObjects.count == 2)
            var years: [Int] = []
            for book in results { years.append(book.year) }
            #expect(years == [1965, 1968, 1969, 1974, 1974, 1974])
            #expect(first == nil, "the first batch's objects were let go")
            #expect(context.registeredObjects.count == 2, "only the last batch stays registered")
        }
    }

    @Test(arguments: testedStoreKinds)
    func heldAndChangedObjectsStayRegisteredAndKeepTheirChanges(_ kind: StoreKind) async throws {
        let stack = try await FetchTests.library(kind)
        try stack.container.perform { context throws in
            let results = try context.fetch(FetchRequest<Book>(sortBy: Self.sorted), batchSize: 2)
            let held = results[0]
            results[1].title = "A Wizard of Earthsea (revised)"
            let changedID = results[1].objectID
            #expect(results.map(\.year).count == 6)
            #expect(context.registeredObject(for: held.objectID) === held, "identity is kept for held objects")
            let changed = try #require(context.registeredObject(for: changedID) as? Book)
            #expect(changed.title == "A Wizard of Earthsea (revised)")
            #expect(results[1] === changed, "reloading the batch finds the same changed object")
            try context.save()
        }
        let titles = try stack.container.perform { context in
            try context.fetch(FetchRequest<Book>(sortBy: Self.sorted)).map(\.title)
        }
        #expect(titles.contains("A Wizard of Earthsea (revised)"))
    }

    @Test(arguments: testedStoreKinds)
    func pendingChangesAreIncludedAsInAWholeFetch(_ kind: StoreKind) async throws {
        let stack = try await FetchTests.library(kind)
        try stack.container.perform { context throws in
            context.insert(Book(title: "Aardvark", year: 1900))
            let request = FetchRequest<Book>(predicate: #Predicate { $0.year < 1966 }, sortBy: Self.sorted)
            let batched = try context.fetch(request, batchSize: 1)
            #expect(batched.map(\.title) == ["Aardvark", "Dune"])
            #expect(try context.fetch(request, batchSize: 0).map(\.title) == ["Aardvark", "Dune"])
        }
    }

    @Test(arguments: testedStoreKinds)
    func prefetchingAppliesToEachBatch(_ kind: StoreKind) async throws {
        let stack = try await FetchTests.library(kind)
        try stack.container.perform { context throws in
            var request = FetchRequest<Book>(sortBy: Self.sorted)
            request.relationshipKeyPathsForPrefetching = [\Book.author]
            let names = try context.fetch(request, batchSize: 4).map { $0.author?.name }
            #expect(names == ["Herbert", "Le Guin", "Herbert", nil, "Le Guin", nil])
        }
    }

    @Test(arguments: testedStoreKinds)
    func aResetContextHandsOutFreshObjects(_ kind: StoreKind) async throws {
        let stack = try await FetchTests.library(kind)
        try stack.container.perform { context throws in
            let results = try context.fetch(FetchRequest<Book>(sortBy: Self.sorted), batchSize: 4)
            let before = results[0]
            context.reset()
            #expect(before.context == nil, "a reset lets go of every object")
            let after = results[0]
            #expect(after !== before)
            #expect(after.title == "Dune")
            #expect(context.registeredObject(for: after.objectID) === after)
            #expect(context.objectGraphProblems().isEmpty)
        }
    }

    @Test(arguments: testedStoreKinds)
    func aStoreWithoutMatchesGivesAnEmptyCollection(_ kind: StoreKind) async throws {
        let stack = try await FetchTests.library(kind)
        try stack.container.perform { context throws in
            let results = try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year > 3000 }), batchSize: 10)
            #expect(results.isEmpty)
            #expect(Array(results).isEmpty)
        }
    }

    @Test(arguments: testedStoreKinds)
    func batchesInKeyOrderSkipTheRowsBetweenTheirKeysThatDoNotMatch(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context in
            for year in 0..<40 { context.insert(Book(title: "b\(year)", year: year)) }
        }
        try stack.container.perform { context throws in
            // Few gaps (read as key ranges) and many (read by key), in key order.
            let requests = [
                FetchRequest<Book>(predicate: #Predicate { $0.year != 5 && $0.year != 6 && $0.year != 31 }),
                FetchRequest<Book>(predicate: #Predicate { $0.year < 3 || $0.year > 36 }),
            ]
            for request in requests {
                let whole = try context.fetch(request).map(\.title)
                let batched = try context.fetch(request, batchSize: 6).map(\.title)
                #expect(batched == whole)
            }
            // A row deleted in the store after the keys were read is skipped by
            // the range read and becomes a fault; the others load.
            let results = try context.fetch(FetchRequest<Book>(), batchSize: 10)
            try stack.container.perform { other in
                let gone = try other.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year == 3 }))
                other.delete(gone[0])
            }
            #expect(results[0].title == "b0")
            #expect(results[4].title == "b4")
            #expect(results[3].isFault)
        }
    }
}
