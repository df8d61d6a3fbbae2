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
        /// Opens a store of this kind for a container.
        package let opener: StoreOpener
        /// Whether the store is the file at the description's `url`.
        package let storesInFile: Bool

        /// A kind of store; `name` tells it apart. The SQLite and PostgreSQL
        /// modules add theirs.
        package init(name: String, storesInFile: Bool = false, opener: StoreOpener) {
            self.name = name
            self.storesInFile = storesInFile
            self.opener = opener
        }

        public static func == (lhs: StoreType, rhs: StoreType) -> Bool { lhs.name == rhs.name }
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }

        /// Rows held in memory by pure Swift, with no SQL (Core Data's
        /// in-memory store type): the reference the other stores are tested against.
        public static let memory = StoreType(name: "in-memory", opener: StoreOpener { schema, description, opening in
            MemoryStore(schema: schema, options: description.storeOptions, metricsFactory: opening.metricsFactory)
        })

        public var description: String { name }
    }

    /// The kind of store.
    public private(set) var type: StoreType
    /// The store's file; `/dev/null` for a store in memory.
    public var url: URL
    /// Whether the store lives only in memory (each such description is its own store).
    public var isInMemory: Bool { !type.storesInFile }
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

    /// A store of a kind a Strata module provides, at `url` for a kind that
    /// keeps a file.
    package init(type: StoreType, url: URL = URL(fileURLWithPath: "/dev/null")) {
        self.url = url
        self.type = type
    }

    /// A new, empty pure-Swift store held in memory (``StoreType/memory``);
    /// gone when the container is.
    public static func memory() -> StoreDescription {
        StoreDescription(type: .memory)
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
        type.storesInFile ? "store at \(url.path)" : "\(type) store"
    }

    /// How messages name the store: the file's name, or the store type's.
    package var storeName: String {
        type.storesInFile ? url.lastPathComponent : "\(type)"
    }
}

/// How a kind of store is opened for a container: the memory store's is in
/// StrataCore, the SQLite and PostgreSQL stores' in their modules.
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
