import Foundation
import Strata
import StrataTestModels

/// Random sequences of inserts, changes, deletions, relationship changes,
/// saves, rollbacks and fetches with random predicates, run alike on SQLite
/// and on the pure-Swift in-memory store: every step must observe the same
/// thing on both. Fetches with unsaved changes are also checked against the
/// same fetch after saving them (Swift's answer against the store's). A
/// divergence is shrunk to the fewest steps that still show it.
struct DifferentialTrial {
    var sequences: Int
    var steps: Int
    var seed: UInt64

    func run() async throws -> TrialReport {
        var report = TrialReport(name: "differential: \(sequences) random sequences of \(steps) steps, SQLite against the in-memory store")
        var divergences = 0, observed = 0
        for sequence in 0..<sequences {
            var random = SeededGenerator(seed: seed &+ UInt64(sequence) &* 0x9E37_79B9)
            let worlds = try await Self.worlds()
            var taken: [DifferentialStep] = []
            for _ in 0..<steps {
                let step = DifferentialStep.random(for: worlds[0], using: &random)
                taken.append(step)
                let observations = worlds.map { $0.apply(step) }
                observed += 1
                if let problem = Self.problem(in: observations) {
                    divergences += 1
                    let shortest = try await Self.shrink(taken)
                    report.fail("sequence \(sequence) (seed \(seed)): \(problem)\n      shortest sequence that shows it:\n"
                        + shortest.map { "        \($0)" }.joined(separator: "\n"))
                    break
                }
            }
        }
        report.note("\(observed) steps observed on both stores, \(divergences) divergences")
        report.figures["differential steps"] = observed
        report.figures["divergences"] = divergences
        return report
    }

    /// A SQLite store and an in-memory store of the library schema.
    static func worlds() async throws -> [DifferentialWorld] {
        var worlds: [DifferentialWorld] = []
        for description in [StoreDescription.inMemory(), .memory()] {
            let container = try PersistentContainer(name: "Differential", schema: librarySchema)
            container.storeDescriptions = [description]
            try await container.loadPersistentStores()
            worlds.append(DifferentialWorld(container: container))
        }
        return worlds
    }

    /// What is wrong with one step's observations, if anything.
    static func problem(in observations: [String]) -> String? {
        if let inconsistent = observations.first(where: { $0.hasPrefix("INCONSISTENT") }) {
            return "saving changed a fetch's answer: \(inconsistent)"
        }
        guard Set(observations).count > 1 else { return nil }
        return "the stores disagree:\n      SQLite:    \(observations[0].prefix(600))\n      in-memory: \(observations[1].prefix(600))"
    }

    /// The shortest sequence found (by dropping one step at a time) that
    /// still shows a problem.
    static func shrink(_ steps: [DifferentialStep]) async throws -> [DifferentialStep] {
        var current = steps
        var changed = true
        var attempts = 0
        while changed, attempts < 400 {
            changed = false
            var index = current.count - 1
            while index >= 0, attempts < 400 {
                var candidate = current
                candidate.remove(at: index)
                attempts += 1
                if try await shows(candidate) {
                    current = candidate
                    changed = true
                }
                index -= 1
            }
        }
        return current
    }

    private static func shows(_ steps: [DifferentialStep]) async throws -> Bool {
        let worlds = try await worlds()
        for step in steps where problem(in: worlds.map { $0.apply(step) }) != nil { return true }
        return false
    }
}

/// One store with its context and the objects the sequence made.
final class DifferentialWorld {
    let container: PersistentContainer
    let context: ManagedObjectContext
    var books: [Book] = []
    var authors: [Author] = []

    init(container: PersistentContainer) {
        self.container = container
        self.context = container.newContext()
    }

    /// A live object at `index` (wrapping), or nil: gone from the context or deleted.
    func book(_ index: Int) -> Book? {
        guard !books.isEmpty else { return nil }
        let book = books[index % books.count]
        return book.context == nil || book.isDeleted ? nil : book
    }

    func author(_ index: Int) -> Author? {
        guard !authors.isEmpty else { return nil }
        let author = authors[index % authors.count]
        return author.context == nil || author.isDeleted ? nil : author
    }

    /// Applies a step and says what it saw.
    func apply(_ step: DifferentialStep) -> String {
        do {
            return try perform(step)
        } catch let error as StrataError {
            return "error \(error.code)"
        } catch {
            return "error \(error)"
        }
    }

    private func perform(_ step: DifferentialStep) throws -> String {
        switch step {
        case .insertBook(let title, let year, let rating):
            let book = Book(title: title, year: year, rating: rating)
            context.insert(book)
            books.append(book)
        case .insertAuthor(let email, let name):
            let author = Author(email: email, name: name)
            context.insert(author)
            authors.append(author)
        case .setYear(let index, let year):
            guard let book = book(index) else { return "skip" }
            book.year = year
        case .setTitle(let index, let title):
            guard let book = book(index) else { return "skip" }
            book.title = title
        case .setRating(let index, let rating):
            guard let book = book(index) else { return "skip" }
            book.rating = rating
        case .relate(let bookIndex, let authorIndex):
            guard let book = book(bookIndex) else { return "skip" }
            if let authorIndex {
                guard let author = author(authorIndex) else { return "skip" }
                book.author = author
            } else {
                book.author = nil
            }
        case .append(let authorIndex, let bookIndex):
            guard let author = author(authorIndex), let book = book(bookIndex) else { return "skip" }
            author.books.append(book)
        case .deleteBook(let index):
            guard let book = book(index) else { return "skip" }
            context.delete(book)
        case .deleteAuthor(let index):
            guard let author = author(index) else { return "skip" }
            context.delete(author)
        case .save:
            try context.save()
            return "saved"
        case .rollback:
            context.rollback()
            return "rolled back"
        case .fetchBooks(let query, let text, let number, let limit):
            return try fetchBooks(query, text, number, limit: limit, keys: true).joined(separator: "; ")
        case .fetchAuthors(let query, let text, let number):
            return try fetchAuthors(query, text, number).joined(separator: "; ")
        case .groupBooks(let query, let text, let number):
            return try groupBooks(query, text, number).joined(separator: "; ")
        case .saveAndCompare(let query, let text, let number):
            guard context.hasChanges else { return "no changes" }
            let pending = try fetchBooks(query, text, number, limit: nil, keys: false)
            let pendingGroups = try groupBooks(query, text, number)
            do {
                try context.save()
            } catch let error as StrataError {
                return "error \(error.code)"
            }
            let stored = try fetchBooks(query, text, number, limit: nil, keys: false)
            if pending != stored {
                return "INCONSISTENT query \(query) (\(text), \(number)): unsaved \(pending) but saved \(stored)"
            }
            let storedGroups = try groupBooks(query, text, number)
            if pendingGroups != storedGroups {
                return "INCONSISTENT groups, query \(query) (\(text), \(number)): unsaved \(pendingGroups) but saved \(storedGroups)"
            }
            return "consistent: " + stored.joined(separator: "; ")
        }
        return "ok"
    }

    private func fetchBooks(_ query: Int, _ text: String, _ number: Int, limit: Int?, keys: Bool) throws -> [String] {
        var request = FetchRequest<Book>(
            predicate: DifferentialQueries.book(query, text, number),
            sortBy: [SortDescriptor(\.title, comparator: .lexical), SortDescriptor(\.year)])
        request.fetchLimit = limit
        return try context.fetch(request).map { book in
            let key = keys ? "\(book.objectID.primaryKey.map(String.init) ?? "new")|" : ""
            return "\(key)\(book.title)|\(book.year)|\(book.rating.map { "\($0)" } ?? "nil")|\(book.author?.email ?? "-")"
        }
    }

    /// The matches grouped by author and rating: counts, sums, extremes and
    /// averages per group, a condition on them and an order by them.
    private func groupBooks(_ query: Int, _ text: String, _ number: Int) throws -> [String] {
        let request = FetchRequest<Book>(predicate: DifferentialQueries.book(query, text, number))
        let groups = try context.fetchGroups(
            of: request, by: \.author?.email, \.rating,
            computing: .count, .sum(\.year), .min(\.title), .max(\.year), .average(\.year), .count(distinct: \.title),
            having: .count >= 1 && !(.sum(\.year) < number * 2),
            sortBy: [.aggregate(.count, .reverse), .aggregate(.max(\.title))], limit: 6)
        return groups.map { group in
            let (email, rating) = group.keys
            let (count, sum, first, latest, mean, titles) = group.values
            let average = mean.map { String(format: "%.6f", $0) } ?? "nil"
            // -0.0 and 0.0 are one group; SQLite keeps a zero without its sign.
            let key = rating.map { "\($0 == 0 ? 0 : $0)" } ?? "nil"
            return "\(email ?? "-")|\(key): \(count) \(sum) \(first ?? "nil") "
                + "\(latest.map(String.init) ?? "nil") \(average) \(titles)"
        }
    }

    private func fetchAuthors(_ query: Int, _ text: String, _ number: Int) throws -> [String] {
        let request = FetchRequest<Author>(
            predicate: DifferentialQueries.author(query, text, number),
            sortBy: [SortDescriptor(\.email, comparator: .lexical)])
        let count = try context.count(for: request)
        return ["count \(count)"] + (try context.fetch(request).map { author in
            "\(author.email)|\(author.name)|\(author.books.map(\.title).joined(separator: ","))"
        })
    }
}

/// The predicates sequences fetch with, by number, over random constants.
enum DifferentialQueries {
    static let bookCount = 14
    static let authorCount = 4

    static func book(_ query: Int, _ text: String, _ number: Int) -> Predicate<Book>? {
        let real = Double(number)
        let remainder = number % 3
        switch query % bookCount {
        case 0: return #Predicate { $0.year > number }
        case 1: return #Predicate { $0.year == number || $0.rating == nil }
        case 2: return #Predicate { $0.title.starts(with: text) }
        case 3: return #Predicate { $0.title.contains(text) }
        case 4: return #Predicate { $0.author?.name == text }
        case 5: return #Predicate { ($0.rating ?? 0) >= real }
        case 6: return #Predicate { $0.author == nil }
        case 7: return #Predicate { !($0.year < number) && $0.title != text }
        case 8: return #Predicate { $0.year % 3 == remainder }
        case 9: return #Predicate { $0.rating != nil && $0.rating! > real }
        // Years run from -2 to 6: division by zero and overflow happen, and must fail alike.
        case 10: return #Predicate { 60 / $0.year > number }
        case 11: return #Predicate { $0.year != 0 && 60 % $0.year == remainder }
        case 12: return #Predicate { $0.year * 3_000_000_000_000_000_000 > 0 || $0.year == number }
        default: return nil
        }
    }

    static func author(_ query: Int, _ text: String, _ number: Int) -> Predicate<Author>? {
        switch query % authorCount {
        case 0: return #Predicate { $0.books.count > number }
        case 1: return #Predicate { $0.books.contains { $0.year > number } }
        case 2: return #Predicate { $0.name == text || $0.email.starts(with: text) }
        default: return #Predicate { $0.books.isEmpty }
        }
    }
}

/// One step of a sequence. Objects are named by their position among those
/// the sequence inserted, so a step means the same in every store.
enum DifferentialStep: CustomStringConvertible {
    case insertBook(title: String, year: Int, rating: Double?)
    case insertAuthor(email: String, name: String)
    case setYear(book: Int, year: Int)
    case setTitle(book: Int, title: String)
    case setRating(book: Int, rating: Double?)
    case relate(book: Int, author: Int?)
    case append(author: Int, book: Int)
    case deleteBook(Int)
    case deleteAuthor(Int)
    case save
    case rollback
    case fetchBooks(query: Int, text: String, number: Int, limit: Int?)
    case fetchAuthors(query: Int, text: String, number: Int)
    case saveAndCompare(query: Int, text: String, number: Int)
    case groupBooks(query: Int, text: String, number: Int)

    /// Text from pieces that test case, composition and order: "é" composed
    /// and decomposed, upper and lower case, punctuation.
    static let pieces = ["a", "b", "A", "\u{E9}", "e\u{301}", "e", "z", " ", "%", "_", "ab", "\u{1F600}"]
    static let emails = ["a@x", "b@x", "\u{E9}@x", "e\u{301}@x", "c@x"]

    static func text(using random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...3, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "a" }.joined()
    }

    static func rating(using random: inout SeededGenerator) -> Double? {
        [nil, 0, -0.0, 1.5, 3, 4.5, -2].randomElement(using: &random) ?? nil
    }

    static func random(for world: DifferentialWorld, using random: inout SeededGenerator) -> DifferentialStep {
        let index = Int.random(in: 0..<64, using: &random)
        let number = Int.random(in: -2...6, using: &random)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<16: return .insertBook(title: text(using: &random), year: number, rating: rating(using: &random))
        case 16..<22:
            return .insertAuthor(email: emails.randomElement(using: &random) ?? "a@x", name: text(using: &random))
        case 22..<30: return .setYear(book: index, year: number)
        case 30..<36: return .setTitle(book: index, title: text(using: &random))
        case 36..<41: return .setRating(book: index, rating: rating(using: &random))
        case 41..<49: return .relate(book: index, author: Bool.random(using: &random) ? nil : Int.random(in: 0..<64, using: &random))
        case 49..<53: return .append(author: index, book: Int.random(in: 0..<64, using: &random))
        case 53..<58: return .deleteBook(index)
        case 58..<61: return .deleteAuthor(index)
        case 61..<72: return .save
        case 72..<75: return .rollback
        case 75..<87:
            return .fetchBooks(query: Int.random(in: 0..<DifferentialQueries.bookCount, using: &random),
                               text: text(using: &random), number: number,
                               limit: Bool.random(using: &random) ? nil : Int.random(in: 0...4, using: &random))
        case 87..<93:
            return .fetchAuthors(query: Int.random(in: 0..<DifferentialQueries.authorCount, using: &random),
                                 text: text(using: &random), number: Int.random(in: -1...3, using: &random))
        case 93..<96:
            return .groupBooks(query: Int.random(in: 0..<DifferentialQueries.bookCount, using: &random),
                               text: text(using: &random), number: number)
        default:
            return .saveAndCompare(query: Int.random(in: 0..<DifferentialQueries.bookCount, using: &random),
                                   text: text(using: &random), number: number)
        }
    }

    var description: String {
        switch self {
        case .insertBook(let title, let year, let rating): "insert book \(String(reflecting: title)), \(year), \(String(describing: rating))"
        case .insertAuthor(let email, let name): "insert author \(String(reflecting: email)), \(String(reflecting: name))"
        case .setYear(let book, let year): "book #\(book).year = \(year)"
        case .setTitle(let book, let title): "book #\(book).title = \(String(reflecting: title))"
        case .setRating(let book, let rating): "book #\(book).rating = \(String(describing: rating))"
        case .relate(let book, let author): "book #\(book).author = \(author.map { "author #\($0)" } ?? "nil")"
        case .append(let author, let book): "author #\(author).books.append(book #\(book))"
        case .deleteBook(let book): "delete book #\(book)"
        case .deleteAuthor(let author): "delete author #\(author)"
        case .save: "save"
        case .rollback: "rollback"
        case .fetchBooks(let query, let text, let number, let limit):
            "fetch books, query \(query), \(String(reflecting: text)), \(number), limit \(String(describing: limit))"
        case .fetchAuthors(let query, let text, let number): "fetch authors, query \(query), \(String(reflecting: text)), \(number)"
        case .saveAndCompare(let query, let text, let number):
            "fetch books unsaved, save, fetch again: query \(query), \(String(reflecting: text)), \(number)"
        case .groupBooks(let query, let text, let number):
            "group books by author and rating, query \(query), \(String(reflecting: text)), \(number)"
        }
    }
}
