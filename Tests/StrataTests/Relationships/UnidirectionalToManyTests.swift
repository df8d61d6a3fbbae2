import Strata
import Testing

/// A folder lists notes; notes know nothing of folders (no inverse).
@Model final class Folder {
    var name: String
    var notes: [Memo] = []
    init(name: String) { self.name = name }
}

/// An album owns its tracks: deleting it deletes them (no inverse either).
@Model final class Album {
    var title: String
    @Relationship(deleteRule: .cascade) var tracks: [Memo] = []
    init(title: String) { self.title = title }
}

private let folderSchema = Schema(Folder.self, Album.self, Memo.self)

@Suite("To-many relationships without an inverse")
struct UnidirectionalToManyTests {
    @Test(arguments: testedStoreKinds)
    func membersKeepTheirOrderAndMayBelongToSeveralOwners(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: folderSchema)
        try stack.container.perform { context throws in
            let (a, b, c) = (Memo(title: "a"), Memo(title: "b"), Memo(title: "c"))
            let work = Folder(name: "work")
            let home = Folder(name: "home")
            context.insert(work)
            context.insert(home)
            work.notes = [c, a, b]                     // members are inserted with their owner
            home.notes = [b]
            #expect(c.isInserted)
            try context.save()
            work.notes.removeAll { $0 === a }
            work.notes.append(a)                       // a moves to the end
        }
        let check = { (container: PersistentContainer) throws in
            try container.perform { context throws in
                let folders = try context.fetch(FetchRequest<Folder>(sortBy: [SortDescriptor(\.name, comparator: .lexical)]))
                #expect(folders.map { $0.notes.map(\.title) } == [["b"], ["c", "b", "a"]])
                #expect(folders[0].notes[0] === folders[1].notes[1], "one object, two owners")
                let holding = try context.fetch(FetchRequest<Folder>(predicate: #Predicate { $0.notes.contains { $0.title == "b" } }))
                #expect(holding.count == 2)
            }
        }
        try check(stack.container)
        guard kind == .file else { return }
        try stack.container.persistentStoreCoordinator.close()
        try check(try await stack.reopened(schema: folderSchema))
    }

    @Test(arguments: testedStoreKinds)
    func aDeletedMemberLeavesEveryOwnerOnceTheDeletionIsSaved(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: folderSchema)
        let context = stack.container.newContext()
        let note = Memo(title: "gone")
        let folder = Folder(name: "f")
        context.insert(folder)
        folder.notes = [note, Memo(title: "kept")]
        try context.save()
        context.delete(note)
        try context.save()
        #expect(folder.notes.map(\.title) == ["kept"])
        let fresh = try stack.container.perform { context in
            try context.fetch(FetchRequest<Folder>()).first?.notes.map(\.title)
        }
        #expect(fresh == ["kept"])
    }

    @Test(arguments: testedStoreKinds)
    func deleteRulesApplyToMembers(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: folderSchema)
        try stack.container.perform { context throws in
            let folder = Folder(name: "f")
            let album = Album(title: "x")
            context.insert(folder)
            context.insert(album)
            folder.notes = [Memo(title: "note")]
            album.tracks = [Memo(title: "track 1"), Memo(title: "track 2")]
            try context.save()
            context.delete(folder)                     // nullify: the note stays
            context.delete(album)                      // cascade: the tracks go
        }
        let titles = try stack.container.perform { context in
            try context.fetch(FetchRequest<Memo>()).map(\.title)
        }
        #expect(titles == ["note"])
    }

    @Test(arguments: testedStoreKinds)
    func anotherContextsChangesAreMerged(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: folderSchema)
        let viewer = stack.container.newContext()
        viewer.automaticallyMergesChangesFromParent = true
        let folder = Folder(name: "f")
        viewer.insert(folder)
        folder.notes = [Memo(title: "first")]
        try viewer.save()
        let folderID = folder.objectID
        try stack.container.perform { context throws in
            let copy = try context.existingObject(with: folderID, as: Folder.self)
            copy.notes.insert(Memo(title: "zeroth"), at: 0)
        }
        viewer.mergePendingChanges()
        #expect(folder.notes.map(\.title) == ["zeroth", "first"])

        // A child context's change reaches the store through its parent.
        let child = viewer.newChildContext()
        let childFolder = try child.existingObject(with: folderID, as: Folder.self)
        childFolder.notes.removeFirst()
        try child.save()
        try viewer.save()
        let stored = try stack.container.perform { context in
            try context.existingObject(with: folderID, as: Folder.self).notes.map(\.title)
        }
        #expect(stored == ["first"])
    }
}
