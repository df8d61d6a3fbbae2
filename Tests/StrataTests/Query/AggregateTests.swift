import Foundation
import Strata
import Testing

/// Counts, sums, extremes and averages over a request's matches, from the
/// store and over unsaved changes alike.
@Suite("Aggregates")
struct AggregateTests {
    private func library(_ stack: TestStack) throws {
        try stack.container.perform { context throws in
            let leGuin = Author(email: "ursula@example.com", name: "Le Guin")
            let austen = Author(email: "jane@example.com", name: "Austen")
            context.insert(leGuin)
            context.insert(austen)
            let books: [(Int, Double?, Author?)] = [(1965, 4.5, leGuin), (1851, nil, nil), (2003, 3, leGuin), (1932, 5, austen), (1818, nil, austen)]
            for (index, (year, rating, author)) in books.enumerated() {
                let book = Book(title: "book \(index)", year: year, rating: rating)
                context.insert(book)
                book.author = author
            }
            try context.save()
        }
    }

    @Test(arguments: testedStoreKinds)
    func aggregatesOfTheMatchesSavedOrNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        let modern = FetchRequest<Book>(predicate: #Predicate { $0.year >= 1900 })
        #expect(try context.aggregate(.count, of: modern) == 3)
        #expect(try context.aggregate(.sum(\.year), of: modern) == 5900)
        #expect(try context.aggregate(.min(\.year), of: modern) == 1932)
        #expect(try context.aggregate(.max(\.year), of: modern) == 2003)
        #expect(try context.aggregate(.average(\.rating), of: modern) == 12.5 / 3)
        #expect(try context.aggregate(.count(distinct: \.rating), of: FetchRequest<Book>()) == 3)
        #expect(try context.aggregate(.min(\.author?.name), of: modern) == "Austen")
        #expect(try context.aggregate(.max(\.author?.name), of: FetchRequest<Book>()) == "Le Guin")
        #expect(context.registeredObjects.isEmpty)

        // An unsaved book counts, as it would in a fetch.
        context.insert(Book(title: "new", year: 2020, rating: 1))
        #expect(try context.aggregate(.count, of: modern) == 4)
        #expect(try context.aggregate(.sum(\.year), of: modern) == 7920)
        #expect(try context.aggregate(.max(\.year), of: modern) == 2020)
        #expect(try context.aggregate(.average(\.rating), of: modern) == 13.5 / 4)
        #expect(try context.aggregate(.min(\.author?.name), of: modern) == "Austen")
    }

    @Test(arguments: testedStoreKinds)
    func nothingMatchingSumsToZeroAndHasNoExtremes(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        let none = FetchRequest<Book>(predicate: #Predicate { $0.year > 3000 })
        #expect(try context.aggregate(.count, of: none) == 0)
        #expect(try context.aggregate(.sum(\.year), of: none) == 0)
        #expect(try context.aggregate(.min(\.year), of: none) == nil)
        #expect(try context.aggregate(.average(\.rating), of: none) == nil)
    }

    @Test(arguments: testedStoreKinds)
    func aPageAggregatesOnlyItsObjects(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        var oldest = FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])
        oldest.fetchLimit = 2
        #expect(try context.aggregate(.sum(\.year), of: oldest) == 1818 + 1851)
        oldest.fetchOffset = 4
        #expect(try context.aggregate(.count, of: oldest) == 1)
    }

    @Test(arguments: testedStoreKinds)
    func anIntegerSumThatOverflowsFailsSavedOrNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Sample.self))
        let context = stack.container.newContext()
        // Sample.int is Int.max minus its seed.
        context.insert(Sample(seed: 1))
        context.insert(Sample(seed: 2))
        let unsaved = #expect(throws: StrataError.self) { _ = try context.aggregate(.sum(\.int), of: FetchRequest<Sample>()) }
        #expect(unsaved?.code == .unsupportedPredicate)
        try context.save()
        let saved = #expect(throws: StrataError.self) { _ = try context.aggregate(.sum(\.int), of: FetchRequest<Sample>()) }
        #expect(saved?.code == .unsupportedPredicate)
        // Int16's range is checked too, though the store sums in 64 bits.
        let narrow = #expect(throws: StrataError.self) { _ = try context.aggregate(.sum(\.int16), of: FetchRequest<Sample>()) }
        #expect(narrow?.code == .unsupportedPredicate)
    }

    @Test(arguments: testedStoreKinds)
    func decimalExtremesAreNumeric(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Sample.self))
        let context = stack.container.newContext()
        for (seed, text) in ["9.5", "10", "-5"].enumerated() {
            let sample = Sample(seed: seed)
            sample.decimal = Decimal(string: text)!
            context.insert(sample)
        }
        try context.save()
        #expect(try context.aggregate(.max(\.decimal), of: FetchRequest<Sample>()) == Decimal(10))
        #expect(try context.aggregate(.min(\.decimal), of: FetchRequest<Sample>()) == Decimal(-5))
        let sum = #expect(throws: StrataError.self) { _ = try context.aggregate(.sum(\.decimal), of: FetchRequest<Sample>()) }
        #expect(sum?.code == .unsupportedPredicate)
    }
}
