import Foundation
import Logging
import Metrics

/// How to load a container's store: where it lives and how it behaves.
///
/// Edit descriptions before `loadPersistentStores()`; later edits have no effect
/// on a loaded store.
///
/// ```swift
/// container.storeDescriptions = [StoreDescription(url: fileURL)]
/// container.storeDescriptions[0].historyTracking = true
/// // or, for tests and previews:
/// container.storeDescriptions = [.inMemory()]      // SQLite, in memory
/// container.storeDescriptions = [.memory()]        // pure Swift, in memory
/// ```
public struct StoreDescription: Sendable, Hashable, CustomStringConvertible {
    /// Which kind of store a description loads.
    ///
    /// ```swift
    /// StoreDescription.memory().type == .memory   // true
    /// ```
    public struct StoreType: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        /// Opens a store of a kind another module provides (the PostgreSQL store).
        package let opener: StoreOpener?

        private init(name: String) {
            self.name = name
            opener = nil
        }

        /// A kind of store another Strata module provides; `name` tells it apart.
        package init(name: String, opener: StoreOpener) {
            self.name = name
            self.opener = opener
        }

        public static func == (lhs: StoreType, rhs: StoreType) -> Bool { lhs.name == rhs.name }
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }

        /// A SQLite database file (the default).
        public static let sqliteFile = StoreType(name: "SQLite file")
        /// A SQLite database held in memory: SQLite's behaviour, no file.
        public static let sqliteInMemory = StoreType(name: "SQLite in memory")
        /// Rows held in memory by pure Swift, with no SQL (Core Data's
        /// in-memory store type): the reference the other stores are tested against.
        public static let memory = StoreType(name: "in-memory")

        public var description: String { name }
    }

    /// The kind of store.
    public private(set) var type: StoreType
    /// The store's file; `/dev/null` for a store in memory.
    public var url: URL
    /// Whether the store lives only in memory (each such description is its own store).
    public var isInMemory: Bool { type != .sqliteFile }
    /// Opens the store read-only; saves throw `.readOnlyStore`.
    public var isReadOnly: Bool = false
    /// Records persistent history with each save.
    public var historyTracking: Bool = false
    /// With `historyTracking`: also records the old and new values of changed
    /// attributes (beyond what Core Data records).
    public var historyRecordsValueChanges: Bool = false
    /// Watches the store for commits by other processes.
    public var remoteChangeNotifications: Bool = false
    /// Checks every page of an existing store file with SQLite's `quick_check`,
    /// and every relationship with `foreign_key_check`, before opening it (a
    /// file that fails is refused with `.corruptStore` and left untouched).
    /// Off by default: it reads the whole file.
    public var verifiesIntegrity: Bool = false
    /// The permission bits a new store file is created with (its `-wal` and
    /// `-shm` files get the same). The default, `0o600`, lets only the owner
    /// read or write it, whatever the process's umask; existing files keep theirs.
    public var filePermissions: UInt16 = 0o600
    /// Migrates a store written with an older schema when loading.
    public var migratesAutomatically: Bool = true
    /// Infers lightweight migration steps when no explicit ones are given.
    public var infersMappingAutomatically: Bool = true

    /// A SQLite file store at `url`.
    public init(url: URL) {
        self.url = url
        self.type = .sqliteFile
    }

    /// A store of a kind another Strata module provides.
    package init(type: StoreType) {
        url = URL(fileURLWithPath: "/dev/null")
        self.type = type
    }

    /// A new, empty SQLite store held in memory; gone when the container is.
    public static func inMemory() -> StoreDescription {
        var description = StoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        description.type = .sqliteInMemory
        return description
    }

    /// A new, empty pure-Swift store held in memory (``StoreType/memory``);
    /// gone when the container is.
    public static func memory() -> StoreDescription {
        var description = StoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        description.type = .memory
        return description
    }

    /// The options the store itself acts on.
    package var storeOptions: StoreOptions {
        var options = StoreOptions(
            historyTracking: historyTracking, recordsValueChanges: historyRecordsValueChanges,
            remoteChangeNotifications: remoteChangeNotifications)
        options.verifiesIntegrity = verifiesIntegrity
        options.filePermissions = filePermissions
        return options
    }

    public var description: String {
        type == .sqliteFile ? "store at \(url.path)" : "\(type) store"
    }

    /// How messages name the store: the file's name, or the store type's.
    package var storeName: String {
        type == .sqliteFile ? url.lastPathComponent : "\(type)"
    }
}

/// How a module outside StrataCore opens its kind of store for a container.
///
/// ```swift
/// let opener = StoreOpener { schema, description, opening in
///     try MyStore(schema: schema, options: description.storeOptions, migration: opening.migration)
/// }
/// ```
package struct StoreOpener: Sendable {
    package let open: @Sendable (Schema, StoreDescription, StoreOpening) throws(StrataError) -> any PersistentStore

    package init(_ open: @escaping @Sendable (Schema, StoreDescription, StoreOpening) throws(StrataError) -> any PersistentStore) {
        self.open = open
    }
}

/// What a container gives a store it opens: how to migrate a store written
/// with another schema (nil: refuse it), and whom to tell of the progress.
///
/// ```swift
/// if let migration = opening.migration { let steps = try migration(storedSummary, storedVersion) }
/// ```
package struct StoreOpening {
    package var migration: MigrationPlanning?
    package var migrationProgress: (@Sendable (MigrationProgress) -> Void)?
    /// The container's logger; the store adds its `strata.store` metadata.
    package var logger: Logger
    /// Where the store makes its metrics (see ``StoreTelemetry``).
    package var metricsFactory: any MetricsFactory

    package init(
        migration: MigrationPlanning? = nil, migrationProgress: (@Sendable (MigrationProgress) -> Void)? = nil,
        logger: Logger = Logger(label: "strata"), metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.migration = migration
        self.migrationProgress = migrationProgress
        self.logger = logger
        self.metricsFactory = metricsFactory
    }
}
