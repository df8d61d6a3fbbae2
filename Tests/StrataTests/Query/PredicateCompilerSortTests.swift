import Foundation
import Testing
@testable import StrataCore


@Suite("PredicateCompiler: sorting")
struct PredicateCompilerSortTests {
    @Test func noDescriptorsGiveAnEmptyFragment() throws {
        let fragment = try PCModel.sort([])
        #expect(fragment.sql.isEmpty)
        #expect(fragment.arguments.isEmpty)
    }

    @Test func attributesWithOrder() throws {
        let fragment = try PCModel.sort([
            SortDescriptor(\PCModel.Book.title, comparator: .lexical), SortDescriptor(\PCModel.Book.year, order: .reverse),
        ])
        #expect(fragment.sql == #"t0."title" COLLATE BINARY ASC, t0."year" DESC"#)
        #expect(fragment.arguments.isEmpty)
    }

    @Test func defaultStringOrderFollowsThePlatformsFoundation() throws {
        let fragment = try PCModel.sort([SortDescriptor(\PCModel.Book.title)])
        #if canImport(Darwin)
        // `.localizedStandard`, approximated by ASCII case folding.
        #expect(fragment.sql == #"t0."title" COLLATE NOCASE ASC"#)
        #else
        // swift-corelibs sorts by `String.<`: code points.
        #expect(fragment.sql == #"t0."title" COLLATE BINARY ASC"#)
        #endif
    }

    @Test func optionalKeysAndOtherTypes() throws {
        let fragment = try PCModel.sort([
            SortDescriptor(\PCModel.Book.rating, order: .reverse), SortDescriptor(\PCModel.Book.added),
            SortDescriptor(\PCModel.Book.subtitle, comparator: .lexical), SortDescriptor(\PCModel.Book.uid),
        ])
        #expect(fragment.sql == #"t0."rating" DESC, t0."added" ASC, t0."subtitle" COLLATE BINARY ASC, t0."uid" ASC"#)
    }

    @Test func toOneKeysUseCorrelatedSubqueries() throws {
        let fragment = try PCModel.sort([
            SortDescriptor(\PCModel.Book.author?.name, comparator: .lexical), SortDescriptor(\PCModel.Book.author?.age, order: .reverse),
        ])
        #expect(fragment.sql == #"(SELECT t1."name" FROM "Author" AS t1 WHERE t1.pk = t0."author") COLLATE BINARY ASC, (SELECT t2."age" FROM "Author" AS t2 WHERE t2.pk = t0."author") DESC"#)
    }

    @Test func nestedToOneKeys() throws {
        let fragment = try PCModel.sort([SortDescriptor(\PCModel.Book.author?.publisher?.name, comparator: .lexical)])
        #expect(fragment.sql == #"(SELECT t2."name" FROM "Publisher" AS t2 WHERE t2.pk = (SELECT t1."publisher" FROM "Author" AS t1 WHERE t1.pk = t0."author")) COLLATE BINARY ASC"#)
    }

    @Test func decimalsSortNumericallyThroughTheirCollation() throws {
        let fragment = try PCModel.sort([SortDescriptor(\PCModel.Book.price, order: .reverse)])
        #expect(fragment.sql == #"t0."price" COLLATE strata_decimal DESC"#)
    }

    @Test func keysSQLCannotOrderLikeSwiftThrow() {
        // Not persistent.
        expectUnsupported { try PCModel.sort([SortDescriptor(\PCModel.Book.displayTitle)]) }
    }

    @Test func sortForAnotherModelThrows() throws {
        let compiler = try PCModel.compiler(for: PCModel.Author.self)
        #expect(throws: StrataError.self) {
            try compiler.compileSort([SortDescriptor(\PCModel.Book.year)])
        }
    }
}
