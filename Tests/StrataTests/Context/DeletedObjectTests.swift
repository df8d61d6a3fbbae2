import Foundation
import Strata
import Testing

@Suite("Objects that leave their context")
struct DeletedObjectTests {
    @Test(arguments: testedStoreKinds)
    func anObjectWhoseDeletionWasSavedHasNoContextAndKeepsItsValues(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        let book = Book(title: "Dune", year: 1965)
        context.insert(book)
        try context.save()
        context.delete(book)
        #expect(book.isDeleted)
        #expect(book.context === context, "a pending deletion still belongs to its context")
        try context.save()
        #expect(book.context == nil)
        #expect(!book.isDeleted, "as in Core Data, isDeleted means a deletion waiting for a save")
        #expect(!book.hasChanges)
        #expect(book.title == "Dune", "the last values stay readable")
        #expect(context.registeredObjects.isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    @MainActor
    func anObjectDeletedByAnotherContextLeavesTheMergingContext(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let view = stack.container.viewContext
        let book = Book(title: "Dune", year: 1965)
        view.insert(book)
        try view.save()
        let id = book.objectID
        try await stack.container.performBackgroundTask { context in
            context.delete(try context.existingObject(with: id, as: Book.self))
            try context.save()
        }
        #expect(await eventually { book.context == nil })
        #expect(book.title == "Dune")
        #expect(throws: StrataError.self) { try view.existingObject(with: id, as: Book.self) }

        // A context that merges on its own domain sees the same at its next merge.
        let other = stack.container.newContext()
        other.automaticallyMergesChangesFromParent = true
        let emma = Book(title: "Emma", year: 1815)
        other.insert(emma)
        try other.save()
        let emmaID = emma.objectID
        try await stack.container.performBackgroundTask { context in
            context.delete(try context.existingObject(with: emmaID, as: Book.self))
            try context.save()
        }
        #expect(emma.context === other, "nothing merged yet")
        other.mergePendingChanges()
        #expect(emma.context == nil)
        #expect(emma.title == "Emma")
    }

    @Test(arguments: testedStoreKinds)
    func rolledBackAndUnsavedDeletedInsertsHaveNoContext(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        let rolledBack = Book(title: "Draft", year: 2024)
        context.insert(rolledBack)
        context.rollback()
        #expect(rolledBack.context == nil)
        #expect(!rolledBack.isInserted)

        let discarded = Book(title: "Scrap", year: 2024)
        context.insert(discarded)
        context.delete(discarded)
        #expect(discarded.context == nil)
        #expect(!context.hasChanges)
    }

    @Test(arguments: testedStoreKinds)
    func aResetLeavesEveryObjectWithoutAContext(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        let book = Book(title: "Dune", year: 1965)
        context.insert(book)
        try context.save()
        context.reset()
        #expect(book.context == nil)
        #expect(book.title == "Dune")
    }
}
