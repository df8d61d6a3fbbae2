import Foundation
import StrataCore
import Logging

extension StoreDescription.StoreType {
    /// A SQLite database file (the default).
    public static let sqliteFile = StoreDescription.StoreType(
        name: "SQLite file", storesInFile: true, opener: SQLiteStore.opener(inMemory: false))
    /// A SQLite database held in memory: SQLite's behaviour, no file.
    public static let sqliteInMemory = StoreDescription.StoreType(
        name: "SQLite in memory", opener: SQLiteStore.opener(inMemory: true))
}

extension StoreDescription {
    /// A SQLite file store at `url`.
    ///
    /// ```swift
    /// container.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: "Library.sqlite"))]
    /// ```
    public init(url: URL) {
        self.init(type: .sqliteFile, url: url)
    }

    /// A new, empty SQLite store held in memory; gone when the container is.
    ///
    /// ```swift
    /// container.storeDescriptions = [.inMemory()]
    /// ```
    public static func inMemory() -> StoreDescription {
        StoreDescription(type: .sqliteInMemory)
    }
}

extension SQLiteStore {
    /// Opens a SQLite store as a container loads it.
    static func opener(inMemory: Bool) -> StoreOpener {
        StoreOpener { schema, description, opening throws(StrataError) in
            try SQLiteStore(
                location: inMemory ? .inMemory : .file(description.url), schema: schema, readOnly: description.isReadOnly,
                options: description.storeOptions, migration: opening.migration, migrationProgress: opening.migrationProgress,
                logger: opening.logger, metricsFactory: opening.metricsFactory)
        }
    }
}

extension PersistentContainer {
    /// A container for a schema whose one store is the SQLite file
    /// `<defaultDirectoryURL>/<name>.sqlite`; throws `.invalidSchema` when the
    /// schema is invalid, and `.invalidName` when `name` could not name a file
    /// in the default directory.
    ///
    /// With a `migrationPlan`, a store written with one of its earlier schema
    /// versions is migrated through its stages when it loads; without one, a
    /// store written with another schema is migrated by inference when it can
    /// be (see "Migrating a schema").
    ///
    /// Strata logs through `logger` (by default one labelled `strata`, made by
    /// the app's `LoggingSystem`); it never logs an error it throws above
    /// `.debug`, since the caller sees it.
    ///
    /// ```swift
    /// let container = try PersistentContainer(name: "Library", schema: Schema(Author.self, Book.self))
    /// try await container.loadPersistentStores()
    /// ```
    public convenience init(
        name: String, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        logger: Logger = Logger(label: "strata")
    ) throws {
        try self.init(
            name: name, schema: schema, migrationPlan: migrationPlan, logger: logger,
            defaultStore: { StoreDescription(url: $0.appendingPathExtension("sqlite")) })
    }
}

extension PersistentStoreCoordinator {
    /// Removes the store file at `url` with its `-wal` and `-shm` files, as
    /// Core Data's `destroyPersistentStore(at:type:options:)` does. Refused with
    /// `.invalidStoreLocation`, removing nothing, while the store is loaded here
    /// or open in any other container or process.
    ///
    /// ```swift
    /// try container.persistentStoreCoordinator.destroyPersistentStore(at: oldStoreURL)
    /// ```
    public func destroyPersistentStore(at url: URL) throws {
        try refuseIfLoaded(url, doing: "destroyed")
        try SQLiteStore.destroyFile(at: url)
    }

    /// Replaces the store file at `destination` with a consistent copy of the
    /// store at `source` (which may be in use), as Core Data's
    /// `replacePersistentStore(at:…withPersistentStoreFrom:…)` does. Refused
    /// while the destination is loaded here or open anywhere else.
    ///
    /// ```swift
    /// try coordinator.replacePersistentStore(at: liveURL, withPersistentStoreFrom: backupURL)
    /// ```
    public func replacePersistentStore(at destination: URL, withPersistentStoreFrom source: URL) throws {
        try refuseIfLoaded(destination, doing: "replaced")
        try SQLiteStore.replaceFile(at: destination, withStoreAt: source)
    }

    private func refuseIfLoaded(_ url: URL, doing action: String) throws(StrataError) {
        guard let store = attachedStore as? SQLiteStore, case .file(let loaded) = store.location,
              loaded.standardizedFileURL.resolvingSymlinksInPath() == url.standardizedFileURL.resolvingSymlinksInPath() else { return }
        throw StrataError(
            .invalidStoreLocation, "\(url.lastPathComponent) is loaded in this container; close it before it is \(action)")
    }
}
