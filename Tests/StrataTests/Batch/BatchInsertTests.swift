import Foundation
import Strata
import Testing

@Suite("Batch insert")
struct BatchInsertTests {
    @Test(arguments: testedStoreKinds)
    func insertsRowsFromDictionariesThatFetchesReturn(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let authorID = try stack.container.perform { context in
            let author = Author(email: "h@example.com", name: "Herbert")
            context.insert(author)
            context.insert(Book(title: "Whipping Star", year: 1970))
            try context.save()
            return author.objectID
        }
        let result = try stack.container.execute(BatchInsertRequest<Book>(objects: [
            ["title": "Dune", "year": 1965, "rating": 4.5, "author": authorID],
            ["title": "Emma", "year": 1815],
            ["title": "Ulysses", "year": 1922, "rating": Optional<Double>.none],
        ], resultType: .objectIDs))

        #expect(result.count == 3)
        #expect(result.objectIDs.count == 3)
        #expect(result.objectIDs.allSatisfy { !$0.isTemporary && $0.entityName == "Book" })
        #expect(result.insertedObjectIDs == result.objectIDs)

        let context = stack.container.newContext()
        let books = try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)]))
        #expect(books.map(\.title) == ["Emma", "Ulysses", "Dune", "Whipping Star"])
        #expect(books.map(\.rating) == [nil, nil, 4.5, nil])
        let dune = try context.existingObject(with: result.objectIDs[0], as: Book.self)
        #expect(dune.title == "Dune")
        #expect(dune.author?.objectID == authorID)
        // A batch-inserted member goes last in its owner's to-many order.
        let author = try context.existingObject(with: authorID, as: Author.self)
        #expect(author.books.map(\.title) == ["Dune"])
    }

    @Test(arguments: testedStoreKinds)
    func insertsRowsFromAHandlerUntilItSaysDone(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: releaseSchema)
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        var remaining = ["A", "B", "C"][...]
        var calls = 0
        let result = try stack.container.execute(BatchInsertRequest<Release> { row in
            calls += 1
            row[\.title] = "discarded"   // the call that says done inserts nothing
            guard let title = remaining.popFirst() else { return true }
            row[\.title] = title
            row[\.genre] = title == "B" ? .essay : .poetry
            row["date"] = date
            if title == "C" {
                row[\.priority] = .high
                row["dimensions"] = Dimensions(width: 1, height: 2, labels: ["x"])
            }
            #expect(row[\.title] == title)
            return false
        })
        #expect(result.count == 3)
        #expect(calls == 4)
        #expect(result.objectIDs.isEmpty)   // .count is the default result type

        let releases = try stack.container.newContext().fetch(FetchRequest<Release>(sortBy: [SortDescriptor(\.title)]))
        #expect(releases.map(\.title) == ["A", "B", "C"])
        #expect(releases.map(\.genre) == [.poetry, .essay, .poetry])
        #expect(releases.map(\.priority) == [nil, nil, .high])
        #expect(releases.allSatisfy { $0.date == date })
        #expect(releases[2].dimensions == Dimensions(width: 1, height: 2, labels: ["x"]))
    }

    @Test(arguments: testedStoreKinds)
    func typedKeyPathsReadBackAndLeaveNothingForTheNextRow(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        var rows = [("Dune", 1965, 4.5 as Double?), ("Emma", 1815, nil), ("Ulysses", 1922, nil)][...]
        let result = try stack.container.execute(BatchInsertRequest<Book> { row in
            guard let (title, year, rating) = rows.popFirst() else { return true }
            row[\.title] = title
            row[\.year] = year
            #expect(row[\.year] == year)
            #expect(row["year"] as? Int == year)
            if let rating {
                row[\.rating] = rating
                #expect(row[\.rating] == .some(rating))
            } else if title == "Ulysses" {
                row[\.rating] = .some(nil)   // set, to nil
                #expect(row[\.rating] == .some(nil))
            }
            return false
        })
        #expect(result.count == 3)
        let books = try stack.container.newContext().fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)]))
        #expect(books.map(\.title) == ["Emma", "Ulysses", "Dune"])
        // Emma's row set no rating: the value Dune's row set before it did not carry over.
        #expect(books.map(\.rating) == [nil, nil, 4.5])
    }

    @Test(arguments: testedStoreKinds)
    func keysComeFromTheStoreSequenceLikeSavedObjects(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let result = try stack.container.execute(BatchInsertRequest<Book>(
            objects: [["title": "A", "year": 1], ["title": "B", "year": 2]], resultType: .objectIDs))
        let savedID = try stack.container.perform { context in
            let book = Book(title: "C", year: 3)
            context.insert(book)
            try context.save()
            return book.objectID
        }
        let keys = result.objectIDs.compactMap(\.primaryKey)
        #expect(keys.count == 2)
        #expect(try #require(savedID.primaryKey) > keys.max()!)
        #expect(try stack.container.newContext().count(for: FetchRequest<Book>()) == 3)
    }

    @Test(arguments: testedStoreKinds)
    func aMissingRequiredValueThrowsAndWritesNothing(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let error = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Book>(objects: [
                ["title": "Dune", "year": 1965],
                ["title": "No year"],
            ]))
        }
        #expect(error.code == .validation)
        #expect(error.entityName == "Book")
        #expect(error.propertyName == "year")
        #expect(error.message.contains("Book.year"))
        #expect(try stack.container.newContext().count(for: FetchRequest<Book>()) == 0)
    }

    @Test(arguments: testedStoreKinds)
    func anUnknownKeyOrAValueOfTheWrongTypeThrowsAndWritesNothing(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let log = ErrorLog()
        stack.container.logError = log.record
        let unknown = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Book>(objects: [["title": "Dune", "year": 1965, "pages": 412]]))
        }
        #expect(unknown.code == .validation)
        #expect(unknown.propertyName == "pages")

        let toMany = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Author>(objects: [["email": "a", "name": "A", "books": [1]]]))
        }
        #expect(toMany.code == .validation)
        #expect(toMany.propertyName == "books")

        let wrongType = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Book>(objects: [["title": 12, "year": 1965]]))
        }
        #expect(wrongType.code == .validation)
        #expect(wrongType.propertyName == "title")

        let byHandler = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Book> { row in
                row["title"] = "Dune"
                row["year"] = 1965
                row["subtitle"] = "x"
                return false
            })
        }
        #expect(byHandler.code == .validation)
        #expect(byHandler.propertyName == "subtitle")

        #expect(try stack.container.newContext().count(for: FetchRequest<Book>()) == 0)
        #expect(log.errors.withLock { $0 } == [.validation, .validation, .validation, .validation])
    }

    @Test(arguments: testedStoreKinds)
    func aDuplicateUniqueValueThrowsUniquenessConflictAndWritesNothing(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context in
            context.insert(Author(email: "taken@example.com", name: "First"))
        }
        // The clash is with a stored row, after two good rows: the whole batch is one transaction.
        let stored = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Author>(objects: [
                ["email": "a@example.com", "name": "A"],
                ["email": "b@example.com", "name": "B"],
                ["email": "taken@example.com", "name": "C"],
            ]))
        }
        #expect(stored.code == .uniquenessConflict)
        // The clash is inside the batch.
        let inside = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Author>(objects: [
                ["email": "c@example.com", "name": "C"],
                ["email": "c@example.com", "name": "C again"],
            ]))
        }
        #expect(inside.code == .uniquenessConflict)
        let names = try stack.container.newContext().fetch(FetchRequest<Author>()).map(\.name)
        #expect(names == ["First"])
    }

    @Test(arguments: testedStoreKinds)
    @MainActor
    func insertedRowsReachTheViewContextsLoadedRelationships(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let view = stack.container.viewContext
        let author = Author(email: "a@example.com", name: "A")
        view.insert(author)
        try view.save()
        #expect(author.books.isEmpty)
        let result = try stack.container.execute(BatchInsertRequest<Book>(
            objects: [["title": "New", "year": 2000, "author": author.objectID]]))
        #expect(result.changes.toManyChanges.map(\.objectID) == [author.objectID])
        #expect(await eventually { author.books.map(\.title) == ["New"] })
        #expect(view.objectGraphProblems().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func aOneToOneIsRefusedBecauseItsOtherSideWouldNotFollow(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Pilot.self, Licence.self))
        let pilotID = try stack.container.perform { context in
            let pilot = Pilot(name: "P")
            context.insert(pilot)
            pilot.licence = Licence(number: "first")
            try context.save()
            return pilot.objectID
        }
        let error = #expect(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Licence>(objects: [["number": "second", "holder": pilotID]]))
        }
        #expect(error?.code == .validation)
        #expect(error?.propertyName == "holder")
        let stored = try stack.container.perform { context in
            try context.fetch(FetchRequest<Licence>()).map { "\($0.number):\($0.holder?.name ?? "-")" }
        }
        #expect(stored == ["first:P"], "nothing was written")
    }
}
