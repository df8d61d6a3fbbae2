import Foundation
import Logging

/// The entry point: a schema, its store and the contexts that work on it.
///
/// ```swift
/// let container = try PersistentContainer(name: "Library", schema: Schema(Author.self, Book.self))
/// try await container.loadPersistentStores()
/// let titles = try await MainActor.run {
///     try container.viewContext.fetch(FetchRequest<Book>()).map(\.title)
/// }
/// ```
public final class PersistentContainer: Sendable {
    /// The container's name; the default store file is `<name>.sqlite`.
    public let name: String
    /// The model.
    public let schema: Schema
    /// How stores written with earlier versions of the schema are migrated.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// Holds the loaded store and relays its saves to merging contexts.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    let settings: Locked<Settings>
    let loading = Locked(LoadState.notLoaded)
    let viewContextHolder: ViewContextHolder
    /// Where the container, its store and its contexts log: the logger given
    /// to `init(name:schema:migrationPlan:logger:)` with `strata.container`
    /// metadata. Stores add `strata.store`, contexts `strata.context` and
    /// `strata.author`.
    public let logger: Logger

    struct Settings: Sendable {
        var storeDescriptions: [StoreDescription]
        var cleanUpAfterExecution = true
        var logError: (@Sendable (any Error) -> Void)?
        var migrationProgress: (@Sendable (MigrationProgress) -> Void)?
    }

    private static let directoryOverride = Locked<URL?>(nil)

    /// Where default stores live: `$XDG_DATA_HOME` or `~/.local/share` on Linux,
    /// Application Support on Apple platforms. Set it to move every default store.
    public static var defaultDirectoryURL: URL {
        get {
            if let url = directoryOverride.value { return url }
            #if canImport(Darwin)
            return FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
            #else
            if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !xdg.isEmpty {
                return URL(fileURLWithPath: xdg, isDirectory: true)
            }
            return FileManager.default.homeDirectoryForCurrentUser
                .appendingPathComponent(".local", isDirectory: true)
                .appendingPathComponent("share", isDirectory: true)
            #endif
        }
        set { directoryOverride.withLock { $0 = newValue } }
    }

    /// A container for a schema whose store, until the app sets
    /// ``storeDescriptions``, is `defaultStore` given `<defaultDirectoryURL>/<name>`
    /// (none without it). `PersistentContainer(name:schema:migrationPlan:logger:)`,
    /// from the SQLite module, makes it `<name>.sqlite`.
    package init(
        name: String, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, logger: Logger,
        defaultStore: ((URL) -> StoreDescription)?
    ) throws {
        try Self.validate(name: name)
        try schema.validate()
        self.name = name
        self.schema = schema
        self.migrationPlan = migrationPlan
        self.logger = logger.with(LogMetadata.container, name)
        self.persistentStoreCoordinator = PersistentStoreCoordinator(schema: schema, logger: self.logger)
        let defaultDescriptions = defaultStore.map { [$0(Self.defaultDirectoryURL.appendingPathComponent(name))] } ?? []
        self.settings = Locked(Settings(storeDescriptions: defaultDescriptions))
        self.viewContextHolder = ViewContextHolder()
    }

    /// Container names become file names in the default directory: no path
    /// separators, no `..`, nothing that hides the file or is empty, as Core
    /// Data's model names are plain names.
    static func validate(name: String) throws(StrataError) {
        let problem: String? = if name.isEmpty || name.trimmingCharacters(in: .whitespaces).isEmpty {
            "it is empty"
        } else if name.contains("/") || name.contains("\\") {
            "it contains a path separator"
        } else if name.hasPrefix(".") {
            "it starts with a dot"
        } else if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            "it contains a control character"
        } else if name.utf8.count > 200 {
            "it is longer than 200 bytes"
        } else {
            nil
        }
        if let problem {
            throw StrataError(.invalidName, "The container name \(String(reflecting: name)) cannot name a store file: \(problem)")
        }
    }

    /// The stores to load. Edit before loading.
    public var storeDescriptions: [StoreDescription] {
        get { settings.withLock { $0.storeDescriptions } }
        set { settings.withLock { $0.storeDescriptions = newValue } }
    }

    /// Whether ``perform(_:)`` resets its context afterwards so no object outlives it.
    public var cleanUpAfterExecution: Bool {
        get { settings.withLock { $0.cleanUpAfterExecution } }
        set { settings.withLock { $0.cleanUpAfterExecution = newValue } }
    }

    /// Called as a store migrates while it loads: after each table and each
    /// stage's code, on the thread that loads the store. Each stage is logged too.
    public var migrationProgress: (@Sendable (MigrationProgress) -> Void)? {
        get { settings.withLock { $0.migrationProgress } }
        set { settings.withLock { $0.migrationProgress = newValue } }
    }

    /// Receives every error the container and its contexts throw (they are
    /// thrown too), and those they report without throwing: one place for an
    /// app to count or forward them.
    public var logError: (@Sendable (any Error) -> Void)? {
        get { settings.withLock { $0.logError } }
        set { settings.withLock { $0.logError = newValue } }
    }

    /// Hands an error the container is about to throw to ``logError``.
    func report(_ error: any Error) {
        logger.noteThrown(error)
        settings.withLock { $0.logError }?(error)
    }

    /// The object ID a URI names, if it names an object of this container's store.
    public func objectID(forURIRepresentation uri: URL) -> ObjectID? {
        guard let parts = ObjectID.parse(uri: uri),
              let store = try? persistentStoreCoordinator.loadedStore(),
              parts.store == store.identifier,
              schema.entity(named: parts.entity) != nil else { return nil }
        return ObjectID(entityName: parts.entity, storeIdentifier: parts.store, primaryKey: parts.primaryKey)
    }

    /// A context for app code that runs on the main actor; it merges other
    /// contexts' saves automatically and promptly.
    @MainActor public var viewContext: ManagedObjectContext {
        viewContextHolder.context(for: self)
    }

    /// A new context for the caller's own isolation domain, wired to this container.
    public func newContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(coordinator: persistentStoreCoordinator)
        context.logError = { [weak self] error in self?.settings.withLock { $0.logError }?(error) }
        return context
    }
}

/// Owns the view context on the main actor.
@MainActor final class ViewContextHolder: Sendable {
    private var context: ManagedObjectContext?

    nonisolated init() {}

    var existing: ManagedObjectContext? { context }

    func context(for container: PersistentContainer) -> ManagedObjectContext {
        if let context { return context }
        let context = container.newContext()
        context.name = "viewContext"
        context.automaticallyMergesChangesFromParent = true
        context.isObservationEnabled = true
        context.isUndoEnabled = true
        context.inbox.setWakeUp { [weak self] in
            Task { @MainActor in self?.existing?.mergePendingChanges() }
        }
        // Changes made in one turn of the main actor are told together after it.
        context.processingWakeUp = { [weak self] in
            Task { @MainActor in self?.existing?.processPendingChanges() }
        }
        self.context = context
        return context
    }
}
