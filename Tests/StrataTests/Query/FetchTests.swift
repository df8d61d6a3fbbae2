import Foundation
import Strata
import Testing

@Suite("Fetching")
struct FetchTests {
    /// Saves a small library and returns the stack.
    static func library(_ kind: StoreKind) async throws -> TestStack {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            let leGuin = Author(email: "le.guin@example.com", name: "Le Guin")
            let herbert = Author(email: "herbert@example.com", name: "Herbert")
            context.insert(leGuin)
            context.insert(herbert)
            let books: [(String, Int, Double?, Author?)] = [
                ("A Wizard of Earthsea", 1968, 4.5, leGuin), ("The Dispossessed", 1974, nil, leGuin),
                ("Dune", 1965, 4.8, herbert), ("Dune Messiah", 1969, 3.9, herbert),
                ("Anonymous", 1974, 2.0, nil), ("Zebra", 1974, nil, nil),
            ]
            for (title, year, rating, author) in books {
                let book = Book(title: title, year: year, rating: rating)
                context.insert(book)
                book.author = author
            }
        }
        return stack
    }

    func titles(_ stack: TestStack, _ request: FetchRequest<Book>) throws -> [String] {
        try stack.container.perform { context in try context.fetch(request).map(\.title) }
    }

    @Test(arguments: testedStoreKinds)
    func mixedSortWithLimitAndOffset(_ kind: StoreKind) async throws {
        let stack = try await Self.library(kind)
        var request = FetchRequest<Book>(sortBy: [SortDescriptor(\.year, order: .reverse), SortDescriptor(\.title, comparator: .lexical)])
        #expect(try titles(stack, request) == [
            "Anonymous", "The Dispossessed", "Zebra", "Dune Messiah", "A Wizard of Earthsea", "Dune",
        ])
        request.fetchOffset = 1
        request.fetchLimit = 3
        #expect(try titles(stack, request) == ["The Dispossessed", "Zebra", "Dune Messiah"])
        let count = try stack.container.perform { try $0.count(for: request) }
        #expect(count == 3)
    }

    @Test(arguments: testedStoreKinds)
    func nilPredicates(_ kind: StoreKind) async throws {
        let stack = try await Self.library(kind)
        let unrated = FetchRequest<Book>(predicate: #Predicate { $0.rating == nil }, sortBy: [SortDescriptor(\.title, comparator: .lexical)])
        #expect(try titles(stack, unrated) == ["The Dispossessed", "Zebra"])
        let notFour = FetchRequest<Book>(predicate: #Predicate { $0.rating != 4.5 }, sortBy: [SortDescriptor(\.title, comparator: .lexical)])
        #expect(try titles(stack, notFour).count == 5, "nil ratings are not equal to 4.5, as in Swift")
        let orphans = FetchRequest<Book>(predicate: #Predicate { $0.author == nil })
        #expect(Set(try titles(stack, orphans)) == ["Anonymous", "Zebra"])
    }

    @Test(arguments: testedStoreKinds)
    func membershipAndStringPredicates(_ kind: StoreKind) async throws {
        let stack = try await Self.library(kind)
        let years = [1965, 1969]
        let chosen = FetchRequest<Book>(predicate: #Predicate { years.contains($0.year) }, sortBy: [SortDescriptor(\.year)])
        #expect(try titles(stack, chosen) == ["Dune", "Dune Messiah"])
        let dune = FetchRequest<Book>(predicate: #Predicate { $0.title.starts(with: "Dune") && !$0.title.contains("Messiah") })
        #expect(try titles(stack, dune) == ["Dune"])
        let rated = FetchRequest<Book>(predicate: #Predicate { ($0.rating ?? 0) > 4 || $0.year < 1966 }, sortBy: [SortDescriptor(\.year)])
        #expect(try titles(stack, rated) == ["Dune", "A Wizard of Earthsea"])
    }

    @Test(arguments: testedStoreKinds)
    func toOneKeyPathPredicates(_ kind: StoreKind) async throws {
        let stack = try await Self.library(kind)
        let byName = FetchRequest<Book>(predicate: #Predicate { $0.author?.name == "Le Guin" }, sortBy: [SortDescriptor(\.year)])
        #expect(try titles(stack, byName) == ["A Wizard of Earthsea", "The Dispossessed"])
        let flat = FetchRequest<Book>(predicate: #Predicate { $0.author.flatMap { $0.name.starts(with: "Her") } == true })
        #expect(Set(try titles(stack, flat)) == ["Dune", "Dune Messiah"])
    }

    @Test(arguments: testedStoreKinds)
    func pendingChangesShowInResultsAndCounts(_ kind: StoreKind) async throws {
        let stack = try await Self.library(kind)
        try stack.container.perform { context throws in
            let request = FetchRequest<Book>(predicate: #Predicate { $0.year == 1974 }, sortBy: [SortDescriptor(\.title, comparator: .lexical)])
            let before = try context.fetch(request)
            #expect(before.map(\.title) == ["Anonymous", "The Dispossessed", "Zebra"])
            context.insert(Book(title: "Inserted", year: 1974))
            before[0].year = 1900                    // no longer matches
            context.delete(before[2])
            let dune = try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == "Dune" }))[0]
            dune.year = 1974                         // now matches
            #expect(try context.fetch(request).map(\.title) == ["Dune", "Inserted", "The Dispossessed"])
            #expect(try context.count(for: request) == 3)

            var storeOnly = request
            storeOnly.includesPendingChanges = false
            #expect(try context.fetch(storeOnly).map(\.title) == ["Anonymous", "The Dispossessed", "Zebra"])
            context.rollback()
        }
    }

    @Test(arguments: testedStoreKinds)
    func batchedFetchReturnsFaultsThatLoadInBatches(_ kind: StoreKind) async throws {
        let stack = try await Self.library(kind)
        try stack.container.perform { context throws in
            var request = FetchRequest<Book>(sortBy: [SortDescriptor(\.year), SortDescriptor(\.title, comparator: .lexical)])
            request.fetchBatchSize = 2
            let books = try context.fetch(request)
            #expect(books.count == 6)
            #expect(books.allSatisfy { $0.isFault })
            #expect(books[0].title == "Dune")
            #expect(!books[1].isFault, "the second object loaded with the first one's batch")
            #expect(books[2].isFault)
            #expect(books.map(\.year) == [1965, 1968, 1969, 1974, 1974, 1974])
        }
    }

    @Test(arguments: testedStoreKinds)
    func anUnsupportedPredicateThrowsNamingTheExpression(_ kind: StoreKind) async throws {
        let stack = try await Self.library(kind)
        try stack.container.perform { context throws in
            let request = FetchRequest<Book>(predicate: #Predicate { $0.title.count > 3 })
            let error = #expect(throws: StrataError.self) { try context.fetch(request) }
            #expect(error?.code == .unsupportedPredicate)
            #expect(error?.message.isEmpty == false)
        }
    }

    @Test func fetchingBeforeLoadingThrowsStoreNotLoaded() async throws {
        let container = try PersistentContainer(name: "Unloaded", schema: librarySchema)
        container.storeDescriptions = [.inMemory()]
        let context = container.newContext()
        let book = Book(title: "Kept", year: 1)
        context.insert(book)
        let error = #expect(throws: StrataError.self) { try context.fetch(FetchRequest<Book>()) }
        #expect(error?.code == .storeNotLoaded)
        #expect(throws: StrataError.self) { try context.save() }
        #expect(book.isInserted, "nothing is lost")
        try await container.loadPersistentStores()
        try context.save()
        #expect(try context.count(for: FetchRequest<Book>()) == 1)
    }
}
