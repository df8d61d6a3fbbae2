import Foundation
import Strata
import StrataTestModels
import Testing

@Projection(of: Book.self)
struct BookRow: Hashable, Codable {
    let id: ObjectID
    let title: String
    let year: Int
    let rating: Double?
    let author: ObjectID?
}

@Projection(of: Book.self)
struct TitleRow {
    let title: String
    /// Not read from the store: a constant with its value.
    let kind = "book"
    var shout: String { title.uppercased() }
}

@Projection(of: Sample.self)
struct SampleRow: Equatable {
    var flag: Bool
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var double: Double
    var float: Float
    var string: String
    var date: Date
    var data: Data
    var uuid: UUID
    var url: URL
    var decimal: Decimal
    var genre: Genre
    var priority: Priority
    var dimensions: Dimensions
    var optionalString: String?
    var optionalInt: Int?
    var optionalDate: Date?
    var optionalGenre: Genre?
    var optionalPriority: Priority?
    var optionalDimensions: Dimensions?
    var defaulted: String
}

extension SampleRow {
    init(_ sample: Sample) {
        self.init(
            flag: sample.flag, int: sample.int, int8: sample.int8, int16: sample.int16, int32: sample.int32,
            int64: sample.int64, uint8: sample.uint8, uint16: sample.uint16, uint32: sample.uint32,
            double: sample.double, float: sample.float, string: sample.string, date: sample.date, data: sample.data,
            uuid: sample.uuid, url: sample.url, decimal: sample.decimal, genre: sample.genre, priority: sample.priority,
            dimensions: sample.dimensions, optionalString: sample.optionalString, optionalInt: sample.optionalInt,
            optionalDate: sample.optionalDate, optionalGenre: sample.optionalGenre,
            optionalPriority: sample.optionalPriority, optionalDimensions: sample.optionalDimensions,
            defaulted: sample.defaulted)
    }
}

/// Written by hand: reads the title as a number, which it is not.
private struct TitleAsNumber: ModelProjection {
    static var projectedProperties: [PartialKeyPath<Book>] { [\Book.title] }
    let title: Int
    init(reading row: inout ProjectionRow) throws(StrataError) {
        title = try row.next(as: Int.self)
    }
}

/// Written by hand: reads one value more than it lists.
private struct ReadsTooMuch: ModelProjection {
    static var projectedProperties: [PartialKeyPath<Book>] { [\Book.title] }
    init(reading row: inout ProjectionRow) throws(StrataError) {
        _ = try row.next(as: String.self)
        _ = try row.next(as: Int.self)
    }
}

/// Lists a to-many relationship, which has no column to read.
private struct AuthorBooks: ModelProjection {
    static var projectedProperties: [PartialKeyPath<Author>] { [\Author.books] }
    init(reading row: inout ProjectionRow) throws(StrataError) {}
}

/// `fetch(_:as:)` reads chosen properties into Sendable structs, saved or
/// not, on every store kind, with the same matches and order as `fetch(_:)`.
@Suite("Projections")
struct ProjectionTests {
    private static var byYear: FetchRequest<Book> { FetchRequest<Book>(sortBy: [SortDescriptor(\.year), SortDescriptor(\.title)]) }

    private static func fill(_ context: ManagedObjectContext) {
        let author = Author(email: "le@guin.example", name: "Le Guin")
        context.insert(author)
        for (title, year) in [("A Wizard of Earthsea", 1968), ("The Dispossessed", 1974), ("The Word for World", 1972),
                              ("Lathe of Heaven", 1971), ("Orphan", 1971)] {
            let book = Book(title: title, year: year, rating: year == 1974 ? 4.5 : nil)
            context.insert(book)
            if title != "Orphan" { book.author = author }
        }
    }

    /// The rows the objects of a fetch would give.
    private static func expected(_ request: FetchRequest<Book>, in context: ManagedObjectContext) throws -> [BookRow] {
        try context.fetch(request).map { book in
            BookRow(id: book.objectID, title: book.title, year: book.year, rating: book.rating, author: book.author?.objectID)
        }
    }

    private static func check(_ context: ManagedObjectContext) throws {
        let rows = try context.fetch(byYear, as: BookRow.self)
        #expect(rows.map(\.title) == ["A Wizard of Earthsea", "Lathe of Heaven", "Orphan", "The Word for World", "The Dispossessed"])
        #expect(rows == (try expected(byYear, in: context)))
        #expect(rows[4].rating == 4.5 && rows[0].rating == nil)
        #expect(rows[2].author == nil && rows[0].author != nil)
        let titles = try context.fetch(byYear, as: TitleRow.self)
        #expect(titles.map(\.title) == rows.map(\.title) && titles.allSatisfy { $0.kind == "book" })

        var page = FetchRequest<Book>(predicate: #Predicate { $0.year > 1968 }, sortBy: [SortDescriptor(\.title, order: .reverse)])
        page.fetchOffset = 1
        page.fetchLimit = 2
        #expect(try context.fetch(page, as: BookRow.self) == (try expected(page, in: context)))
        #expect(try context.fetch(page, as: BookRow.self).map(\.title) == ["The Dispossessed", "Orphan"])
    }

    @Test(arguments: testedStoreKinds)
    func rowsMatchTheObjectsSavedOrNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context in
            Self.fill(context)
            // Unsaved: read from the context's objects, temporary IDs and all.
            try Self.check(context)
            #expect(try context.fetch(Self.byYear, as: BookRow.self).allSatisfy(\.id.isTemporary))
            try context.save()
            context.reset()
            // Saved: read from the store; the IDs find the objects.
            try Self.check(context)
            let first = try #require(try context.fetch(Self.byYear, as: BookRow.self).first)
            #expect(!first.id.isTemporary)
            let book = try context.existingObject(with: first.id, as: Book.self)
            #expect(book.title == first.title)
            #expect(book.author?.objectID == first.author)
        }
    }

    @Test(arguments: testedStoreKinds)
    func unsavedChangesCountUnlessTheRequestSaysNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context in
            Self.fill(context)
            try context.save()
            let orphan = try #require(try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == "Orphan" })).first)
            orphan.title = "Orphan, renamed"
            context.delete(try #require(try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year == 1968 })).first))
            context.insert(Book(title: "Tehanu", year: 1990))
            let titles = try context.fetch(Self.byYear, as: BookRow.self).map(\.title)
            #expect(titles == ["Lathe of Heaven", "Orphan, renamed", "The Word for World", "The Dispossessed", "Tehanu"])
            var stored = Self.byYear
            stored.includesPendingChanges = false
            #expect(try context.fetch(stored, as: BookRow.self).map(\.title)
                == ["A Wizard of Earthsea", "Lathe of Heaven", "Orphan", "The Word for World", "The Dispossessed"])
        }
    }

    @Test(arguments: testedStoreKinds)
    func aChildReadsItsParentsUnsavedValues(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let parent = stack.container.newContext()
        Self.fill(parent)
        try parent.save()
        let orphan = try #require(try parent.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == "Orphan" })).first)
        orphan.title = "Orphan, renamed"
        let child = parent.newChildContext()
        let rows = try child.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year == 1971 }, sortBy: [SortDescriptor(\.title)]), as: BookRow.self)
        #expect(rows.map(\.title) == ["Lathe of Heaven", "Orphan, renamed"])
        #expect(rows[1].id == orphan.objectID)
    }

    @Test(arguments: testedStoreKinds)
    func everyAttributeTypeReadsAsTheObjectReadsIt(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Sample.self))
        try stack.container.perform { context in
            for seed in 0..<4 { context.insert(Sample(seed: seed)) }
            let request = FetchRequest<Sample>(sortBy: [SortDescriptor(\.int64)])
            let unsaved = try context.fetch(request, as: SampleRow.self)
            try context.save()
            context.reset()
            let objects = try context.fetch(request).map(SampleRow.init)
            #expect(objects.count == 4)
            #expect(try context.fetch(request, as: SampleRow.self) == objects)
            #expect(unsaved == objects)
        }
    }

    @Test(arguments: testedStoreKinds)
    func awaitingTheStoreGivesTheSameRows(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        Self.fill(context)
        // Unsaved: from the context's objects.
        #expect(try await context.fetchAsync(Self.byYear, as: BookRow.self) == (try context.fetch(Self.byYear, as: BookRow.self)))
        try context.save()
        context.reset()
        // Saved: from the store, awaited.
        let awaited = try await context.fetchAsync(Self.byYear, as: BookRow.self)
        #expect(awaited == (try Self.expected(Self.byYear, in: context)))
        #expect(awaited.map(\.title) == ["A Wizard of Earthsea", "Lathe of Heaven", "Orphan", "The Word for World", "The Dispossessed"])
        await #expect(throws: StrataError.self) { try await context.fetchAsync(FetchRequest<Book>(), as: TitleAsNumber.self) }
        let child = context.newChildContext()
        #expect(try await child.fetchAsync(Self.byYear, as: BookRow.self) == awaited)
    }

    @Test func projectionsCrossIsolationDomains() async throws {
        let stack = try await TestStack(.memory)
        try stack.container.perform { context in
            Self.fill(context)
            try context.save()
        }
        let rows = try await stack.container.performBackgroundTask { context in
            try context.fetch(Self.byYear, as: BookRow.self)
        }
        let encoded = try JSONEncoder().encode(rows)
        #expect(try JSONDecoder().decode([BookRow].self, from: encoded) == rows)
    }

    @Test(arguments: testedStoreKinds)
    func aValueOfTheWrongTypeFailsTheFetch(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context in
            Self.fill(context)
            for pending in [true, false] {
                var request = FetchRequest<Book>()
                request.includesPendingChanges = pending
                let error = try #require(throws: StrataError.self) { try context.fetch(request, as: TitleAsNumber.self) }
                #expect(error.code == .valueConversion)
                #expect(error.propertyName == "title")
                try context.save()
            }
            #expect(throws: StrataError.self) { try context.fetch(FetchRequest<Book>(), as: ReadsTooMuch.self) }
            let error = try #require(throws: StrataError.self) { try context.fetch(FetchRequest<Author>(), as: AuthorBooks.self) }
            #expect(error.code == .unsupportedPredicate)
        }
    }
}
