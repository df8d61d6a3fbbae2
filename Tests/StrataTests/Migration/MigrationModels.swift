import Foundation
import Strata

// Versions of one app's models, as an app would ship them.

enum NotesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    @Model final class Note {
        var title: String
        var body: String
        var folder: Folder?
        init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }

    @Model final class Folder {
        var name: String
        @Relationship(inverse: \Note.folder) var notes: [Note] = []
        init(name: String) { self.name = name }
    }
}

enum NotesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    @Model final class Note {
        var title: String
        @Attribute(originalName: "body") var text: String
        var priority: Int = 3
        var pinnedAt: Date?
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

enum NotesV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    @Model final class Note {
        var title: String
        var text: String
        var priority: Int = 3
        var pinnedAt: Date?
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

/// Counts words once the notes have text to count.
enum NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: NotesV1.self, toVersion: NotesV2.self),
         .custom(fromVersion: NotesV2.self, toVersion: NotesV3.self, willMigrate: nil, didMigrate: { context in
             for note in try context.fetch(FetchRequest<NotesV3.Note>()) {
                 note.words = note.text.split(separator: " ").count
             }
             try context.save()
         })]
    }
}

/// A stage that fails after changing rows: the migration must leave nothing.
enum FailingPlan: SchemaMigrationPlan {
    struct Refused: Error {}
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: NotesV2.self, toVersion: NotesV3.self, willMigrate: { context in
            for note in try context.fetch(FetchRequest<NotesV2.Note>()) { note.text = "changed" }
            try context.save()
            throw Refused()
        }, didMigrate: nil)]
    }
}

/// Sworm's scenario: `A(id, name)` becomes `B(identifier, text)` through code,
/// then a third version adds `C`.
enum SwormV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [A.self] }
    @Model final class A {
        var id: Int
        var name: String
        init(id: Int, name: String) {
            self.id = id
            self.name = name
        }
    }
}

enum SwormV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [B.self] }
    @Model final class B {
        var identifier: Double
        var text: String
        init(identifier: Double, text: String) {
            self.identifier = identifier
            self.text = text
        }
    }
}

enum SwormV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [B.self, C.self] }
    @Model final class B {
        var identifier: Double
        var text: String
        init(identifier: Double, text: String) {
            self.identifier = identifier
            self.text = text
        }
    }
    @Model final class C {
        var label: String?
        init() {}
    }
}

/// Carries `A`s across the stage in memory: read before, written after.
final class SwormCarry: @unchecked Sendable {
    // @unchecked: used by one migration at a time, on the thread that runs it.
    var rows: [(Int, String)] = []
    static let shared = SwormCarry()
}

enum SwormPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SwormV1.self, SwormV2.self, SwormV3.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: SwormV1.self, toVersion: SwormV2.self, willMigrate: { context in
            SwormCarry.shared.rows = try context.fetch(FetchRequest<SwormV1.A>()).map { ($0.id, $0.name) }
        }, didMigrate: { context in
            for (id, name) in SwormCarry.shared.rows {
                context.insert(SwormV2.B(identifier: Double(id) / 2, text: name.uppercased()))
            }
            SwormCarry.shared.rows = []
            try context.save()
        }),
         .lightweight(fromVersion: SwormV2.self, toVersion: SwormV3.self)]
    }
}

/// Sworm's plan without its last version, for migrating step by step.
enum SwormPlanToV2: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SwormV1.self, SwormV2.self] }
    static var stages: [MigrationStage] { Array(SwormPlan.stages.prefix(1)) }
}
