import Dispatch
import Foundation
import Logging
import NIOCore
import PostgresNIO
import StrataCore
import StrataSQL

/// The listening side of a PostgreSQL store: one connection of its own that
/// `LISTEN`s on the store's channel, and the last history token reported.
struct PostgresRemoteState: RemoteWatchPosition, Sendable {
    var handler: (@Sendable (RemoteChange) -> Void)?
    var listener: PostgresConnection?
    var lastToken: HistoryToken?
    /// Bumped by each start and stop, so a stale reconnection gives up.
    var generation = 0
}

extension PostgresStore {
    /// Starts listening for other processes' commits. When the listening
    /// connection breaks, or cannot be made now, the store connects again,
    /// listens again, and catches up from its last history token.
    func startWatchingRemoteChanges(_ handler: @escaping @Sendable (RemoteChange) -> Void) throws(StrataError) {
        // An empty history starts before its first transaction, so that a
        // prune this store has not caught up with is noticed.
        let start = options.historyTracking ? try currentHistoryToken() ?? .start(of: identifier) : nil
        let generation = remote.withLock { state in
            state.handler = handler
            state.lastToken = start
            state.generation += 1
            return state.generation
        }
        scheduleListenerCheck(generation: generation)
        do {
            try listen(generation: generation)
        } catch {
            logger.warning("PostgreSQL remote changes: listening failed (\(error)); retrying")
            Self.deliveries.asyncAfter(deadline: .now() + 0.1) { [weak self] in
                self?.reconnect(generation: generation, attempt: 1)
            }
            return
        }
        // Commits made between reading the token and listening are caught up with at once.
        if options.historyTracking { Self.deliveries.async { self.notice(nil) } }
    }

    func stopWatchingRemoteChanges() {
        let listener = remote.withLock { state in
            defer {
                state.listener = nil
                state.handler = nil
                state.generation += 1
            }
            return state.listener
        }
        listener?.closeKeepingAlive()
    }

    /// Work that reads the store after a notification: off the event loop,
    /// one notification at a time.
    private static let deliveries = DispatchQueue(label: "strata.postgres.remote-changes")

    /// Runs `body` while this process's notifications wait to be read, so that
    /// commits it makes arrive together afterwards (tests of catching up).
    static func holdingNotifications<T>(_ body: () throws -> T) rethrows -> T {
        try deliveries.sync(execute: body)
    }

    private func listen(generation: Int) throws(StrataError) {
        let connection = try pool.connect()
        let channel = layout.channel
        connection.addListener(channel: channel) { [weak self] _, notification in
            guard let store = self else { return }
            let payload = notification.payload
            Self.deliveries.async { store.notice(payload) }
        }
        do {
            _ = try connection.query(PostgresQuery(unsafeSQL: "LISTEN \(quote(channel))"), logger: logger).wait()
        } catch {
            connection.closeKeepingAlive()
            throw PostgresSession.translate(error, doing: "listening for the store's commits")
        }
        let current = remote.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.listener = connection
            return true
        }
        guard current else {
            connection.closeKeepingAlive()
            return
        }
        connection.closeFuture.whenComplete { [weak self] _ in
            guard let store = self else { return }
            Self.deliveries.async { store.reconnect(generation: generation, attempt: 0) }
        }
    }

    /// Listens again after the connection broke (unless watching stopped),
    /// then reports whatever was committed meanwhile.
    private func reconnect(generation: Int, attempt: Int) {
        guard remote.withLock({ $0.generation == generation && $0.handler != nil }) else { return }
        do {
            try listen(generation: generation)
            notice(nil)
        } catch {
            logger.warning("PostgreSQL remote changes: listening again failed (\(error)); retrying")
            let delay = min(5.0, 0.1 * Double(1 << min(attempt, 6)))
            Self.deliveries.asyncAfter(deadline: .now() + delay) { [weak self] in
                self?.reconnect(generation: generation, attempt: attempt + 1)
            }
        }
    }

    /// Asks the listening connection for an answer every
    /// `listenerCheckInterval` while watching lasts (whichever connection
    /// listens by then), closing one that gives none in that time: its close
    /// starts the reconnection. A connection a network failure left open
    /// with no server behind it would otherwise wait for notifications forever.
    /// The checks run on an event loop, not the delivery queue, which a
    /// catch-up may hold for as long as the server takes to answer.
    private func scheduleListenerCheck(generation: Int) {
        // A shorter interval would close each listener before it could answer.
        let interval = TimeAmount(max(pool.description.listenerCheckInterval, .milliseconds(100)))
        MultiThreadedEventLoopGroup.singleton.any().scheduleRepeatedTask(initialDelay: interval, delay: interval) {
            [weak self] task in
            guard let store = self else { return task.cancel() }
            let (watching, listener) = store.remote.withLock { ($0.generation == generation, $0.listener) }
            guard watching else { return task.cancel() }
            if let listener { Self.check(listener, within: interval, logger: store.logger) }
        }
    }

    private static func check(_ listener: PostgresConnection, within timeout: TimeAmount, logger: Logger) {
        let answered = Locked(false)
        let query = listener.query(PostgresQuery(unsafeSQL: "SELECT 1"), logger: logger)
        query.whenComplete { result in
            answered.withLock { $0 = true }
            if case .failure = result { listener.closeKeepingAlive() }
        }
        listener.eventLoop.scheduleTask(in: timeout) {
            guard !answered.withLock({ $0 }) else { return }
            logger.warning(
                "PostgreSQL remote changes: the listening connection gave no answer in \(timeout.nanoseconds / 1_000_000) ms; listening again")
            listener.closeKeepingAlive()
        }
    }

    /// Handles one notification (`token origin`), or a catch-up (nil). A read
    /// of history that fails is tried again, with growing pauses, up to
    /// `attempt` 6; a later notification catches up in any case.
    private func notice(_ payload: String?, attempt: Int = 0) {
        let parts = payload?.split(separator: " ")
        if let parts, parts.count == 2, parts[1] == originIdentifier.uuidString[...] {
            // This server's own commit. Notifications come in commit order, so
            // when it directly follows the last transaction read, nothing of
            // another server's lies between: move on past it, so that pruning
            // this server's own history does not look like history missed.
            if let number = Int64(parts[0]) {
                remote.withLock { state in
                    if let last = state.lastToken, last.transactionNumber &+ 1 == number {
                        state.lastToken = HistoryToken(storeIdentifier: identifier, transactionNumber: number)
                    }
                }
            }
            return
        }
        guard let handler = remote.withLock({ $0.handler }) else { return }
        guard options.historyTracking else {
            handler(RemoteChange(storeIdentifier: identifier, origin: .otherWriter, historyToken: nil))
            return
        }
        let (generation, since) = remote.withLock { ($0.generation, $0.lastToken) }
        do {
            try RemoteChange.catchUp(
                from: self, after: since, skippingOrigin: originIdentifier,
                advance: { token in remote.withLock { $0.advance(to: token, readIn: generation) } }, report: handler)
        } catch where error.code == .historyTokenExpired {
            let (position, event) = RemoteChange.missedHistory(of: self, since: remote.withLock { $0.lastToken })
            remote.withLock { $0.lastToken = position }
            handler(event)
        } catch {
            logger.warning("PostgreSQL remote changes: reading history failed: \(error)")
            guard attempt < 6 else { return }
            Self.deliveries.asyncAfter(deadline: .now() + 0.1 * Double(1 << attempt)) { [weak self] in
                guard let store = self, store.remote.withLock({ $0.generation == generation }) else { return }
                store.notice(nil, attempt: attempt + 1)
            }
        }
    }
}
