import Strata

// The library models shared by the test suites and the test writer process,
// which must agree on the schema to open the same store.

/// An author; `email` is unique and deleting an author deletes its books.
@Model public final class Author {
    @Attribute(.unique) public var email: String
    public var name: String
    @Relationship(deleteRule: .cascade, inverse: \Book.author) public var books: [Book] = []

    public init(email: String, name: String) {
        self.email = email
        self.name = name
    }
}

/// A book, optionally rated and written by an author.
@Model public final class Book {
    public var title: String
    public var year: Int
    public var rating: Double?
    public var author: Author?

    public init(title: String, year: Int, rating: Double? = nil) {
        self.title = title
        self.year = year
        self.rating = rating
    }
}

/// The schema of the library models.
public let librarySchema = Schema(Author.self, Book.self)
