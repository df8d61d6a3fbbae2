import Foundation
import Strata
import Testing

/// A predicate means the same for unsaved objects (evaluated in Swift) and
/// for stored rows (evaluated by the store), with Swift's meaning.
@Suite("One meaning for predicates")
struct PredicateMeaningTests {
    /// Titles of the books a request finds, sorted.
    private func titles(_ context: ManagedObjectContext, _ predicate: Predicate<Book>) throws -> [String] {
        try context.fetch(FetchRequest<Book>(predicate: predicate)).map(\.title).sorted()
    }

    @Test(arguments: testedStoreKinds)
    func canonicallyEquivalentTextIsEqualSavedOrNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let decomposed = "Cafe\u{301}"
        let precomposed = "Caf\u{E9}"
        #expect(decomposed == precomposed)
        try stack.container.perform { context throws in
            context.insert(Book(title: decomposed, year: 1))
            // Unsaved: Swift's `==`.
            #expect(try titles(context, #Predicate { $0.title == precomposed }).count == 1)
            try context.save()
            // Saved: the store's comparison agrees.
            #expect(try titles(context, #Predicate { $0.title == precomposed }).count == 1)
            #expect(try titles(context, #Predicate { $0.title != precomposed }).isEmpty)
            #expect(try titles(context, #Predicate { $0.title.starts(with: "Caf\u{E9}") }).count == 1)
        }
    }

    @Test(arguments: testedStoreKinds)
    func canonicallyEquivalentTextCollidesInAUniqueAttribute(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            context.insert(Author(email: "jose\u{301}@example.com", name: "A"))
            try context.save()
        }
        let error = #expect(throws: StrataError.self) {
            try stack.container.perform { context throws in
                context.insert(Author(email: "jos\u{E9}@example.com", name: "B"))
                try context.save()
            }
        }
        #expect(error?.code == .uniquenessConflict)
    }

    @Test(arguments: testedStoreKinds)
    func textSortsAsSwiftSortsItSavedOrNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let words = ["e\u{301}clair", "eclair", "f", "\u{E9}t\u{E9}", "Z", "e"]
        try stack.container.perform { context throws in
            for (index, word) in words.enumerated() { context.insert(Book(title: word, year: index)) }
            let request = FetchRequest<Book>(sortBy: [SortDescriptor(\.title, comparator: .lexical)])
            let pending = try context.fetch(request).map(\.title)
            try context.save()
            let stored = try context.fetch(request).map(\.title)
            #expect(pending.elementsEqual(words.sorted()))
            #expect(stored.elementsEqual(words.sorted()))
        }
    }

    @Test(arguments: testedStoreKinds)
    func forceUnwrappingNilFailsTheFetchSavedOrNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            context.insert(Book(title: "Rated", year: 1, rating: 4.5))
            try context.save()
            // No nil among the rows: the unwrap reads the values.
            #expect(try titles(context, #Predicate { $0.rating! > 3 }) == ["Rated"])

            context.insert(Book(title: "Unrated", year: 2))
            let pending = #expect(throws: StrataError.self) { _ = try titles(context, #Predicate { $0.rating! != 3 }) }
            #expect(pending?.code == .unsupportedPredicate)
            try context.save()
            let stored = #expect(throws: StrataError.self) { _ = try titles(context, #Predicate { $0.rating! != 3 }) }
            #expect(stored?.code == .unsupportedPredicate)
            // Unwrapping safely works on both.
            #expect(try titles(context, #Predicate { ($0.rating ?? 0) != 3 }) == ["Rated", "Unrated"])
            #expect(try context.count(for: FetchRequest<Book>(predicate: #Predicate { $0.rating != nil && $0.rating! > 3 })) == 1)
        }
    }

    @Test(arguments: testedStoreKinds)
    func tiesKeepTheOrderASaveWouldGiveThem(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            let first = Book(title: "same", year: 1, rating: 3)
            context.insert(first)
            context.insert(Book(title: "other", year: 2))
            try context.save()
            // A changed saved object and a new one tie with it on every sort key.
            first.rating = 1.5
            context.insert(Book(title: "same", year: 1, rating: 4))
            let changed = try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year < 3 }))
            let request = FetchRequest<Book>(sortBy: [SortDescriptor(\.title, comparator: .lexical), SortDescriptor(\.year)])
            let unsaved = try context.fetch(request).map { $0.rating ?? 0 }
            let unsorted = try context.fetch(FetchRequest<Book>()).map(\.title)
            try context.save()
            #expect(try context.fetch(request).map { $0.rating ?? 0 } == unsaved)
            #expect(try context.fetch(FetchRequest<Book>()).map(\.title) == unsorted)
            #expect(unsaved == [0, 1.5, 4])
            #expect(changed.count == 3)
        }
    }
}
