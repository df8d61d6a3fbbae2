import Strata

/// An author in the demo catalog.
@Model final class Author {
    @Attribute(.unique) var email: String
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Book.author) var books: [Book] = []

    init(email: String, name: String) {
        self.email = email
        self.name = name
    }
}

/// A book in the demo catalog.
@Model final class Book {
    var title: String
    var year: Int
    var rating: Double?
    var author: Author?

    init(title: String, year: Int, rating: Double? = nil) {
        self.title = title
        self.year = year
        self.rating = rating
    }
}

/// The sample data the demo imports.
enum SampleCatalog {
    struct Entry: Sendable {
        let email: String
        let name: String
        let books: [(title: String, year: Int)]
    }

    static let entries: [Entry] = [
        Entry(email: "le.guin@example.com", name: "Ursula K. Le Guin",
              books: [("A Wizard of Earthsea", 1968), ("The Left Hand of Darkness", 1969), ("The Dispossessed", 1974)]),
        Entry(email: "herbert@example.com", name: "Frank Herbert",
              books: [("Dune", 1965), ("Dune Messiah", 1969)]),
        Entry(email: "jemisin@example.com", name: "N. K. Jemisin",
              books: [("The Fifth Season", 2015), ("The Obelisk Gate", 2016), ("The Stone Sky", 2017)]),
    ]
}
