import StrataMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Projection expansion")
struct ProjectionExpansionTests {
    @Test func attributesAreTypedKeyPathsRelationshipsAndTheRowsIDAreNot() {
        assertStrataExpansion(
            """
            @Projection(of: Book.self)
            public struct BookRow {
                public let id: ObjectID
                public let title: String
                var rating: Double? = nil
                let author: ObjectID?
                let kind = "book"
                static let shared = 1
                var loud: String { title.uppercased() }
            }
            """,
            expandedSource: """
            public struct BookRow {
                public let id: ObjectID
                public let title: String
                var rating: Double? = nil
                let author: ObjectID?
                let kind = "book"
                static let shared = 1
                var loud: String { title.uppercased() }
            }

            extension BookRow: ModelProjection {
                public typealias Model = Book
                public static var projectedProperties: [PartialKeyPath<Book>] {
                    [
                        \\Book.title as KeyPath<Book, String>,
                        \\Book.rating as KeyPath<Book, Double?>,
                        \\Book.author,
                    ]
                }
                public init(reading row: inout ProjectionRow) throws(StrataError) {
                    let id = row.objectID
                    let title = try row.next(as: String.self)
                    let rating = try row.next(as: Optional<Double>.self)
                    let author = try row.next(as: Optional<ObjectID>.self)
                    self.id = id
                    self.title = title
                    self.rating = rating
                    self.author = author
                }
            }
            """)
    }

    @Test func projectionOnAClassIsAnError() {
        assertStrataExpansion(
            """
            @Projection(of: Book.self)
            final class BookRow {
                let title: String = ""
            }
            """,
            expandedSource: """
            final class BookRow {
                let title: String = ""
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@Projection can only be applied to a struct", line: 1, column: 1)])
    }

    @Test func aPropertyWithoutATypeIsAnError() {
        assertStrataExpansion(
            """
            @Projection(of: Book.self)
            struct BookRow {
                var title = ""
            }
            """,
            expandedSource: """
            struct BookRow {
                var title = ""
            }

            extension BookRow: ModelProjection {
                typealias Model = Book
                static var projectedProperties: [PartialKeyPath<Book>] {
                    []
                }
                init(reading row: inout ProjectionRow) throws(StrataError) {

                }
            }
            """,
            diagnostics: [DiagnosticSpec(
                message: "projection properties need an explicit type, e.g. `let year: Int`", line: 3, column: 9)])
    }
}
