import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("#Unique and #Index expansion")
struct KeyPathListMacroTests {
    @Test func uniqueListsEachConstraintsPropertyNames() {
        assertStrataExpansion(
            #"""
            #Unique<Book>([\.title, \.year], [\.isbn])
            """#,
            expandedSource: """
            public static var uniquenessConstraints: [[String]] {
                [["title", "year"], ["isbn"]]
            }
            """)
    }

    /// Every component counts: `\.title.folded` is the folded title, and a path
    /// through a relationship is named whole, so the schema can refuse it
    /// instead of indexing a property of the same name on this entity.
    @Test func indexNamesEveryComponentOfRootedAndNestedKeyPaths() {
        assertStrataExpansion(
            #"""
            #Index<Book>([\Book.year], [\Book.title, \.author.name], [\.title.folded])
            """#,
            expandedSource: """
            public static var indexes: [[String]] {
                [["year"], ["title", "author.name"], ["title.folded"]]
            }
            """)
    }

    @Test func argumentThatIsNotAnArrayLiteralIsAnError() {
        assertStrataExpansion(
            #"""
            #Unique<Book>(keyPaths)
            """#,
            expandedSource: #"""
            #Unique<Book>(keyPaths)
            """#,
            diagnostics: [
                DiagnosticSpec(message: "expected array literals of key paths, e.g. `[\\.title, \\.year]`", line: 1, column: 15),
            ])
    }

    @Test func elementThatIsNotAKeyPathIsAnError() {
        assertStrataExpansion(
            #"""
            #Index<Book>([\.title, "year"])
            """#,
            expandedSource: #"""
            #Index<Book>([\.title, "year"])
            """#,
            diagnostics: [
                DiagnosticSpec(message: "expected array literals of key paths, e.g. `[\\.title, \\.year]`", line: 1, column: 24),
            ])
    }

    @Test func emptyListIsAnError() {
        assertStrataExpansion(
            #"""
            #Index<Book>([])
            """#,
            expandedSource: #"""
            #Index<Book>([])
            """#,
            diagnostics: [
                DiagnosticSpec(message: "expected array literals of key paths, e.g. `[\\.title, \\.year]`", line: 1, column: 14),
            ])
    }
}
