import Foundation
import Strata
import Testing

/// Groups of a request's matches with aggregates per group, a condition on
/// them, an order and a page: from the store in one statement and over unsaved
/// changes, with the same meaning.
@Suite("Grouped results")
struct GroupedResultsTests {
    /// Le Guin: 1965 (4.5), 2003 (3); Austen: 1932 (5), 1818 (unrated); no author: 1851 (unrated).
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

    private struct Row: Equatable, CustomStringConvertible {
        let author: String?
        let books: Int
        let years: Int
        let rating: Double?
        var description: String { "\(author ?? "nil") \(books) \(years) \(rating.map { "\($0)" } ?? "nil")" }
    }

    private func byAuthor(
        _ context: ManagedObjectContext, having: GroupCondition<Book>? = nil, sortBy: [GroupOrder<Book>] = [],
        limit: Int? = nil, offset: Int = 0
    ) throws -> [Row] {
        try context.fetchGroups(
            of: FetchRequest<Book>(), by: \.author?.name, computing: .count, .sum(\.year), .average(\.rating),
            having: having, sortBy: sortBy, limit: limit, offset: offset
        ).map { Row(author: $0.keys, books: $0.values.0, years: $0.values.1, rating: $0.values.2) }
    }

    @Test(arguments: testedStoreKinds)
    func groupsCarryTheirKeysAndAggregatesInKeyOrderSavedOrNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        let stored = [
            Row(author: nil, books: 1, years: 1851, rating: nil),
            Row(author: "Austen", books: 2, years: 3750, rating: 5),
            Row(author: "Le Guin", books: 2, years: 3968, rating: 3.75),
        ]
        #expect(try byAuthor(context) == stored)
        #expect(context.registeredObjects.isEmpty)

        // An unsaved book of Le Guin's counts, as it would in a fetch.
        let leGuin = try #require(try context.fetch(FetchRequest<Author>(predicate: #Predicate { $0.name == "Le Guin" })).first)
        let book = Book(title: "new", year: 2020, rating: 1)
        context.insert(book)
        book.author = leGuin
        #expect(try byAuthor(context) == [stored[0], stored[1], Row(author: "Le Guin", books: 3, years: 5988, rating: 8.5 / 3)])
    }

    @Test(arguments: testedStoreKinds)
    func havingKeepsTheGroupsWhoseAggregatesMeetIt(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        // Run once from the store, once over an unsaved change that moves nothing.
        for pending in [false, true] {
            if pending { context.insert(Author(email: "new@example.com", name: "New")) }
            #expect(try byAuthor(context, having: .count > 1).map(\.author) == ["Austen", "Le Guin"])
            #expect(try byAuthor(context, having: .average(\.rating) > 4).map(\.author) == ["Austen"])
            // The group without ratings has no average: neither it nor its negation holds.
            #expect(try byAuthor(context, having: !(.average(\.rating) > 4)).map(\.author) == ["Le Guin"])
            #expect(try byAuthor(context, having: .count == 1 || .min(\.year) < 1850).map(\.author) == [nil, "Austen"])
            #expect(try byAuthor(context, having: .count >= 2 && .max(\.year) != 2003).map(\.author) == ["Austen"])
            // A condition may name an aggregate the results do not carry.
            #expect(try byAuthor(context, having: .count(distinct: \.rating) == 2).map(\.author) == ["Le Guin"])
        }
    }

    @Test(arguments: testedStoreKinds)
    func groupsSortAndPageByAggregatesAndKeys(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        for pending in [false, true] {
            if pending { context.insert(Author(email: "new@example.com", name: "New")) }
            let byYears: [GroupOrder<Book>] = [.aggregate(.sum(\.year), .reverse)]
            #expect(try byAuthor(context, sortBy: byYears).map(\.author) == ["Le Guin", "Austen", nil])
            #expect(try byAuthor(context, sortBy: byYears, limit: 2).map(\.author) == ["Le Guin", "Austen"])
            #expect(try byAuthor(context, sortBy: byYears, limit: 1, offset: 1).map(\.author) == ["Austen"])
            #expect(try byAuthor(context, sortBy: [.key(\.author?.name, .reverse)]).map(\.author) == ["Le Guin", "Austen", nil])
            // Ties fall back to the keys, ascending; the order's aggregate need not be asked for.
            #expect(try byAuthor(context, sortBy: [.aggregate(.count, .reverse)]).map(\.author) == ["Austen", "Le Guin", nil])
            #expect(try byAuthor(context, sortBy: [.aggregate(.min(\.rating))]).map(\.author) == [nil, "Le Guin", "Austen"])
        }
    }

    @Test(arguments: testedStoreKinds)
    func severalKeysGroupTheirCombinations(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        let request = FetchRequest<Book>(predicate: #Predicate { $0.year > 1900 })
        let groups = try context.fetchGroups(of: request, by: \.author?.name, \.rating, computing: .count)
        let pairs = groups.map { "\($0.keys.0 ?? "nil")/\($0.keys.1.map { "\($0)" } ?? "nil")=\($0.values)" }
        #expect(pairs == ["Austen/5.0=1", "Le Guin/3.0=1", "Le Guin/4.5=1"])

        // No keys: one group of every match, even of none.
        let all = try context.fetchGroups(of: FetchRequest<Book>(), computing: .count, .max(\.year))
        #expect(all.count == 1 && all[0].values == (5, 2003))
        let none = try context.fetchGroups(of: FetchRequest<Book>(predicate: #Predicate { $0.year > 3000 }), computing: .count, .sum(\.year))
        #expect(none.count == 1 && none[0].values == (0, 0))
        context.insert(Book(title: "pending", year: 1000))
        let withPending = try context.fetchGroups(of: FetchRequest<Book>(predicate: #Predicate { $0.year > 3000 }), computing: .count)
        #expect(withPending.map(\.values) == [0])
    }

    @Test(arguments: testedStoreKinds)
    func aFoldedKeyGroupsTextRegardlessOfCaseAndDiacritics(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        for title in ["École", "ecole", "ÉCOLE", "Straße", "STRASSE", "zoo"] {
            context.insert(Book(title: title, year: 2000))
        }
        for pending in [true, false] {
            if !pending { try context.save() }
            let groups = try context.fetchGroups(of: FetchRequest<Book>(), by: \.title.folded, computing: .count)
            #expect(groups.map(\.keys) == ["ecole", "strasse", "zoo"])
            #expect(groups.map(\.values) == [3, 2, 1])
        }
    }

    @Test(arguments: testedStoreKinds)
    func anIntegerSumThatOverflowsFailsEvenInAGroupLeftOut(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Sample.self))
        let context = stack.container.newContext()
        for seed in 0..<4 {
            let sample = Sample(seed: seed)
            sample.flag = seed < 2
            context.insert(sample)
        }
        try context.save()
        // Each group sums two values near Int64.min; no group has more than two rows.
        let error = #expect(throws: StrataError.self) {
            _ = try context.fetchGroups(of: FetchRequest<Sample>(), by: \.flag, computing: .sum(\.int64), having: .count > 2)
        }
        #expect(error?.code == .unsupportedPredicate)
    }

    @Test(arguments: testedStoreKinds)
    func decimalKeysAndExtremesCompareAsNumbers(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Sample.self))
        let context = stack.container.newContext()
        for (seed, text) in ["10", "9.5", "100.25", "9.5"].enumerated() {
            let sample = Sample(seed: seed)
            sample.decimal = Decimal(string: text)!
            sample.flag = seed.isMultiple(of: 2)
            context.insert(sample)
        }
        for pending in [true, false] {
            if !pending { try context.save() }
            let byValue = try context.fetchGroups(of: FetchRequest<Sample>(), by: \.decimal, computing: .count)
            #expect(byValue.map(\.keys) == ["9.5", "10", "100.25"].map { Decimal(string: $0)! })
            #expect(byValue.map(\.values) == [2, 1, 1])
            let byFlag = try context.fetchGroups(
                of: FetchRequest<Sample>(), by: \.flag, computing: .max(\.decimal),
                having: .max(\.decimal) > Decimal(50), sortBy: [.aggregate(.min(\.decimal), .reverse)])
            #expect(byFlag.map(\.keys) == [true])
            #expect(byFlag.map(\.values) == [Decimal(string: "100.25")!])
        }
    }

    @Test(arguments: testedStoreKinds)
    func aPageOfTheRequestIsGroupedAlone(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        var oldest = FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])
        oldest.fetchLimit = 3
        let groups = try context.fetchGroups(of: oldest, by: \.author?.name, computing: .count)
        #expect(groups.map(\.keys) == [nil, "Austen"])
        #expect(groups.map(\.values) == [1, 2])
    }

    @Test(arguments: testedStoreKinds)
    func aChildContextGroupsWithItsParentsUnsavedChanges(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let parent = stack.container.newContext()
        let doomed = try parent.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year == 1851 }))
        doomed.forEach(parent.delete)
        let child = parent.newChildContext()
        let groups = try child.fetchGroups(of: FetchRequest<Book>(), by: \.author?.name, computing: .count)
        #expect(groups.map(\.keys) == ["Austen", "Le Guin"])
        #expect(groups.map(\.values) == [2, 2])
    }

    @Test(arguments: testedStoreKinds)
    func groupsThatCannotBeComputedFailWithAReason(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try library(stack)
        let context = stack.container.newContext()
        let unsorted = #expect(throws: StrataError.self) {
            try context.fetchGroups(of: FetchRequest<Book>(), by: \.author?.name, computing: .count, sortBy: [.key(\.year)])
        }
        #expect(unsorted?.code == .unsupportedPredicate)
        let relationship = #expect(throws: StrataError.self) {
            try context.fetchGroups(of: FetchRequest<Author>(), by: \.books.count, computing: .count)
        }
        #expect(relationship?.code == .unsupportedPredicate)
    }

    @Test
    func aGroupedFetchIsOneStatement() async throws {
        let stack = try await TestStack(.inMemory)
        try library(stack)
        let counter = try SelectCounter(stack.container)
        let context = stack.container.newContext()
        _ = try byAuthor(context, having: .count > 1, sortBy: [.aggregate(.sum(\.year), .reverse)], limit: 2)
        #expect(counter.value == 1)
    }
}
