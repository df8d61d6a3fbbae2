import Foundation
import Strata
import Testing

@Suite("Merge policies: deletions")
struct DeletionConflictTests {
    /// This context deletes the book that another context updated meanwhile.
    @Test(arguments: testedStoreKinds)
    func deletingAnObjectUpdatedElsewhereFailsUnderError(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .error)
        scenario.theirBook.year = 2000
        try scenario.theirs.save()
        scenario.mine.delete(scenario.myBook)
        let error = try #require(throws: StrataError.self) { try scenario.mine.save() }
        #expect(error.code == .mergeConflict)
        #expect(error.conflicts.first?.isDeletedInContext == true)
        #expect(try scenario.stored()?.year == 2000)
        #expect(scenario.myBook.isDeleted)
    }

    @Test(arguments: testedStoreKinds, [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite])
    func aDeletionStandsOverAnUpdateElsewhereUnderTrumpPolicies(_ kind: StoreKind, _ policy: MergePolicy) async throws {
        let scenario = try await LockingScenario(kind, policy: policy)
        scenario.theirBook.year = 2000
        try scenario.theirs.save()
        scenario.mine.delete(scenario.myBook)
        try scenario.mine.save()
        #expect(try scenario.stored() == nil)
    }

    @Test(arguments: testedStoreKinds)
    func rollbackUndoesADeletionOfAnObjectUpdatedElsewhere(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .rollback)
        scenario.theirBook.year = 2000
        try scenario.theirs.save()
        scenario.mine.delete(scenario.myBook)
        try scenario.mine.save()
        #expect(try scenario.stored()?.year == 2000)
        #expect(!scenario.myBook.isDeleted)
        #expect(scenario.myBook.year == 2000)
        #expect(!scenario.mine.hasChanges)
    }

    /// Another context deletes the book this context is changing.
    @Test(arguments: testedStoreKinds)
    func updatingAnObjectDeletedElsewhereFailsUnderError(_ kind: StoreKind) async throws {
        let scenario = try await LockingScenario(kind, policy: .error)
        scenario.theirs.delete(scenario.theirBook)
        try scenario.theirs.save()
        scenario.myBook.title = "Mine"
        let error = try #require(throws: StrataError.self) { try scenario.mine.save() }
        #expect(error.code == .mergeConflict)
        #expect(error.conflicts.first?.isDeletedInStore == true)
        #expect(error.conflicts.first?.storedValues == nil)
        #expect(try scenario.stored() == nil)
        #expect(scenario.mine.hasChanges)
    }

    @Test(arguments: testedStoreKinds, MergeResolution.allCases.filter { $0 != .error })
    func aDeletionElsewhereStandsUnderEveryOtherPolicy(_ kind: StoreKind, _ resolution: MergeResolution) async throws {
        let scenario = try await LockingScenario(kind, policy: .custom { conflicts in
            Dictionary(uniqueKeysWithValues: conflicts.map { ($0.objectID, resolution) })
        })
        scenario.theirs.delete(scenario.theirBook)
        try scenario.theirs.save()
        scenario.myBook.title = "Mine"
        let other = Book(title: "Unrelated", year: 1)
        scenario.mine.insert(other)
        try scenario.mine.save()
        #expect(try scenario.stored() == nil)
        #expect(scenario.mine.registeredObject(for: scenario.id) == nil)
        #expect(!scenario.mine.hasChanges)
        #expect(!other.objectID.isTemporary)
    }

    @Test(arguments: testedStoreKinds, [MergePolicy.rollback, .overwrite])
    func deletingAnObjectDeletedElsewhereSucceeds(_ kind: StoreKind, _ policy: MergePolicy) async throws {
        let scenario = try await LockingScenario(kind, policy: policy)
        scenario.theirs.delete(scenario.theirBook)
        try scenario.theirs.save()
        scenario.mine.delete(scenario.myBook)
        try scenario.mine.save()
        #expect(try scenario.stored() == nil)
        #expect(!scenario.mine.hasChanges)
    }
}

extension MergePolicy: CustomTestStringConvertible {
    public var testDescription: String { description }
}

extension MergeResolution: CustomTestStringConvertible {
    public var testDescription: String { rawValue }
}
