import Foundation
import Observation
import Strata
import Testing

/// Undo and redo of inserts, deletions, attribute and relationship changes,
/// before and after saves.
@Suite("Undo and redo")
struct UndoTests {
    private func undoingContext(_ stack: TestStack) -> ManagedObjectContext {
        let context = stack.container.newContext()
        context.isUndoEnabled = true
        return context
    }

    @Test(arguments: testedStoreKinds)
    func eachOperationUndoesAloneAndAnExplicitGroupTogether(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = undoingContext(stack)
        let book = Book(title: "Dune", year: 1965)
        context.insert(book)
        try context.save()

        book.title = "Dune Messiah"
        book.year = 1969
        context.undo()
        #expect(book.title == "Dune Messiah" && book.year == 1965)
        context.undo()
        #expect(book.title == "Dune" && book.year == 1965)
        #expect(!context.hasChanges)
        context.redo()
        context.redo()
        #expect(book.title == "Dune Messiah" && book.year == 1969)

        let undo = try #require(context.undoManager)
        undo.beginUndoGrouping()
        book.title = "Children of Dune"
        book.rating = 4
        undo.endUndoGrouping()
        undo.setActionName("Edit")
        #expect(undo.undoActionName == "Edit")
        context.undo()
        #expect(book.title == "Dune Messiah" && book.rating == nil)
        #expect(undo.canRedo)
        // A new change clears what could be redone.
        book.year = 1970
        #expect(!undo.canRedo)
    }

    @Test(arguments: testedStoreKinds)
    func undoingAnInsertTakesTheObjectOutAndRedoBringsItBack(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = undoingContext(stack)
        let author = Author(email: "a@example.com", name: "A")
        context.insert(author)
        context.undo()
        #expect(context.insertedObjects.isEmpty)
        #expect(!context.hasChanges)
        context.redo()
        #expect(context.insertedObjects.count == 1)
        try context.save()
        #expect(try stack.container.newContext().count(for: FetchRequest<Author>()) == 1)
    }

    @Test(arguments: testedStoreKinds)
    func attachingThroughTheToOneUndoesOneMemberAtATime(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = undoingContext(stack)
        let author = Author(email: "a@example.com", name: "A")
        context.insert(author)
        try context.save()
        #expect(author.books.isEmpty)
        let books = (1...3).map { Book(title: "B\($0)", year: $0) }
        for book in books {
            context.insert(book)
            book.author = author
        }
        #expect(author.books.map(\.title) == ["B1", "B2", "B3"])
        context.undo()
        #expect(author.books.map(\.title) == ["B1", "B2"])
        #expect(books[2].author == nil)
        context.redo()
        #expect(author.books.map(\.title) == ["B1", "B2", "B3"])
        #expect(books[2].author === author)
        #expect(context.objectGraphProblems().isEmpty)
        try context.save()
        let reader = stack.container.newContext()
        let stored = try reader.fetch(FetchRequest<Author>()).first
        #expect(stored?.books.map(\.title) == ["B1", "B2", "B3"])
    }

    @Test(arguments: testedStoreKinds)
    func undoOfACascadeDeleteRestoresEveryObjectAndBothSides(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = undoingContext(stack)
        let author = Author(email: "a@example.com", name: "A")
        context.insert(author)
        let first = Book(title: "One", year: 1), second = Book(title: "Two", year: 2)
        author.books = [first, second]
        try context.save()

        // Not saved yet.
        context.delete(author)
        #expect(first.isDeleted && second.isDeleted)
        context.undo()
        #expect(!author.isDeleted && !first.isDeleted && !second.isDeleted)
        #expect(author.books.map(\.title) == ["One", "Two"])
        #expect(first.author === author && second.author === author)
        #expect(!context.hasChanges)

        // Saved: undo brings all three back as new objects to save again.
        context.delete(author)
        try context.save()
        #expect(try stack.container.newContext().count(for: FetchRequest<Book>()) == 0)
        context.undo()
        #expect(context.hasChanges)
        #expect(author.books.map(\.title) == ["One", "Two"])
        #expect(first.author === author)
        try context.save()
        let reader = stack.container.newContext()
        let restored = try #require(try reader.fetch(FetchRequest<Author>()).first)
        #expect(restored.books.map(\.title) == ["One", "Two"])
        #expect(try reader.count(for: FetchRequest<Book>(predicate: #Predicate { $0.author != nil })) == 2)
    }

    @Test(arguments: testedStoreKinds)
    func undoAfterASaveLeavesChangesToSaveAgain(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = undoingContext(stack)
        let leGuin = Author(email: "u@example.com", name: "Le Guin")
        let austen = Author(email: "j@example.com", name: "Austen")
        let book = Book(title: "Earthsea", year: 1968)
        context.insert(leGuin)
        context.insert(austen)
        book.author = leGuin
        try context.save()

        book.title = "A Wizard of Earthsea"
        book.author = austen
        try context.save()
        context.undo()          // the author
        #expect(book.author === leGuin)
        #expect(leGuin.books.contains { $0 === book } && austen.books.isEmpty)
        context.undo()          // the title
        #expect(book.title == "Earthsea")
        #expect(context.hasChanges)
        try context.save()
        let reader = stack.container.newContext()
        let stored = try #require(try reader.fetch(FetchRequest<Book>()).first)
        #expect(stored.title == "Earthsea")
        #expect(stored.author?.name == "Le Guin")
        #expect(try reader.fetch(FetchRequest<Author>(predicate: #Predicate { $0.name == "Le Guin" })).first?.books.map(\.title) == ["Earthsea"])
    }

    @Test(arguments: testedStoreKinds)
    func undoAndRedoNotifyObserversAndListeners(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = undoingContext(stack)
        context.isObservationEnabled = true
        let book = Book(title: "Dune", year: 1965)
        context.insert(book)
        try context.save()
        book.title = "Changed"
        var events: [ContextEvent] = []
        let token = context.onEvent { events.append($0) }
        let fired = Locked(0)
        withObservationTracking { _ = book.title } onChange: { fired.withLock { $0 += 1 } }
        context.undo()
        withObservationTracking { _ = book.title } onChange: { fired.withLock { $0 += 1 } }
        context.redo()
        #expect(fired.value == 2)
        context.processPendingChanges()
        guard case .objectsDidChange(let changes)? = events.last else {
            Issue.record("expected objectsDidChange, got \(events)")
            return
        }
        #expect(changes.updated[book.objectID] == ["title"])
        withExtendedLifetime(token) {}
    }

    @Test
    func levelsOfUndoKeepTheNewestGroups() async throws {
        let stack = try await TestStack(.memory)
        let context = undoingContext(stack)
        let book = Book(title: "0", year: 0)
        context.insert(book)
        try context.save()
        context.undoManager?.levelsOfUndo = 2
        for step in 1...4 { book.title = "\(step)" }
        context.undo()
        context.undo()
        context.undo()
        #expect(book.title == "2")
        #expect(context.undoManager?.canUndo == false)
    }

    @Test
    func undoIsOffForNewContextsAndOnForTheViewContext() async throws {
        let stack = try await TestStack(.inMemory)
        let context = stack.container.newContext()
        #expect(!context.isUndoEnabled && context.undoManager == nil)
        let book = Book(title: "Kept", year: 1)
        context.insert(book)
        context.undo()
        #expect(context.insertedObjects.count == 1)
        let viewHasUndo = await MainActor.run { stack.container.viewContext.isUndoEnabled }
        #expect(viewHasUndo)
    }
}
