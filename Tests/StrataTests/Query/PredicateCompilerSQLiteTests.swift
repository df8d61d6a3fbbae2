import Foundation
import GRDB
import StrataSQL
import Testing
@testable import StrataCore
@testable import StrataSQLite


/// Runs compiled SQL on a small SQLite database laid out like a Strata store, to
/// check that the results are the ones Swift would give for the same objects.
@Suite("PredicateCompiler: results in SQLite")
struct PredicateCompilerSQLiteTests {
    let database: DatabaseQueue

    init() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in db.add(function: CheckedArithmeticFunction.function) }
        database = try DatabaseQueue(configuration: configuration)
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE "Publisher" (pk INTEGER PRIMARY KEY, "name" TEXT);
                CREATE TABLE "Author" (pk INTEGER PRIMARY KEY, "name" TEXT, "age" INTEGER, "publisher" INTEGER);
                CREATE TABLE "Book" (
                    pk INTEGER PRIMARY KEY, "title" TEXT, "subtitle" TEXT, "year" INTEGER, "rating" REAL,
                    "isDone" INTEGER, "added" REAL, "price" TEXT, "status" TEXT, "tags" TEXT, "size" TEXT,
                    "uid" TEXT, "author" INTEGER);
                INSERT INTO "Publisher" VALUES (1, 'Ace');
                INSERT INTO "Author" VALUES (1, 'Herbert', 65, 1), (2, 'Rousseau', NULL, NULL);
                INSERT INTO "Book" (pk, "title", "year", "rating", "isDone", "author") VALUES
                    (1, 'Dune', 1965, 4.5, 1, 1),
                    (2, 'dune messiah', 1969, NULL, 0, 1),
                    (3, 'Neuromancer', 1984, 3.0, 0, NULL),
                    (4, 'Émile', 1762, NULL, 1, 2);
                """)
        }
    }

    private func keys(_ table: String, _ condition: SQLFragment, orderBy order: SQLFragment? = nil) throws -> [Int64] {
        let orderClause = order.map { "\($0.sql), t0.pk" } ?? "t0.pk"
        let sql = "SELECT t0.pk FROM \"\(table)\" AS t0 WHERE \(condition.sql) ORDER BY \(orderClause)"
        let arguments = StatementArguments((condition.arguments + (order?.arguments ?? [])).map(\.pcDatabaseValue))
        return try database.read { db in try Int64.fetchAll(db, sql: sql, arguments: arguments) }
    }

    private func books(_ predicate: Predicate<PCModel.Book>) throws -> [Int64] {
        try keys("Book", PCModel.compile(predicate))
    }

    private func authors(_ predicate: Predicate<PCModel.Author>) throws -> [Int64] {
        try keys("Author", PCModel.compile(predicate))
    }

    @Test func nilComparesAsInSwift() throws {
        #expect(try books(#Predicate { $0.rating == nil }) == [2, 4])
        #expect(try books(#Predicate { $0.rating != 3.0 }) == [1, 2, 4])
        #expect(try books(#Predicate { ($0.rating ?? 0) < 4 }) == [2, 3, 4])
        #expect(try books(#Predicate { if let rating = $0.rating { rating > 4 } else { false } }) == [1])
        #expect(try books(#Predicate { !(($0.rating ?? 0) > 4) }) == [2, 3, 4])
    }

    @Test func membershipWithNil() throws {
        let ratings: [Double?] = [4.5]
        #expect(try books(#Predicate { ratings.contains($0.rating) }) == [1])
        #expect(try books(#Predicate { !ratings.contains($0.rating) }) == [2, 3, 4])
        let withNil: [Double?] = [4.5, nil]
        #expect(try books(#Predicate { withNil.contains($0.rating) }) == [1, 2, 4])
    }

    @Test func stringMatchingIsCaseSensitive() throws {
        #expect(try books(#Predicate { $0.title.starts(with: "Du") }) == [1])
        #expect(try books(#Predicate { $0.title.starts(with: "") }) == [1, 2, 3, 4])
        #expect(try books(#Predicate { $0.title.contains("une") }) == [1, 2])
        #expect(try books(#Predicate { $0.title.contains("UNE") }) == [])
        #expect(try books(#Predicate { $0.title.starts(with: "É") }) == [4])
        #expect(try books(#Predicate { $0.title < "E" }) == [1])
    }

    @Test func toOneRelationships() throws {
        #expect(try books(#Predicate { $0.author?.name == "Herbert" }) == [1, 2])
        #expect(try books(#Predicate { $0.author?.name != "Herbert" }) == [3, 4])
        #expect(try books(#Predicate { $0.author?.publisher?.name == "Ace" }) == [1, 2])
        #expect(try books(#Predicate { $0.author == nil }) == [3])
        // nil (no author) is not false: book 3 does not match.
        #expect(try books(#Predicate { $0.author.flatMap { $0.name == "Rousseau" } == false }) == [1, 2])
        let herbert = PCModel.saved(PCModel.Author.self, primaryKey: 1)
        #expect(try books(#Predicate { $0.author == herbert }) == [1, 2])
    }

    @Test func toManyRelationships() throws {
        #expect(try authors(#Predicate { $0.books.contains { $0.isDone } }) == [1, 2])
        #expect(try authors(#Predicate { $0.books.allSatisfy { $0.isDone } }) == [2])
        #expect(try authors(#Predicate { $0.books.count == 2 }) == [1])
        #expect(try authors(#Predicate { !$0.books.isEmpty }) == [1, 2])
        #expect(try books(#Predicate { ($0.author?.books.count ?? 0) == 1 }) == [4])
    }

    @Test func arithmeticAndRanges() throws {
        #expect(try books(#Predicate { $0.year / 100 == 19 }) == [1, 2, 3])
        #expect(try books(#Predicate { (1965...1969).contains($0.year) }) == [1, 2])
        #expect(try books(#Predicate { (1965..<1969).contains($0.year) }) == [1])
    }

    @Test func sortingMatchesSwift() throws {
        let all = try PCModel.compile(#Predicate<PCModel.Book> { _ in true })
        let byTitle = try PCModel.sort([SortDescriptor(\PCModel.Book.title, comparator: .lexical)])
        // Code-point order, as `String.<`: uppercase, lowercase, then "É".
        #expect(try keys("Book", all, orderBy: byTitle) == [1, 3, 2, 4])
        let byAuthor = try PCModel.sort([SortDescriptor(\PCModel.Book.author?.name, comparator: .lexical)])
        // nil sorts first, as SortDescriptor does for optionals.
        #expect(try keys("Book", all, orderBy: byAuthor) == [3, 1, 2, 4])
        let byRating = try PCModel.sort([SortDescriptor(\PCModel.Book.rating, order: .reverse)])
        #expect(try keys("Book", all, orderBy: byRating) == [1, 3, 2, 4])
    }
}

extension StoredValue {
    fileprivate var pcDatabaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let value): value.databaseValue
        }
    }
}
