import Foundation
import Strata
import StrataTestModels
import Testing

/// Matching and ordering text regardless of case and diacritics gives the same
/// answer for unsaved objects (evaluated in Swift) as for stored rows (each
/// store's own evaluation), on every test string.
@Suite("Text matching")
struct TextMatchingTests {
    static let titles = [
        "Straße", "STRASSE", "strasse", "École", "ÉCOLE", "ecole", "Écoles", "İstanbul", "ISTANBUL",
        "istanbul", "👍🏽 great", "👍 fine", "Σίσυφος", "plain",
    ]

    static func expectations() -> [(String, Predicate<Book>, Set<String>)] {
        let strasse = "STRASSE".folded, ecole = "ecole".folded, coles = "COLES".folded.backwards
        let cole = "cole".folded.backwards, tanb = "TANB".folded, thumb = "👍", toned = "👍🏽".folded
        let sisyphus = "ΣΊΣΥΦΟΣ".folded
        let decomposed = "E\u{301}"
        return [
            ("folded equality, ß and SS", #Predicate { $0.title.folded == strasse }, ["Straße", "STRASSE", "strasse"]),
            ("folded equality, accents", #Predicate { $0.title.folded == ecole }, ["École", "ÉCOLE", "ecole"]),
            ("folded prefix", #Predicate { $0.title.folded.starts(with: ecole) }, ["École", "ÉCOLE", "ecole", "Écoles"]),
            ("folded suffix", #Predicate { $0.title.folded.backwards.starts(with: coles) }, ["Écoles"]),
            ("folded suffix, several", #Predicate { $0.title.folded.backwards.starts(with: cole) }, ["École", "ÉCOLE", "ecole"]),
            ("folded containment, dotted İ", #Predicate { $0.title.folded.contains(tanb) }, ["İstanbul", "ISTANBUL", "istanbul"]),
            ("localizedStandardContains", #Predicate { $0.title.localizedStandardContains("ECOLE") },
             ["École", "ÉCOLE", "ecole", "Écoles"]),
            ("emoji by code point", #Predicate { $0.title.contains(thumb) }, ["👍🏽 great", "👍 fine"]),
            ("emoji with a modifier", #Predicate { $0.title.folded.contains(toned) }, ["👍🏽 great"]),
            ("final sigma", #Predicate { $0.title.folded == sisyphus }, ["Σίσυφος"]),
            ("exact text still exact", #Predicate { $0.title == "ecole" }, ["ecole"]),
            ("a decomposed needle matches composed text", #Predicate { $0.title.contains(decomposed) }, ["École", "ÉCOLE", "Écoles"]),
            ("a decomposed prefix matches composed text", #Predicate { $0.title.starts(with: decomposed) }, ["École", "ÉCOLE", "Écoles"]),
        ]
    }

    @Test func foldingIsUnicodeCaseFoldingWithoutDiacritics() {
        #expect("Straße".folded == "strasse")
        #expect("ÉCOLE".folded == "ecole")
        #expect("İstanbul".folded == "istanbul")
        #expect("ΣΊΣΥΦΟΣ".folded == "Σίσυφος".folded)
        #expect("👍🏽".folded == "👍🏽")
        #expect("abc".backwards == "cba")
    }

    @Test(arguments: testedStoreKinds)
    func unsavedAndStoredObjectsMatchTheSameTexts(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            for (year, title) in Self.titles.enumerated() { context.insert(Book(title: title, year: year)) }
            for (name, predicate, expected) in Self.expectations() {
                let pending = Set(try context.fetch(FetchRequest<Book>(predicate: predicate)).map(\.title))
                #expect(pending == expected, "unsaved: \(name)")
            }
            try context.save()
            context.reset()
            for (name, predicate, expected) in Self.expectations() {
                let stored = Set(try context.fetch(FetchRequest<Book>(predicate: predicate)).map(\.title))
                #expect(stored == expected, "stored: \(name)")
                #expect(try context.fetchCount(FetchRequest<Book>(predicate: predicate)) == expected.count, "count: \(name)")
            }
        }
    }

    @Test(arguments: testedStoreKinds)
    func foldedSortsIgnoreCaseAndDiacriticsSavedOrNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let expected = [
            "École", "ÉCOLE", "ecole", "Écoles", "İstanbul", "ISTANBUL", "istanbul", "plain", "Straße", "STRASSE",
            "strasse", "Σίσυφος", "👍 fine", "👍🏽 great",
        ]
        let request = FetchRequest<Book>(sortBy: [SortDescriptor(\.title.folded)])
        try stack.container.perform { context throws in
            for (year, title) in Self.titles.enumerated() { context.insert(Book(title: title, year: year)) }
            #expect(try context.fetch(request).map(\.title) == expected)
            try context.save()
            context.reset()
            #expect(try context.fetch(request).map(\.title) == expected)
            // Half saved, half not: the two kinds interleave in one order.
            for title in ["ecole", "Strasse", "PLAIN"] { context.insert(Book(title: title, year: 100)) }
            let mixed = try context.fetch(request).map(\.title)
            #expect(mixed.prefix(5) == ["École", "ÉCOLE", "ecole", "ecole", "Écoles"])
            #expect(Array(mixed[7...9]) == ["istanbul", "plain", "PLAIN"])
        }
    }
}
