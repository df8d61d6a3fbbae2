import Foundation
import Logging

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
        var store: (any PersistentStore)?
        var relay: Relay?
        var inboxes: [WeakInbox] = []
        var changeSubscribers: [UUID: ChangeSubscriber] = [:]
    }
    private struct WeakInbox { weak var inbox: MergeInbox? }
    /// A stream of remote changes, or of every commit when `includesOwnCommits`.
    private struct ChangeSubscriber {
        var continuation: AsyncStream<RemoteChange>.Continuation
        var includesOwnCommits: Bool
    }
    private let state = Locked(State())
    /// The container's logger; contexts over this coordinator log through it.
    package let logger: Logger

    public init(schema: Schema, logger: Logger = Logger(label: "strata")) {
        self.schema = schema
        self.logger = logger
    }

    /// The loaded store, or `.storeNotLoaded`.
    package func loadedStore() throws(StrataError) -> any PersistentStore {
        guard let store = state.withLock({ $0.store }) else {
            throw StrataError(.storeNotLoaded, "The persistent stores are not loaded; call loadPersistentStores() first")
        }
        return store
    }

    package var isLoaded: Bool { state.withLock { $0.store != nil } }

    package func attach(_ store: any PersistentStore) {
        let relay = Relay(coordinator: self)
        state.withLock { state in
            state.store = store
            state.relay = relay
        }
        store.addObserver(relay)
        if store.options.remoteChangeNotifications {
            do {
                try store.startWatchingRemoteChanges { [weak self] change in self?.deliverRemote(change) }
            } catch {
                // Loading goes on without them: the app is told, not stopped.
                logger.warning("Remote change notifications are off: \(error)")
            }
        }
    }

    /// Closes the store's connections; later use throws `.storeNotLoaded`.
    public func close() throws {
        let store = state.withLock { state in
            defer { state.store = nil }
            return state.store
        }
        try store?.close()
    }

    /// The loaded store, or nil: for a store module's own coordinator methods.
    package var attachedStore: (any PersistentStore)? { state.withLock { $0.store } }

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
        let (inboxes, subscribers) = state.withLock { state in
            (state.inboxes.compactMap(\.inbox), state.changeSubscribers.values.filter(\.includesOwnCommits))
        }
        if !changes.isEmpty {
            for inbox in inboxes where inbox.owner != changes.originToken {
                inbox.post(changes)
            }
        }
        guard !subscribers.isEmpty else { return }
        let event = RemoteChange(
            storeIdentifier: changes.storeIdentifier, origin: .thisContainer, historyToken: changes.historyToken,
            changes: changes)
        for subscriber in subscribers { subscriber.continuation.yield(event) }
    }

    /// Publishes another writer's commit and hands its history to merging contexts.
    private func deliverRemote(_ change: RemoteChange) {
        let (inboxes, subscribers) = state.withLock { state in
            (state.inboxes.compactMap(\.inbox), Array(state.changeSubscribers.values))
        }
        if change.isIncomplete {
            for inbox in inboxes { inbox.postMissedHistory() }
        } else if !change.transactions.isEmpty {
            for inbox in inboxes { inbox.post(change.transactions) }
        }
        for subscriber in subscribers { subscriber.continuation.yield(change) }
    }

    /// A new stream of the store's remote changes, or of every commit.
    package func remoteChanges(includingOwnCommits: Bool = false) -> AsyncStream<RemoteChange> {
        let (stream, continuation) = AsyncStream<RemoteChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let key = UUID()
        state.withLock {
            $0.changeSubscribers[key] = ChangeSubscriber(continuation: continuation, includesOwnCommits: includingOwnCommits)
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.changeSubscribers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Forwards the store's commits; the coordinator keeps it alive.
    private final class Relay: StoreObserver {
        weak let coordinator: PersistentStoreCoordinator?
        init(coordinator: PersistentStoreCoordinator) { self.coordinator = coordinator }
        func store(_ store: any PersistentStore, didCommit changes: ChangeSet) {
            coordinator?.deliver(changes)
        }
    }
}
