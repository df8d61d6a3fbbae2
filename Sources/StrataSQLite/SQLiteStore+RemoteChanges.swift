import Foundation
import StrataCore
import GRDB

/// What a store's remote-change watch remembers between polls.
struct RemoteChangeState: RemoteWatchPosition, Sendable {
    var monitor: DataVersionMonitor?
    var lastToken: HistoryToken?
    var ownCommitsAtLastPoll: Int = 0
    /// Bumped by each start and stop, so a catch-up of an earlier watch stops.
    var generation = 0
}

extension SQLiteStore {
    /// Starts watching the file for other writers' commits; `handler` runs on a
    /// background thread for each one noticed.
    func startWatchingRemoteChanges(_ handler: @escaping @Sendable (RemoteChange) -> Void) throws(StrataError) {
        guard case .file(let url) = location else { return }
        // An empty history starts before its first transaction, so that a
        // prune this store has not caught up with is noticed.
        let startToken = options.historyTracking ? ((try? currentHistoryToken()) ?? nil) ?? .start(of: identifier) : nil
        let generation = remoteState.withLock { state in
            state.generation += 1
            return state.generation
        }
        do {
            let monitor = try DataVersionMonitor(path: url.path) { [weak self] in
                self?.noticeFileChange(handler, generation: generation)
            }
            remoteState.withLock { state in
                state.monitor = monitor
                state.lastToken = startToken
                state.ownCommitsAtLastPoll = ownCommitCount.load(ordering: .relaxed)
            }
            // With history, commits made between reading the token and the
            // monitor's first poll are caught up with at once.
            monitor.start(reportingFirst: options.historyTracking)
        } catch {
            throw Self.translate(error)
        }
    }

    func stopWatchingRemoteChanges() {
        let monitor = remoteState.withLock { state in
            defer {
                state.monitor = nil
                state.generation += 1
            }
            return state.monitor
        }
        monitor?.stop()
    }

    /// Works out whether a change of the file came from another writer.
    private func noticeFileChange(_ handler: @Sendable (RemoteChange) -> Void, generation: Int) {
        let ownCommits = ownCommitCount.load(ordering: .relaxed)
        guard options.historyTracking else {
            // Without history only commits made while this store made none can be
            // told apart; they are reported without details.
            let quiet = remoteState.withLock { state in
                defer { state.ownCommitsAtLastPoll = ownCommits }
                return state.ownCommitsAtLastPoll == ownCommits
            }
            if quiet { handler(RemoteChange(storeIdentifier: identifier, origin: .otherWriter, historyToken: nil)) }
            return
        }
        let since = remoteState.withLock { $0.lastToken }
        do {
            try RemoteChange.catchUp(
                from: self, after: since, skippingOrigin: originIdentifier,
                advance: { token in remoteState.withLock { $0.advance(to: token, readIn: generation) } }, report: handler)
        } catch where error.code == .historyTokenExpired {
            let (position, event) = RemoteChange.missedHistory(of: self, since: remoteState.withLock { $0.lastToken })
            remoteState.withLock { $0.lastToken = position }
            handler(event)
        } catch {
            // The next change of the file reads again from the last page read.
        }
    }
}
