import Foundation
import StrataSQL
import Testing
@testable import StrataCore
@testable import StrataSQLite

// Hand-written models for the query compiler's tests. Their accessors are never
// called (compilation only needs key paths), so they do not go through the backing.
// `Equatable` and `Codable` let `#Predicate` compare relationships with `nil` and
// with objects (a `Value<Author?>` must be `Codable` to be a standard expression).
enum PCModel {
    enum Status: String, Codable { case draft, published }

    struct Dimensions: Codable, Equatable {
        var width: Int
        var height: Int
    }

    final class Publisher: PCTestModel {
        static let schemaProperties: [PropertyMetadata] = [
            .property("name", \Publisher.name),
            .property("authors", \Publisher.authors, inverse: \Author.publisher),
        ]
        let persistentBacking: ModelBacking
        var name: String { get { fatalError() } set {} }
        var authors: [Author] { get { [] } set {} }
        init(backing: ModelBacking) { persistentBacking = backing }
    }

    final class Author: PCTestModel {
        static let schemaProperties: [PropertyMetadata] = [
            .property("name", \Author.name),
            .property("age", \Author.age),
            .property("publisher", \Author.publisher, inverse: \Publisher.authors),
            .property("books", \Author.books, inverse: \Book.author),
        ]
        let persistentBacking: ModelBacking
        var name: String { get { fatalError() } set {} }
        var age: Int? { get { nil } set {} }
        var publisher: Publisher? { get { nil } set {} }
        var books: [Book] { get { [] } set {} }
        init(backing: ModelBacking) { persistentBacking = backing }
    }

    final class Book: PCTestModel {
        static let schemaProperties: [PropertyMetadata] = [
            .property("title", \Book.title),
            .property("subtitle", \Book.subtitle),
            .property("year", \Book.year),
            .property("rating", \Book.rating),
            .property("isDone", \Book.isDone),
            .property("added", \Book.added),
            .property("price", \Book.price),
            .property("status", \Book.status),
            .property("tags", \Book.tags),
            .property("size", \Book.size),
            .property("uid", \Book.uid),
            .property("author", \Book.author, inverse: \Author.books),
        ]
        let persistentBacking: ModelBacking
        var title: String { get { fatalError() } set {} }
        var subtitle: String? { get { nil } set {} }
        var year: Int { get { 0 } set {} }
        var rating: Double? { get { nil } set {} }
        var isDone: Bool { get { false } set {} }
        var added: Date { get { Date() } set {} }
        var price: Decimal { get { 0 } set {} }
        var status: Status { get { .draft } set {} }
        var tags: [String] { get { [] } set {} }
        var size: Dimensions? { get { nil } set {} }
        var uid: UUID { get { UUID() } set {} }
        var author: Author? { get { nil } set {} }
        /// Not persistent: predicates on it cannot be compiled.
        var displayTitle: String { "" }
        init(backing: ModelBacking) { persistentBacking = backing }
    }

    static let schema = Schema(Publisher.self, Author.self, Book.self)

    static func compiler<M: PersistentModel>(for type: M.Type) throws -> PredicateCompiler {
        try schema.validate()
        return PredicateCompiler(schema: schema, entity: try schema.entity(for: type))
    }

    /// The SQL a SQLite store renders for a compiled condition.
    static func sql(_ condition: StoreExpression) -> SQLFragment {
        var renderer = SQLiteQueryRenderer(schema: schema, layout: StoreLayout(schema: schema))
        return renderer.condition(condition).fragment
    }

    static func compile(_ predicate: Predicate<Book>) throws -> SQLFragment {
        sql(try compiler(for: Book.self).compile(predicate))
    }

    static func compile(_ predicate: Predicate<Author>) throws -> SQLFragment {
        sql(try compiler(for: Author.self).compile(predicate))
    }

    static func sort(_ descriptors: [SortDescriptor<Book>]) throws -> SQLFragment {
        var renderer = SQLiteQueryRenderer(schema: schema, layout: StoreLayout(schema: schema))
        return renderer.order(try compiler(for: Book.self).compileSort(descriptors))
    }

    /// An object that looks saved, with this primary key.
    static func saved<M: PersistentModel>(_ type: M.Type, primaryKey: Int64) -> M {
        let backing = ModelBacking(for: type)
        backing.objectID = ObjectID(entityName: type.entityName, storeIdentifier: "TEST", primaryKey: primaryKey)
        return M(backing: backing)
    }

    /// An object that was never saved (its ID is temporary).
    static func unsaved<M: PersistentModel>(_ type: M.Type) -> M {
        M(backing: ModelBacking(for: type))
    }
}

/// Identity equality and inert coding for the test models.
protocol PCTestModel: PersistentModel, Equatable, Codable {}

extension PCTestModel {
    static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }
    init(from decoder: any Decoder) throws { self.init(backing: ModelBacking(for: Self.self)) }
    func encode(to encoder: any Encoder) throws {}
}

/// Asserts that compiling throws `.unsupportedPredicate`, and returns the message.
@discardableResult
func expectUnsupported(
    _ body: () throws -> SQLFragment, sourceLocation: SourceLocation = #_sourceLocation
) -> String {
    do {
        let fragment = try body()
        Issue.record("expected .unsupportedPredicate, got \(fragment)", sourceLocation: sourceLocation)
        return ""
    } catch let error as StrataError {
        #expect(error.code == .unsupportedPredicate, sourceLocation: sourceLocation)
        return error.message
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return ""
    }
}

@Suite("PredicateCompiler value binding")
struct PredicateCompilerValueTests {
    @Test func persistentValuesBindAsStored() throws {
        #expect(try storedValue(forPredicateValue: 42) == .integer(42))
        #expect(try storedValue(forPredicateValue: true) == .integer(1))
        #expect(try storedValue(forPredicateValue: 2.5) == .real(2.5))
        #expect(try storedValue(forPredicateValue: "Dune") == .text("Dune"))
        #expect(try storedValue(forPredicateValue: Date(timeIntervalSinceReferenceDate: 10)) == .real(10))
        let uuid = UUID()
        #expect(try storedValue(forPredicateValue: uuid) == .text(uuid.uuidString))
        #expect(try storedValue(forPredicateValue: URL(string: "https://example.com/a")!) == .text("https://example.com/a"))
        #expect(try storedValue(forPredicateValue: Decimal(string: "1.25")!) == .text("1.25"))
        #expect(try storedValue(forPredicateValue: Data([1, 2])) == .blob(Data([1, 2])))
    }

    @Test func optionalsUnwrapOrBecomeNull() throws {
        #expect(try storedValue(forPredicateValue: Int?.none as Any) == .null)
        #expect(try storedValue(forPredicateValue: Int?.some(3) as Any) == .integer(3))
        #expect(try storedValue(forPredicateValue: PCModel.Status?.none as Any) == .null)
        #expect(try storedValue(forPredicateValue: PCModel.Status?.some(.draft) as Any) == .text("draft"))
    }

    @Test func rawValuesAndJSON() throws {
        #expect(try storedValue(forPredicateValue: PCModel.Status.published) == .text("published"))
        let size = PCModel.Dimensions(width: 1, height: 2)
        #expect(try storedValue(forPredicateValue: size) == .text(#"{"height":2,"width":1}"#))
        #expect(try storedValue(forPredicateValue: ["b", "a"]) == .text(#"["b","a"]"#))
    }

    @Test func objectsBindTheirPrimaryKey() throws {
        let author = PCModel.saved(PCModel.Author.self, primaryKey: 7)
        #expect(try storedValue(forPredicateValue: author) == .integer(7))
        #expect(try storedValue(forPredicateValue: author.objectID) == .integer(7))
        #expect(throws: StrataError.self) {
            try storedValue(forPredicateValue: PCModel.unsaved(PCModel.Author.self))
        }
    }

    @Test func valuesThatCannotBeStoredThrow() {
        struct Opaque {}
        #expect(throws: StrataError.self) { try storedValue(forPredicateValue: Opaque()) }
        #expect(throws: StrataError.self) { try storedValue(forPredicateValue: Character("a")) }
    }
}
