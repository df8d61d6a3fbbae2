// What the documentation's examples take as given: the app's models and the values an
// example names without making them (`container`, `context`, `book`, …). The examples are
// compiled against these, never run; an article that declares a model of the same name
// uses its own.
import Foundation
import Logging
import ServiceLifecycle
import Strata
import StrataPostgres

@Model public final class Author {
    @Attribute(.unique) public var email: String
    public var name: String
    @Relationship(deleteRule: .cascade, inverse: \Book.author) public var books: [Book] = []
    public init(email: String, name: String) { self.email = email; self.name = name }
}

public enum Genre: String, Codable, Sendable { case fiction, poetry, essay }

@Model public final class Publisher {
    public var name: String
    public var books: [Book] = []
    public init(name: String) { self.name = name }
}

@Model public final class Book {
    public var isbn: String = ""
    public var title: String
    public var year: Int
    public var rating: Double?
    public var pageCount: Int = 0
    public var genre: Genre = .fiction
    public var tags: [String] = []
    public var author: Author?
    @Relationship(inverse: \Publisher.books) public var publisher: Publisher?
    public init(title: String, year: Int) { self.title = title; self.year = year }
    public init(isbn: String, title: String) { self.isbn = isbn; self.title = title; self.year = 0 }
}

@Model public final class Quake {
    @Attribute(.unique) public var code: String
    public var magnitude: Double
    public init(code: String, magnitude: Double) { self.code = code; self.magnitude = magnitude }
}

/// A search index an app keeps beside its store.
public final class SearchIndex {
    public func remove(_ key: String) {}
}

public enum NotesV3: VersionedSchema {
    public static let versionIdentifier = Schema.Version(3, 0, 0)
    public static var models: [any PersistentModel.Type] { [Note.self] }
    @Model public final class Note {
        public var title: String
        public init(title: String) { self.title = title }
    }
}

public enum NotesPlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [NotesV3.self] }
    public static var stages: [MigrationStage] { [] }
}

private func given<T>() -> T { fatalError("the documentation's examples are compiled, not run") }

public var container: PersistentContainer { given() }
@MainActor public var context: ManagedObjectContext { given() }
@MainActor public var otherContext: ManagedObjectContext { given() }
public var schema: Schema { given() }
@MainActor public var book: Book { given() }
@MainActor public var author: Author { given() }
@MainActor public var leGuin: Author { given() }
@MainActor public var other: Author { given() }
public var id: ObjectID { given() }
public var bookID: ObjectID { given() }
public var herbertID: ObjectID { given() }
public var url: URL { given() }
public var storeURL: URL { given() }
public var sharedStoreURL: URL { given() }
public var transaction: HistoryTransaction { given() }
public var searchIndex: SearchIndex { given() }
public var lastToken: HistoryToken? { given() }
public var oldestTokenStillNeeded: HistoryToken { given() }
public var isbn: String { given() }
public var title: String { given() }
public var feed: [[String: any Sendable]] { given() }
public var update: BatchUpdateRequest<Book> { given() }
public var logger: Logger { given() }
/// An app's HTTP server, as a service of its group.
public var server: any Service { given() }
@MainActor public func notifyUser(about changes: [HistoryChange]) {}
