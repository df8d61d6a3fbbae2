/// The versions of an app's schema in order, and how to move a store from
/// each to the next: SwiftData's `SchemaMigrationPlan`, run by
/// ``PersistentContainer`` when it loads a store written with an older version.
///
/// A store is moved through every stage from its version to the app's in one
/// load, as one unit: the store afterwards holds all of it or none of it.
/// Consecutive versions without a stage are migrated by inference.
///
/// ```swift
/// enum NotesPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
///     static var stages: [MigrationStage] {
///         [.lightweight(fromVersion: NotesV1.self, toVersion: NotesV2.self),
///          .custom(fromVersion: NotesV2.self, toVersion: NotesV3.self,
///                  willMigrate: nil,
///                  didMigrate: { context in
///                      for note in try context.fetch(FetchRequest<NotesV3.Note>()) { note.words = note.text.split(separator: " ").count }
///                      try context.save()
///                  })]
///     }
/// }
/// let container = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV3.self),
///                                         migrationPlan: NotesPlan.self)
/// ```
public protocol SchemaMigrationPlan: SendableMetatype {
    /// Every version, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// How to move between consecutive versions.
    static var stages: [MigrationStage] { get }
}

/// How a store moves from one schema version to the next.
///
/// ```swift
/// MigrationStage.lightweight(fromVersion: NotesV1.self, toVersion: NotesV2.self)
/// ```
public enum MigrationStage {
    /// Inferred from the two schemas alone (see "Migrating a schema").
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// `willMigrate` runs on a context over the old schema, then the inferred
    /// change, then `didMigrate` on a context over the new schema. Either may
    /// fetch, change, insert, delete and save; what they save is part of the
    /// migration, undone with it if a later step fails.
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: ((ManagedObjectContext) throws -> Void)?,
        didMigrate: ((ManagedObjectContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }

    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): to
        }
    }
}
