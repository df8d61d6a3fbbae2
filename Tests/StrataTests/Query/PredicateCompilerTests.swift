import Foundation
import Testing
@testable import StrataCore


/// Compiles a PCModel.Book predicate and checks the SQL and arguments exactly.
private func expectSQL(
    _ predicate: Predicate<PCModel.Book>, _ sql: String, _ arguments: [StoredValue] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let fragment = try PCModel.compile(predicate)
    #expect(fragment.sql == sql, sourceLocation: sourceLocation)
    #expect(fragment.arguments == arguments, sourceLocation: sourceLocation)
}

@Suite("PredicateCompiler: comparisons and logic")
struct PredicateCompilerTests {
    @Test func comparisons() throws {
        try expectSQL(#Predicate<PCModel.Book> { $0.year >= 2000 }, #"t0."year" >= ?"#, [.integer(2000)])
        try expectSQL(#Predicate<PCModel.Book> { $0.year > 2000 }, #"t0."year" > ?"#, [.integer(2000)])
        try expectSQL(#Predicate<PCModel.Book> { $0.year <= 2000 }, #"t0."year" <= ?"#, [.integer(2000)])
        try expectSQL(#Predicate<PCModel.Book> { $0.year < 2000 }, #"t0."year" < ?"#, [.integer(2000)])
        try expectSQL(#Predicate<PCModel.Book> { $0.title < "M" }, #"t0."title" < ?"#, [.text("M")])
        let date = Date(timeIntervalSinceReferenceDate: 100)
        try expectSQL(#Predicate<PCModel.Book> { $0.added > date }, #"t0."added" > ?"#, [.real(100)])
    }

    @Test func equalityUsesIsSoNilBehavesAsInSwift() throws {
        try expectSQL(#Predicate<PCModel.Book> { $0.title == "Dune" }, #"t0."title" IS ?"#, [.text("Dune")])
        try expectSQL(#Predicate<PCModel.Book> { $0.rating == nil }, #"t0."rating" IS NULL"#)
        try expectSQL(#Predicate<PCModel.Book> { $0.rating != nil }, #"t0."rating" IS NOT NULL"#)
        try expectSQL(#Predicate<PCModel.Book> { $0.rating != 3.0 }, #"t0."rating" IS NOT ?"#, [.real(3)])
        let missing: Double? = nil
        try expectSQL(#Predicate<PCModel.Book> { $0.rating == missing }, #"t0."rating" IS NULL"#)
    }

    @Test func valuesAreBoundAsStored() throws {
        try expectSQL(#Predicate<PCModel.Book> { $0.isDone == true }, #"t0."isDone" IS ?"#, [.integer(1)])
        let published = PCModel.Status.published
        try expectSQL(#Predicate<PCModel.Book> { $0.status == published }, #"t0."status" IS ?"#, [.text("published")])
        let uuid = UUID()
        try expectSQL(#Predicate<PCModel.Book> { $0.uid == uuid }, #"t0."uid" IS ?"#, [.text(uuid.uuidString)])
        let price = Decimal(string: "9.99")!
        try expectSQL(#Predicate<PCModel.Book> { $0.price == price }, #"t0."price" IS ?"#, [.text("9.99")])
        // Stored as text, ordered as numbers.
        try expectSQL(#Predicate<PCModel.Book> { $0.price > price }, #"t0."price" COLLATE strata_decimal > ?"#, [.text("9.99")])
        let size = PCModel.Dimensions(width: 3, height: 4)
        try expectSQL(#Predicate<PCModel.Book> { $0.size == size }, #"t0."size" IS ?"#, [.text(#"{"height":4,"width":3}"#)])
    }

    @Test func capturedValuesAndKeyPathsOnThemAreEvaluatedNow() throws {
        struct Limits: Codable { var earliest: Int }
        let limits = Limits(earliest: 1950)
        try expectSQL(#Predicate<PCModel.Book> { $0.year >= limits.earliest }, #"t0."year" >= ?"#, [.integer(1950)])
    }

    @Test func conjunctionDisjunctionNegation() throws {
        try expectSQL(
            #Predicate<PCModel.Book> { $0.year >= 2000 && $0.title == "Dune" },
            #"t0."year" >= ? AND t0."title" IS ?"#, [.integer(2000), .text("Dune")])
        try expectSQL(
            #Predicate<PCModel.Book> { $0.year < 1900 || $0.year > 2000 && $0.isDone },
            #"t0."year" < ? OR t0."year" > ? AND t0."isDone""#, [.integer(1900), .integer(2000)])
        try expectSQL(
            #Predicate<PCModel.Book> { ($0.year < 1900 || $0.year > 2000) && $0.isDone },
            #"(t0."year" < ? OR t0."year" > ?) AND t0."isDone""#, [.integer(1900), .integer(2000)])
        try expectSQL(#Predicate<PCModel.Book> { !$0.isDone }, #"NOT t0."isDone""#)
        try expectSQL(#Predicate<PCModel.Book> { !($0.year > 3) }, #"NOT (t0."year" > ?)"#, [.integer(3)])
        try expectSQL(
            #Predicate<PCModel.Book> { !($0.isDone && $0.year == 1) }, #"NOT (t0."isDone" AND t0."year" IS ?)"#, [.integer(1)])
    }

    @Test func bareBoolsAndConstants() throws {
        try expectSQL(#Predicate<PCModel.Book> { $0.isDone }, #"t0."isDone""#)
        try expectSQL(#Predicate<PCModel.Book> { _ in true }, "?", [.integer(1)])
        try expectSQL(#Predicate<PCModel.Book> { ($0.year > 1) == false }, #"(t0."year" > ?) IS ?"#, [.integer(1), .integer(0)])
    }

    @Test func arithmetic() throws {
        // Integer arithmetic is checked against the Swift type's range (here Int's).
        let int: [StoredValue] = [.integer(.min), .integer(.max)]
        try expectSQL(
            #Predicate<PCModel.Book> { $0.year + 1 * 2 - 3 > 5 },
            #"strata_arithmetic('-', strata_arithmetic('+', t0."year", strata_arithmetic('*', ?, ?, ?, ?), ?, ?), ?, ?, ?) > ?"#,
            [.integer(1), .integer(2)] + int + int + [.integer(3)] + int + [.integer(5)])
        try expectSQL(
            #Predicate<PCModel.Book> { $0.year * ($0.year - 1) == 2 },
            #"strata_arithmetic('*', t0."year", strata_arithmetic('-', t0."year", ?, ?, ?), ?, ?) IS ?"#,
            [.integer(1)] + int + int + [.integer(2)])
        // Sides that can fail the query run in Swift's order, on every row; a
        // left side that cannot fail also stays a term an index can serve.
        try expectSQL(
            #Predicate<PCModel.Book> { $0.year > 1900 && 100 / $0.year == 0 },
            #"t0."year" > ? AND CASE WHEN t0."year" > ? THEN strata_arithmetic('/', ?, t0."year", ?, ?) IS ? ELSE 0 END"#,
            [.integer(1900), .integer(1900), .integer(100)] + int + [.integer(0)])
        try expectSQL(
            #Predicate<PCModel.Book> { $0.year / 10 == 196 && $0.year % 2 == 1 },
            #"CASE WHEN strata_arithmetic('/', t0."year", ?, ?, ?) IS ? THEN strata_arithmetic('%', t0."year", ?, ?, ?) IS ? ELSE 0 END"#,
            [.integer(10)] + int + [.integer(196), .integer(2)] + int + [.integer(1)])
        try expectSQL(
            #Predicate<PCModel.Book> { $0.year * 2 > 5 || $0.isDone },
            #"CASE WHEN strata_arithmetic('*', t0."year", ?, ?, ?) > ? THEN 1 ELSE t0."isDone" END"#,
            [.integer(2)] + int + [.integer(5)])
        try expectSQL(#Predicate<PCModel.Book> { -$0.year < 0 }, #"strata_arithmetic('-', 0, t0."year", ?, ?) < ?"#, int + [.integer(0)])
        // Real arithmetic is IEEE 754, with infinities as in Swift; NaN fails.
        try expectSQL(
            #Predicate<PCModel.Book> { ($0.rating ?? 0) * 2 > 1 }, #"strata_arithmetic('*', COALESCE(t0."rating", ?), ?, NULL, NULL) > ?"#,
            [.real(0), .real(2), .real(1)])
        try expectSQL(
            #Predicate<PCModel.Book> { ($0.rating ?? 0) / 2 > 1 }, #"strata_arithmetic('/', COALESCE(t0."rating", ?), ?, NULL, NULL) > ?"#,
            [.real(0), .real(2), .real(1)])
    }

    @Test func conditional() throws {
        try expectSQL(
            #Predicate<PCModel.Book> { ($0.isDone ? 1 : 2) == 1 }, #"CASE WHEN t0."isDone" THEN ? ELSE ? END IS ?"#,
            [.integer(1), .integer(2), .integer(1)])
    }

    @Test func optionals() throws {
        try expectSQL(
            #Predicate<PCModel.Book> { ($0.rating ?? 0) > 2.5 }, #"COALESCE(t0."rating", ?) > ?"#, [.real(0), .real(2.5)])
        // The comparison is NULL when the rating is, so no CASE is needed.
        try expectSQL(
            #Predicate<PCModel.Book> { if let rating = $0.rating { rating > 4 } else { false } },
            #"COALESCE(t0."rating" > ?, ?)"#, [.real(4), .integer(0)])
        try expectSQL(
            #Predicate<PCModel.Book> { $0.rating.flatMap { $0 * 2 } == 9 },
            #"strata_arithmetic('*', t0."rating", ?, NULL, NULL) IS ?"#, [.real(2), .real(9)])
        try expectSQL(#Predicate<PCModel.Book> { $0.rating! > 4 }, #"strata_unwrap(t0."rating") > ?"#, [.real(4)])
        try expectSQL(
            #Predicate<PCModel.Book> { $0.subtitle?.isEmpty == true }, #"(t0."subtitle" = ?) IS ?"#, [.text(""), .integer(1)])
    }

    @Test func optionalsCapturedByThePredicate() throws {
        let bonus: Int? = 3
        try expectSQL(
            #Predicate<PCModel.Book> { (bonus.flatMap { $0 + 1 } ?? 0) == $0.year },
            #"COALESCE(strata_arithmetic('+', ?, ?, ?, ?), ?) IS t0."year""#,
            [.integer(3), .integer(1), .integer(.min), .integer(.max), .integer(0)])
        let none: Int? = nil
        try expectSQL(
            #Predicate<PCModel.Book> { (none.flatMap { $0 + 1 } ?? 0) == $0.year }, #"? IS t0."year""#, [.integer(0)])
        expectUnsupported { try PCModel.compile(#Predicate<PCModel.Book> { none! == $0.year }) }
    }

    @Test func flatMapGuardsTransformsThatAreNotNullForNil() throws {
        // `x IS ?` is never NULL, but Swift's flatMap gives nil when there is no author.
        try expectSQL(
            #Predicate<PCModel.Book> { $0.author.flatMap { $0.name == "Herbert" } == false },
            #"CASE WHEN t0."author" IS NULL THEN NULL ELSE (SELECT t1."name" FROM "Author" AS t1 WHERE t1.pk = t0."author") IS ? END IS ?"#,
            [.text("Herbert"), .integer(0)])
    }

    @Test func predicateForAnotherModelThrows() throws {
        let compiler = try PCModel.compiler(for: PCModel.Book.self)
        #expect(throws: StrataError.self) {
            try compiler.compile(#Predicate<PCModel.Author> { $0.name == "x" })
        }
    }
}

@Suite("PredicateCompiler: strings, membership and ranges")
struct PredicateCompilerStringTests {
    @Test func startsWithIsCaseSensitiveWithoutLike() throws {
        try expectSQL(
            #Predicate<PCModel.Book> { $0.title.starts(with: "Du") }, #"substr(t0."title", 1, length(?)) = ?"#,
            [.text("Du"), .text("Du")])
    }

    @Test func containsIsCaseSensitive() throws {
        try expectSQL(#Predicate<PCModel.Book> { $0.title.contains("un") }, #"instr(t0."title", ?) > 0"#, [.text("un")])
        let word = "une"
        try expectSQL(
            #Predicate<PCModel.Book> { !$0.title.contains(word) }, #"NOT (instr(t0."title", ?) > 0)"#, [.text("une")])
    }

    @Test func membership() throws {
        let years = [1965, 1969, 1984]
        try expectSQL(
            #Predicate<PCModel.Book> { years.contains($0.year) }, #"t0."year" IN (?, ?, ?)"#,
            [.integer(1965), .integer(1969), .integer(1984)])
        let none: [Int] = []
        try expectSQL(#Predicate<PCModel.Book> { none.contains($0.year) }, "0")
        let statuses: Set<PCModel.Status> = [.published]
        try expectSQL(#Predicate<PCModel.Book> { statuses.contains($0.status) }, #"t0."status" IN (?)"#, [.text("published")])
    }

    @Test func membershipOfOptionalsMatchesSwiftForNil() throws {
        let withNil: [Double?] = [4.5, nil]
        try expectSQL(
            #Predicate<PCModel.Book> { withNil.contains($0.rating) }, #"t0."rating" IS NULL OR t0."rating" IN (?)"#,
            [.real(4.5)])
        let withoutNil: [Double?] = [4.5]
        try expectSQL(
            #Predicate<PCModel.Book> { !withoutNil.contains($0.rating) },
            #"NOT (t0."rating" IS NOT NULL AND t0."rating" IN (?))"#, [.real(4.5)])
        let onlyNil: [Double?] = [nil]
        try expectSQL(#Predicate<PCModel.Book> { onlyNil.contains($0.rating) }, #"t0."rating" IS NULL"#)
    }

    @Test func containsOnAStoredCollectionThrows() {
        let message = expectUnsupported { try PCModel.compile(#Predicate<PCModel.Book> { $0.tags.contains("sf") }) }
        #expect(message.contains("SequenceContains"))
    }

    @Test func ranges() throws {
        try expectSQL(
            #Predicate<PCModel.Book> { (1960...1970).contains($0.year) }, #"t0."year" BETWEEN ? AND ?"#,
            [.integer(1960), .integer(1970)])
        let low = 1960, high = 1970
        try expectSQL(
            #Predicate<PCModel.Book> { (low..<high).contains($0.year) }, #"t0."year" >= ? AND t0."year" < ?"#,
            [.integer(1960), .integer(1970)])
        let captured = 1960...1970
        try expectSQL(
            #Predicate<PCModel.Book> { captured.contains($0.year) }, #"t0."year" BETWEEN ? AND ?"#,
            [.integer(1960), .integer(1970)])
        let from = 1960...
        try expectSQL(#Predicate<PCModel.Book> { from.contains($0.year) }, #"t0."year" >= ?"#, [.integer(1960)])
    }

    @Test func containsWhereOverACapturedSequence() throws {
        let prefixes = ["A", "B"]
        try expectSQL(
            #Predicate<PCModel.Book> { book in prefixes.contains { book.title.starts(with: $0) } },
            #"substr(t0."title", 1, length(?)) = ? OR substr(t0."title", 1, length(?)) = ?"#,
            [.text("A"), .text("A"), .text("B"), .text("B")])
    }
}
