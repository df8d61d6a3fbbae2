import Foundation
import Observation
import Strata
import Testing

/// What a context tells its listeners: its own changes, its saves and merges.
@Suite("Context events")
struct ContextEventTests {
    @Test(arguments: testedStoreKinds)
    func objectsDidChangeListsInsertsUpdatesWithNamesAndDeletions(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        let kept = Book(title: "Kept", year: 1990)
        let doomed = Book(title: "Doomed", year: 1991)
        context.insert(kept)
        context.insert(doomed)
        try context.save()

        var events: [ContextEvent] = []
        let token = context.onEvent { events.append($0) }
        let added = Book(title: "Added", year: 2000)
        context.insert(added)
        kept.title = "Kept, retitled"
        kept.rating = 4
        context.delete(doomed)
        // Inserted and deleted before anyone heard: nothing to tell.
        let fleeting = Book(title: "Fleeting", year: 2001)
        context.insert(fleeting)
        context.delete(fleeting)
        #expect(events.isEmpty)

        context.processPendingChanges()
        guard case .objectsDidChange(let changes)? = events.first else {
            Issue.record("expected objectsDidChange, got \(events)")
            return
        }
        #expect(events.count == 1)
        #expect(changes.inserted == [added.objectID])
        #expect(changes.updated == [kept.objectID: ["title", "rating"]])
        #expect(changes.deleted == [doomed.objectID])

        // Nothing new: nothing told.
        context.processPendingChanges()
        #expect(events.count == 1)
        withExtendedLifetime(token) {}
    }

    @Test(arguments: testedStoreKinds)
    func aSaveTellsItsChangesThenDidSaveWithPermanentIDs(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        var events: [ContextEvent] = []
        let token = context.onEvent { events.append($0) }
        let book = Book(title: "Saved", year: 2000)
        context.insert(book)
        try context.save()
        #expect(events.count == 2)
        guard case .objectsDidChange(let changes) = events[0], case .didSave(let saved) = events[1] else {
            Issue.record("expected objectsDidChange then didSave, got \(events)")
            return
        }
        #expect(changes.inserted.count == 1)
        #expect(saved.inserted.map(\.objectID) == [book.objectID])
        #expect(!book.objectID.isTemporary)

        // Released: nothing more.
        token.cancel()
        book.title = "Again"
        try context.save()
        #expect(events.count == 2)
    }

    @Test(arguments: testedStoreKinds)
    func anotherContextsSaveArrivesAsDidMergeOnTheEventStream(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let listener = stack.container.newContext()
        listener.automaticallyMergesChangesFromParent = true
        let events = listener.events
        let writer = stack.container.newContext()
        writer.insert(Book(title: "Elsewhere", year: 1999))
        try writer.save()
        listener.mergePendingChanges()

        var iterator = events.makeAsyncIterator()
        guard case .didMerge(let merged)? = await iterator.next() else {
            Issue.record("expected a merge")
            return
        }
        #expect(merged.inserted.map { $0.value(forProperty: "title") } == [.text("Elsewhere")])
    }
}

/// Models are `Observable`: tracked reads hear of every way a value changes.
@Suite("Observable models")
struct ObservableModelTests {
    /// Whether `change` fires an observation of what `read` reads.
    private func notifies(_ read: () -> Void, when change: () throws -> Void) rethrows -> Bool {
        let fired = Locked(false)
        withObservationTracking(read) { fired.withLock { $0 = true } }
        try change()
        return fired.value
    }

    private func observingContext(_ stack: TestStack) -> ManagedObjectContext {
        let context = stack.container.newContext()
        context.isObservationEnabled = true
        return context
    }

    @Test(arguments: testedStoreKinds)
    func aTrackedReadHearsALocalSetAndNotOtherProperties(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = observingContext(stack)
        let book = Book(title: "Dune", year: 1965)
        context.insert(book)
        try context.save()
        #expect(notifies({ _ = book.title }, when: { book.title = "Dune Messiah" }))
        #expect(!notifies({ _ = book.title }, when: { book.year = 1969 }))
    }

    @Test(arguments: testedStoreKinds)
    func aTrackedReadHearsAMergeARefreshAndARollback(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = observingContext(stack)
        let book = Book(title: "Dune", year: 1965)
        context.insert(book)
        try context.save()

        let other = stack.container.newContext()
        let copy = try other.existingObject(with: book.objectID, as: Book.self)
        copy.title = "Changed elsewhere"
        try other.save()
        #expect(notifies({ _ = book.title }, when: {
            context.refresh(book, mergeChanges: true)
        }))
        #expect(book.title == "Changed elsewhere")

        #expect(notifies({ _ = book.title }, when: {
            book.title = "Unsaved"
            context.rollback()
        }))

        let merging = observingContext(stack)
        merging.automaticallyMergesChangesFromParent = true
        let mergedBook = try merging.existingObject(with: book.objectID, as: Book.self)
        _ = mergedBook.title
        copy.title = "Merged"
        try other.save()
        #expect(notifies({ _ = mergedBook.title }, when: { merging.mergePendingChanges() }))
        #expect(mergedBook.title == "Merged")
    }

    @Test(arguments: testedStoreKinds)
    func aTrackedToManyHearsAnAppendAndAReorder(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = observingContext(stack)
        let author = Author(email: "a@example.com", name: "A")
        context.insert(author)
        let first = Book(title: "One", year: 1), second = Book(title: "Two", year: 2)
        author.books = [first]
        try context.save()
        #expect(notifies({ _ = author.books }, when: { author.books.append(second) }))
        #expect(notifies({ _ = author.books }, when: { author.books = [second, first] }))
        // Setting the inverse side changes the to-many too.
        let third = Book(title: "Three", year: 3)
        context.insert(third)
        #expect(notifies({ _ = author.books }, when: { third.author = author }))
    }

    @Test(arguments: testedStoreKinds)
    func contextsThatDoNotObserveRegisterNoReads(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        #expect(!context.isObservationEnabled)
        let book = Book(title: "Quiet", year: 2000)
        context.insert(book)
        #expect(!notifies({ _ = book.title }, when: { book.title = "Still quiet" }))
    }

    @MainActor @Test
    func theViewContextObservesReads() async throws {
        let stack = try await TestStack(.inMemory)
        #expect(stack.container.viewContext.isObservationEnabled)
    }
}
