import Foundation

/// How to load a container's store: where it lives and how it behaves.
///
/// Edit descriptions before `loadPersistentStores()`; later edits have no effect
/// on a loaded store.
///
/// ```swift
/// container.storeDescriptions = [StoreDescription(url: fileURL)]
/// container.storeDescriptions[0].historyTracking = true
/// // or, for tests and previews:
/// container.storeDescriptions = [.inMemory()]
/// ```
public struct StoreDescription: Sendable, Hashable, CustomStringConvertible {
    /// The store's file; `/dev/null` for an in-memory store.
    public var url: URL
    /// Whether the store lives only in memory (each in-memory description is its own store).
    public private(set) var isInMemory: Bool
    /// Opens the store read-only; saves throw `.readOnlyStore`.
    public var isReadOnly: Bool = false
    /// Records persistent history with each save.
    public var historyTracking: Bool = false
    /// With `historyTracking`: also records the old and new values of changed
    /// attributes (beyond what Core Data records).
    public var historyRecordsValueChanges: Bool = false
    /// Watches the store for commits by other processes.
    public var remoteChangeNotifications: Bool = false
    /// Migrates a store written with an older schema when loading.
    public var migratesAutomatically: Bool = true
    /// Infers lightweight migration steps when no explicit ones are given.
    public var infersMappingAutomatically: Bool = true

    /// A file store at `url`.
    public init(url: URL) {
        self.url = url
        self.isInMemory = false
    }

    /// A new, empty store held in memory; gone when the container is.
    public static func inMemory() -> StoreDescription {
        var description = StoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        description.isInMemory = true
        return description
    }

    /// The options the store itself acts on.
    package var storeOptions: StoreOptions {
        StoreOptions(
            historyTracking: historyTracking, recordsValueChanges: historyRecordsValueChanges,
            remoteChangeNotifications: remoteChangeNotifications)
    }

    public var description: String {
        isInMemory ? "in-memory store" : "store at \(url.path)"
    }
}
