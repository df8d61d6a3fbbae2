import Strata
import Testing

/// A note whose `willSave` and validation hooks run what a test gives them.
@Model final class HookedNote {
    var text: String
    @Transient var willSaveCount = 0
    @Transient var onWillSave: () -> Void = {}
    @Transient var onValidate: () -> Void = {}

    init(text: String) { self.text = text }

    func willSave() {
        willSaveCount += 1
        onWillSave()
    }

    func validateForInsert() throws { onValidate() }
    func validateForUpdate() throws { onValidate() }
}

/// What the save hooks change is saved with the objects that ran them.
@Suite("Changes made by save hooks")
struct SaveHookChangesTests {
    static let schema = Schema(HookedNote.self)

    /// Two saved notes, "a" and "b", in a new context of the stack.
    private func twoSavedNotes(_ stack: TestStack) throws -> (ManagedObjectContext, HookedNote, HookedNote) {
        let context = stack.container.newContext()
        let a = HookedNote(text: "a")
        let b = HookedNote(text: "b")
        context.insert(a)
        context.insert(b)
        try context.save()
        return (context, a, b)
    }

    private func storedTexts(_ stack: TestStack) throws -> [String] {
        try stack.container.perform { context in
            try context.fetch(FetchRequest<HookedNote>(sortBy: [SortDescriptor(\.text)])).map(\.text)
        }
    }

    @Test(arguments: testedStoreKinds)
    func aValidationHookChangingAnObjectChangedBackSavesIt(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Self.schema)
        let (context, a, b) = try twoSavedNotes(stack)
        b.text = "changed"
        b.text = "b"
        a.text = "a2"
        a.onValidate = { b.text = "from a hook" }
        try context.save()
        #expect(try storedTexts(stack) == ["a2", "from a hook"])
        #expect(!context.hasChanges)

        // Still tracked afterwards: a later change is saved too.
        a.onValidate = {}
        b.text = "later"
        #expect(context.hasChanges)
        try context.save()
        #expect(try storedTexts(stack) == ["a2", "later"])
    }

    @Test(arguments: testedStoreKinds)
    func willSaveChangingAnotherObjectSavesItAndCallsItsWillSave(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Self.schema)
        let (context, a, b) = try twoSavedNotes(stack)
        a.willSaveCount = 0
        b.willSaveCount = 0
        a.text = "a2"
        a.onWillSave = { b.text = "stamped" }
        try context.save()
        #expect(try storedTexts(stack) == ["a2", "stamped"])
        #expect(a.willSaveCount == 1)
        #expect(b.willSaveCount == 1)
        #expect(!context.hasChanges)
    }

    @Test(arguments: testedStoreKinds)
    func aHookDeletingAnInsertedObjectKeepsItOutOfTheStore(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Self.schema)
        let (context, a, _) = try twoSavedNotes(stack)
        let extra = HookedNote(text: "extra")
        context.insert(extra)
        a.text = "a2"
        a.onValidate = { context.delete(extra) }
        try context.save()
        #expect(try storedTexts(stack) == ["a2", "b"])
        #expect(!context.registeredObjects.contains { $0 === extra })
    }

    @Test(arguments: testedStoreKinds)
    func aHookTakingBackADeletionKeepsTheRow(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Self.schema)
        let (context, a, b) = try twoSavedNotes(stack)
        context.delete(b)
        a.text = "a2"
        a.onValidate = { context.insert(b) }
        try context.save()
        #expect(try storedTexts(stack) == ["a2", "b"])
        #expect(!b.isDeleted)
    }

    @Test(arguments: testedStoreKinds)
    func anObjectAValidationHookInsertsGetsWillSaveAndValidation(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Self.schema)
        let (context, a, _) = try twoSavedNotes(stack)
        var validated: [String] = []
        let late = HookedNote(text: "late")
        late.onValidate = { validated.append(late.text) }
        a.text = "a2"
        a.onValidate = { if late.context == nil { context.insert(late) } }
        try context.save()
        #expect(try storedTexts(stack) == ["a2", "b", "late"])
        #expect(late.willSaveCount == 1)
        #expect(validated == ["late"])
    }

    @Test(arguments: testedStoreKinds)
    func aWillSaveThatRollsBackSavesNothing(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Self.schema)
        let (context, a, _) = try twoSavedNotes(stack)
        let extra = HookedNote(text: "extra")
        context.insert(extra)
        a.text = "a2"
        a.onWillSave = { context.rollback() }
        try context.save()
        #expect(try storedTexts(stack) == ["a", "b"])
        #expect(!context.registeredObjects.contains { $0 === extra })
        #expect(a.text == "a")
    }

    @Test(arguments: testedStoreKinds)
    func changesMadeWhileDeletedAreUnsavedChangesOnceUndeleted(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Self.schema)
        let (context, _, b) = try twoSavedNotes(stack)
        context.delete(b)
        b.text = "while deleted"
        context.insert(b)
        #expect(b.isUpdated)
        #expect(context.hasChanges)
        try context.save()
        #expect(try storedTexts(stack) == ["a", "while deleted"])

        context.delete(b)
        b.text = "gone again"
        context.rollback()
        #expect(b.text == "while deleted")
        #expect(!context.hasChanges)
    }
}
