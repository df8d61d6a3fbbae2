import Foundation
import Strata
import Testing

@Suite("Store metadata")
struct StoreMetadataTests {
    @Test(arguments: testedStoreKinds)
    func metadataSetOnTheContainerIsKeptInTheStore(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        #expect(try stack.container.metadata().isEmpty)
        let date = Date(timeIntervalSinceReferenceDate: 812_345_678.123_456_7)
        try stack.container.setMetadata(date, forKey: "lastImport")
        try stack.container.setMetadata("c-1042", forKey: "syncCursor")
        #expect(try stack.container.metadataValue(forKey: "lastImport", as: Date.self) == date)
        #expect(try stack.container.metadata() == ["lastImport": .real(date.timeIntervalSinceReferenceDate), "syncCursor": .text("c-1042")])
        try stack.container.removeMetadata(forKey: "syncCursor")
        #expect(try stack.container.metadata().keys.sorted() == ["lastImport"])
        guard kind == .file else { return }
        try stack.container.persistentStoreCoordinator.close()
        let reopened = try await stack.reopened()
        #expect(try reopened.metadataValue(forKey: "lastImport", as: Date.self) == date)
    }

    @Test(arguments: testedStoreKinds)
    func metadataSetInAContextIsWrittenWithItsSaveOrNotAtAll(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        context.insert(Author(email: "a@example.com", name: "A"))
        try context.save()

        // A save that fails writes neither the objects nor the metadata, and keeps both.
        context.insert(Author(email: "a@example.com", name: "Duplicate"))
        context.setStoreMetadata(7, forKey: "importRun")
        #expect(throws: StrataError.self) { try context.save() }
        #expect(try stack.container.metadata()["importRun"] == nil)
        #expect(context.pendingStoreMetadata["importRun"] == .some(.integer(7)))

        context.rollback()
        #expect(context.pendingStoreMetadata.isEmpty, "rollback drops it with the objects")
        context.insert(Author(email: "b@example.com", name: "B"))
        context.setStoreMetadata(8, forKey: "importRun")
        try context.save()
        #expect(try stack.container.metadataValue(forKey: "importRun", as: Int.self) == 8)
        #expect(context.pendingStoreMetadata.isEmpty)

        // Metadata alone is a change worth saving.
        context.removeStoreMetadata(forKey: "importRun")
        #expect(context.hasChanges)
        try context.save()
        #expect(try stack.container.metadata().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func aChildContextHandsItsMetadataToItsParent(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let parent = stack.container.newContext()
        let child = parent.newChildContext()
        child.setStoreMetadata("draft", forKey: "stage")
        try child.save()
        #expect(try stack.container.metadata().isEmpty)
        try parent.save()
        #expect(try stack.container.metadataValue(forKey: "stage", as: String.self) == "draft")
    }
}
