/// Holds a container's loaded store and fans each committed change set out to
/// the contexts that merge changes.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(schema: schema)
/// let context = ManagedObjectContext(coordinator: coordinator)
/// ```
public final class PersistentStoreCoordinator: Sendable {
    public let schema: Schema
    private struct State: @unchecked Sendable {
        // @unchecked: `weak` references to Sendable inboxes only.
        var store: SQLiteStore?
        var relay: Relay?
        var inboxes: [WeakInbox] = []
    }
    private struct WeakInbox { weak var inbox: MergeInbox? }
    private let state = Locked(State())

    public init(schema: Schema) {
        self.schema = schema
    }

    /// The loaded store, or `.storeNotLoaded`.
    package func loadedStore() throws(StrataError) -> SQLiteStore {
        guard let store = state.withLock({ $0.store }) else {
            throw StrataError(.storeNotLoaded, "The persistent stores are not loaded; call loadPersistentStores() first")
        }
        return store
    }

    package var isLoaded: Bool { state.withLock { $0.store != nil } }

    package func attach(_ store: SQLiteStore) {
        let relay = Relay(coordinator: self)
        state.withLock { state in
            state.store = store
            state.relay = relay
        }
        store.addObserver(relay)
    }

    /// Closes the store's connections; later use throws `.storeNotLoaded`.
    public func close() throws {
        let store = state.withLock { state in
            defer { state.store = nil }
            return state.store
        }
        try store?.close()
    }

    package func register(_ inbox: MergeInbox) {
        state.withLock { state in
            state.inboxes.removeAll { $0.inbox == nil }
            state.inboxes.append(WeakInbox(inbox: inbox))
        }
    }

    package func unregister(_ inbox: MergeInbox) {
        state.withLock { state in state.inboxes.removeAll { $0.inbox == nil || $0.inbox === inbox } }
    }

    fileprivate func deliver(_ changes: ChangeSet) {
        let inboxes = state.withLock { state in state.inboxes.compactMap(\.inbox) }
        for inbox in inboxes where inbox.owner != changes.originToken {
            inbox.post(changes)
        }
    }

    /// Forwards the store's commits; the coordinator keeps it alive.
    private final class Relay: StoreObserver {
        weak let coordinator: PersistentStoreCoordinator?
        init(coordinator: PersistentStoreCoordinator) { self.coordinator = coordinator }
        func store(_ store: SQLiteStore, didCommit changes: ChangeSet) {
            coordinator?.deliver(changes)
        }
    }
}

/// Change sets waiting to be merged into one context, filled from any thread
/// and drained by the context in its own isolation domain.
package final class MergeInbox: Sendable {
    package let owner: ObjectIdentifier
    private let pending = Locked<[ChangeSet]>([])
    private let wakeUp = Locked<(@Sendable () -> Void)?>(nil)

    init(owner: ObjectIdentifier) {
        self.owner = owner
    }

    /// Called after each post, to schedule a prompt drain in the owner's domain.
    package func setWakeUp(_ action: (@Sendable () -> Void)?) {
        wakeUp.withLock { $0 = action }
    }

    func post(_ changes: ChangeSet) {
        pending.withLock { $0.append(changes) }
        wakeUp.withLock { $0 }?()
    }

    func drain() -> [ChangeSet] {
        pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
    }

    var isEmpty: Bool { pending.withLock { $0.isEmpty } }
}
