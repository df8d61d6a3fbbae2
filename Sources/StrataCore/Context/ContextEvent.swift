import Foundation

/// Something that happened to a context's objects, told to its listeners in
/// the context's isolation (``ManagedObjectContext/onEvent(_:)``) or to any
/// task through ``ManagedObjectContext/events``.
///
/// ```swift
/// let token = context.onEvent { event in
///     switch event {
///     case .objectsDidChange(let changes): print(changes.updated)   // [ObjectID: Set<String>]
///     case .didSave(let saved): print(saved.inserted.count)
///     case .didMerge(let merged): print(merged.updated.count)
///     }
/// }
/// ```
public enum ContextEvent: Sendable {
    /// The context's own objects changed since the last such event: inserted,
    /// updated (with the names of the changed properties) or deleted, before
    /// any save. Told by ``ManagedObjectContext/processPendingChanges()``,
    /// which a save calls first and the view context calls after each turn of
    /// the main actor that changed something.
    case objectsDidChange(ObjectChanges)
    /// A save of this context committed these changes (IDs are permanent).
    case didSave(ChangeSet)
    /// Another context's save, a batch operation or another process's commit
    /// was merged into this context.
    case didMerge(ChangeSet)
}

/// The objects a context inserted, updated and deleted since its last
/// ``ContextEvent/objectsDidChange(_:)``, by ID.
///
/// ```swift
/// if let names = changes.updated[book.objectID], names.contains("title") { redraw() }
/// ```
public struct ObjectChanges: Sendable, Equatable {
    /// Objects inserted (IDs temporary until saved), or whose deletion was taken back.
    public var inserted: Set<ObjectID> = []
    /// Objects whose properties changed, with the names of those properties.
    public var updated: [ObjectID: Set<String>] = [:]
    /// Objects deleted, or inserted and then deleted before a save.
    public var deleted: Set<ObjectID> = []
    /// Objects whose unsaved changes were discarded and values reloaded
    /// (``ManagedObjectContext/refresh(_:mergeChanges:)``).
    public var refreshed: Set<ObjectID> = []
    /// Every object may have changed: the context rolled back or reset.
    public var invalidatedAll = false

    public init() {}

    /// Whether nothing changed.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && !invalidatedAll
    }
}

/// Keeps a context listener registered while it is alive; release it (or call
/// ``cancel()``) to stop listening.
public final class ContextObservation {
    private var onCancel: (() -> Void)?

    init(cancel: @escaping () -> Void) { onCancel = cancel }

    /// Stops listening now.
    public func cancel() {
        onCancel?()
        onCancel = nil
    }

    deinit { onCancel?() }
}
