import Foundation
import Testing
@testable import StrataCore


private let authorName = #"(SELECT t1."name" FROM "Author" AS t1 WHERE t1.pk = t0."author")"#

@Suite("PredicateCompiler: relationships")
struct PredicateCompilerRelationshipTests {
    @Test func toOneKeyPathsBecomeCorrelatedSubqueries() throws {
        let fragment = try PCModel.compile(#Predicate<PCModel.Book> { $0.author?.name == "Herbert" })
        #expect(fragment.sql == "\(authorName) IS ?")
        #expect(fragment.arguments == [.text("Herbert")])
    }

    @Test func nestedToOneKeyPaths() throws {
        let fragment = try PCModel.compile(#Predicate<PCModel.Book> { $0.author?.publisher?.name == "Ace" })
        #expect(fragment.sql == #"(SELECT t2."name" FROM "Publisher" AS t2 WHERE t2.pk = (SELECT t1."publisher" FROM "Author" AS t1 WHERE t1.pk = t0."author")) IS ?"#)
        #expect(fragment.arguments == [.text("Ace")])
    }

    @Test func toOneWithCoalesceAndFlatMap() throws {
        let fragment = try PCModel.compile(#Predicate<PCModel.Book> { ($0.author?.age ?? 0) > 30 })
        #expect(fragment.sql == #"COALESCE((SELECT t1."age" FROM "Author" AS t1 WHERE t1.pk = t0."author"), ?) > ?"#)
        #expect(fragment.arguments == [.integer(0), .integer(30)])
        let flatMapped = try PCModel.compile(#Predicate<PCModel.Book> { $0.author.flatMap { $0.name } == "Herbert" })
        #expect(flatMapped.sql == "\(authorName) IS ?")
    }

    @Test func comparingARelationshipWithNil() throws {
        #expect(try PCModel.compile(#Predicate<PCModel.Book> { $0.author == nil }).sql == #"t0."author" IS NULL"#)
        #expect(try PCModel.compile(#Predicate<PCModel.Book> { $0.author != nil }).sql == #"t0."author" IS NOT NULL"#)
        #expect(try PCModel.compile(#Predicate<PCModel.Book> { $0.author?.objectID == nil }).sql == #"t0."author" IS NULL"#)
    }

    @Test func comparingARelationshipWithASavedObjectBindsItsKey() throws {
        let author = PCModel.saved(PCModel.Author.self, primaryKey: 7)
        let fragment = try PCModel.compile(#Predicate<PCModel.Book> { $0.author == author })
        #expect(fragment.sql == #"t0."author" IS ?"#)
        #expect(fragment.arguments == [.integer(7)])
        let id = author.objectID
        let byID = try PCModel.compile(#Predicate<PCModel.Book> { $0.author?.objectID != id })
        #expect(byID.sql == #"t0."author" IS NOT ?"#)
        #expect(byID.arguments == [.integer(7)])
    }

    @Test func comparingWithAnUnsavedObjectThrows() {
        let author = PCModel.unsaved(PCModel.Author.self)
        expectUnsupported { try PCModel.compile(#Predicate<PCModel.Book> { $0.author == author }) }
    }

    @Test func objectIDsOfAnotherEntityNeverMatch() throws {
        let id = PCModel.saved(PCModel.Publisher.self, primaryKey: 7).objectID
        #expect(try PCModel.compile(#Predicate<PCModel.Book> { $0.author?.objectID == id }).sql == "0")
        #expect(try PCModel.compile(#Predicate<PCModel.Book> { $0.author?.objectID != id }).sql == "1")
    }

    @Test func theRootObjectID() throws {
        let ids = [PCModel.saved(PCModel.Book.self, primaryKey: 1).objectID, PCModel.saved(PCModel.Book.self, primaryKey: 2).objectID]
        let fragment = try PCModel.compile(#Predicate<PCModel.Book> { ids.contains($0.objectID) })
        #expect(fragment.sql == "t0.pk IN (?, ?)")
        #expect(fragment.arguments == [.integer(1), .integer(2)])
    }

    @Test func membershipOfRelatedObjects() throws {
        let authors: [PCModel.Author?] = [PCModel.saved(PCModel.Author.self, primaryKey: 3), nil]
        let fragment = try PCModel.compile(#Predicate<PCModel.Book> { authors.contains($0.author) })
        #expect(fragment.sql == #"t0."author" IS NULL OR t0."author" IN (?)"#)
        #expect(fragment.arguments == [.integer(3)])
    }

    @Test func toManyContainsWhere() throws {
        let fragment = try PCModel.compile(#Predicate<PCModel.Author> { $0.books.contains { $0.year > 2000 } })
        #expect(fragment.sql == #"EXISTS (SELECT 1 FROM "Book" AS t1 WHERE t1."author" = t0.pk AND t1."year" > ?)"#)
        #expect(fragment.arguments == [.integer(2000)])
    }

    @Test func toManyAllSatisfy() throws {
        let fragment = try PCModel.compile(#Predicate<PCModel.Author> { $0.books.allSatisfy { $0.isDone } })
        #expect(fragment.sql == #"NOT EXISTS (SELECT 1 FROM "Book" AS t1 WHERE t1."author" = t0.pk AND NOT t1."isDone")"#)
    }

    @Test func toManyCountAndIsEmpty() throws {
        let count = try PCModel.compile(#Predicate<PCModel.Author> { $0.books.count > 2 })
        #expect(count.sql == #"(SELECT COUNT(*) FROM "Book" AS t1 WHERE t1."author" = t0.pk) > ?"#)
        #expect(count.arguments == [.integer(2)])
        let empty = try PCModel.compile(#Predicate<PCModel.Author> { $0.books.isEmpty })
        #expect(empty.sql == #"NOT EXISTS (SELECT 1 FROM "Book" AS t1 WHERE t1."author" = t0.pk)"#)
    }

    @Test func toManyContainsAnObject() throws {
        let book = PCModel.saved(PCModel.Book.self, primaryKey: 5)
        let fragment = try PCModel.compile(#Predicate<PCModel.Author> { $0.books.contains(book) })
        #expect(fragment.sql == #"EXISTS (SELECT 1 FROM "Book" AS t1 WHERE t1."author" = t0.pk AND t1.pk = ?)"#)
        #expect(fragment.arguments == [.integer(5)])
    }

    @Test func toManyThroughAToOne() throws {
        // Books whose author has another book from before 1950; the inner subquery
        // reads the outer row's key, and the count is guarded for books without author.
        let fragment = try PCModel.compile(#Predicate<PCModel.Book> { ($0.author?.books.count ?? 0) > 1 })
        #expect(fragment.sql == #"COALESCE(CASE WHEN t0."author" IS NULL THEN NULL ELSE (SELECT COUNT(*) FROM "Book" AS t1 WHERE t1."author" = t0."author") END, ?) > ?"#)
        #expect(fragment.arguments == [.integer(0), .integer(1)])
    }

    @Test func nestedToManyQuantifiers() throws {
        let fragment = try PCModel.compile(#Predicate<PCModel.Author> { author in
            author.books.contains { book in book.author?.age == author.age }
        })
        #expect(fragment.sql == #"EXISTS (SELECT 1 FROM "Book" AS t1 WHERE t1."author" = t0.pk AND (SELECT t2."age" FROM "Author" AS t2 WHERE t2.pk = t1."author") IS t0."age")"#)
    }
}

@Suite("PredicateCompiler: unsupported expressions")
struct PredicateCompilerUnsupportedTests {
    @Test func unsupportedNodesAreNamed() {
        let message = expectUnsupported { try PCModel.compile(#Predicate<PCModel.Book> { $0.tags[0] == "sf" }) }
        #expect(message.contains("CollectionIndexSubscript"))
    }

    @Test func nonPersistentKeyPathsThrow() {
        let message = expectUnsupported { try PCModel.compile(#Predicate<PCModel.Book> { $0.displayTitle == "x" }) }
        #expect(message.contains("not a persistent property of Book"))
    }

    @Test func decimalArithmeticThrows() {
        let price = Decimal(3)
        expectUnsupported { try PCModel.compile(#Predicate<PCModel.Book> { $0.price + price == price }) }
    }

    @Test func stringCountThrows() {
        // SQLite counts code points, Swift counts grapheme clusters.
        expectUnsupported { try PCModel.compile(#Predicate<PCModel.Book> { $0.title.count > 3 }) }
    }

    @Test func toManyUsedAsAValueThrows() {
        expectUnsupported { try PCModel.compile(#Predicate<PCModel.Author> { $0.books.first?.year == 1 }) }
    }
}
