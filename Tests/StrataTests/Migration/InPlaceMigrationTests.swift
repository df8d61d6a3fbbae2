import Foundation
import Strata
import Testing

/// Version 4 removes `pinnedAt`: SQLite rebuilds the table, PostgreSQL drops the column in place.
enum NotesV4: VersionedSchema {
    static let versionIdentifier = Schema.Version(4, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    @Model final class Note {
        var title: String
        var text: String
        var priority: Int = 3
        var words: Int = 0
        var folder: Folder?
        init(title: String, text: String) {
            self.title = title
            self.text = text
        }
    }

    @Model final class Folder {
        var name: String
        @Relationship(inverse: \Note.folder) var notes: [Note] = []
        init(name: String) { self.name = name }
    }
}

/// Version 5 widens `priority` to `Double` and makes `text` optional: in
/// place on PostgreSQL.
enum NotesV5: VersionedSchema {
    static let versionIdentifier = Schema.Version(5, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    @Model final class Note {
        var title: String
        var text: String?
        var priority: Double = 3
        var words: Int = 0
        var folder: Folder?
        init(title: String) { self.title = title }
    }

    @Model final class Folder {
        var name: String
        @Relationship(inverse: \Note.folder) var notes: [Note] = []
        init(name: String) { self.name = name }
    }
}

/// Version 6 makes `text` required again, with a default for the notes without one.
enum NotesV6: VersionedSchema {
    static let versionIdentifier = Schema.Version(6, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    @Model final class Note {
        var title: String
        var text: String = "Empty"
        var priority: Double = 3
        var words: Int = 0
        var folder: Folder?
        init(title: String) { self.title = title }
    }

    @Model final class Folder {
        var name: String
        @Relationship(inverse: \Note.folder) var notes: [Note] = []
        init(name: String) { self.name = name }
    }
}

@Suite("Migrating tables in place")
struct InPlaceMigrationTests {
    private func open(_ url: URL, _ version: any VersionedSchema.Type, _ kind: StoreKind) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: version))
        container.storeDescriptions = [kind.description(url)]
        try await container.loadPersistentStores()
        return container
    }

    @Test(arguments: persistentStoreKinds)
    func renamesAndAddedAttributesChangeTheTableInPlaceAndKeepEveryValue(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        let v1 = try await open(url, NotesV1.self, kind)
        try v1.perform { context in
            let folder = NotesV1.Folder(name: "work")
            context.insert(folder)
            for index in 0..<4 {
                let note = NotesV1.Note(title: "note \(index)", body: "body \(index)")
                context.insert(note)
                folder.notes.insert(note, at: 0)
            }
            try context.save()
        }
        try v1.persistentStoreCoordinator.close()
        let page = try tableStorage(kind, url, table: "Note")

        // Version 2 renames `body` and adds `priority = 3` and `pinnedAt`: no row is copied.
        let pinned = Date(timeIntervalSinceReferenceDate: 812_345_678.125)
        let v2 = try await open(url, NotesV2.self, kind)
        try v2.perform { context in
            let notes = try context.fetch(FetchRequest<NotesV2.Note>(sortBy: [SortDescriptor(\.title, comparator: .lexical)]))
            #expect(notes.map(\.text) == ["body 0", "body 1", "body 2", "body 3"])
            #expect(notes.allSatisfy { $0.priority == 3 && $0.pinnedAt == nil })
            let folder = try #require(try context.fetch(FetchRequest<NotesV2.Folder>()).first)
            #expect(folder.notes.map(\.title) == ["note 3", "note 2", "note 1", "note 0"])
            let new = NotesV2.Note(title: "new", text: "written by version 2")
            new.priority = 7
            new.pinnedAt = pinned
            context.insert(new)
            new.folder = folder
            try context.save()
        }
        try v2.persistentStoreCoordinator.close()
        #expect(try tableStorage(kind, url, table: "Note") == page)

        // Version 3 adds `words = 0` to the table version 2 changed: in place again.
        let v3 = try await open(url, NotesV3.self, kind)
        try v3.perform { context in
            let new = try #require(try context.fetch(FetchRequest<NotesV3.Note>(predicate: #Predicate { $0.title == "new" })).first)
            #expect(new.text == "written by version 2" && new.priority == 7 && new.pinnedAt == pinned && new.words == 0)
            #expect(try context.count(for: FetchRequest<NotesV3.Note>(predicate: #Predicate { $0.priority == 3 && $0.words == 0 })) == 4)
            // Stored `DEFAULT`s never stand in for a value the app writes.
            let optional = NotesV3.Note(title: "unpinned", text: "")
            optional.priority = 1
            context.insert(optional)
            try context.save()
        }
        try v3.persistentStoreCoordinator.close()
        #expect(try tableStorage(kind, url, table: "Note") == page)

        // Version 4 removes `pinnedAt`: SQLite rebuilds the table, PostgreSQL drops the column; values kept.
        let v4 = try await open(url, NotesV4.self, kind)
        try v4.perform { context in
            let notes = try context.fetch(FetchRequest<NotesV4.Note>(sortBy: [SortDescriptor(\.title, comparator: .lexical)]))
            #expect(notes.map(\.title) == ["new", "note 0", "note 1", "note 2", "note 3", "unpinned"])
            #expect(notes.map(\.priority) == [7, 3, 3, 3, 3, 1])
            let folder = try #require(try context.fetch(FetchRequest<NotesV4.Folder>()).first)
            #expect(folder.notes.map(\.title) == ["note 3", "note 2", "note 1", "note 0", "new"])
        }
        try v4.persistentStoreCoordinator.close()
        let rebuilt = try tableStorage(kind, url, table: "Note") != page
        #expect(rebuilt == (kind == .file))

        // Version 5 widens an integer and changes which values are required.
        let v5 = try await open(url, NotesV5.self, kind)
        try v5.perform { context in
            let notes = try context.fetch(FetchRequest<NotesV5.Note>(sortBy: [SortDescriptor(\.title, comparator: .lexical)]))
            #expect(notes.map(\.priority) == [7, 3, 3, 3, 3, 1])
            #expect(notes.map(\.text) == ["written by version 2", "body 0", "body 1", "body 2", "body 3", ""])
            notes[0].text = nil
            notes[0].priority = 2.5
            try context.save()
            #expect(try context.count(for: FetchRequest<NotesV5.Note>(predicate: #Predicate { $0.priority > 2 && $0.priority < 3 })) == 1)
        }
        try v5.persistentStoreCoordinator.close()
        #expect((try tableStorage(kind, url, table: "Note") == page) == (kind == .postgres))

        // Version 6 requires `text`: the note without one gets the default, folded form too.
        let v6 = try await open(url, NotesV6.self, kind)
        let empty = "EMPTY".folded
        #expect(try v6.perform { context in
            try context.fetch(FetchRequest<NotesV6.Note>(predicate: #Predicate { $0.text.folded == empty })).map(\.title)
        } == ["new"])
        try v6.persistentStoreCoordinator.close()
        #expect((try tableStorage(kind, url, table: "Note") == page) == (kind == .postgres))
    }
}
