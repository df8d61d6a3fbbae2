import Foundation

extension RemoteChange {
    /// The most transactions a watching store reads from history at a time.
    package static let catchUpPageSize = 256

    /// Reads the history after `since` a page of at most `pageSize`
    /// transactions at a time, so that catching up after a long pause (a lost
    /// connection, a suspended process) holds one page in memory, not every
    /// transaction since. After each page, `advance` gets its last token (and
    /// returns false when watching stopped meanwhile, which ends the catch-up
    /// unreported), then `report` an event with the transactions in it that
    /// `origin` did not write (none for a page of only those).
    ///
    /// A page that fails to read throws; the pages before it were reported,
    /// and `advance` says where to resume.
    package static func catchUp(
        from store: some PersistentStore, after since: HistoryToken?, skippingOrigin origin: UUID,
        pageSize: Int = catchUpPageSize, advance: (HistoryToken) -> Bool, report: (RemoteChange) -> Void
    ) throws(StrataError) {
        var position = since
        while true {
            var request = HistoryRequest(after: position)
            request.fetchLimit = pageSize
            let transactions = try store.fetchHistory(request)
            // A page that does not move on (no store returns one) would repeat forever.
            guard let last = transactions.last, position.map({ $0 < last.token }) ?? true else { return }
            position = last.token
            guard advance(last.token) else { return }
            let others = transactions.filter { $0.origin != origin }
            if !others.isEmpty {
                report(RemoteChange(storeIdentifier: store.identifier, origin: .otherWriter, historyToken: last.token, transactions: others))
            }
            if transactions.count < pageSize { return }
        }
    }
}

/// Where a store's watch for other writers' commits has read to, and which
/// start of watching it belongs to.
package protocol RemoteWatchPosition {
    /// Bumped by each start and stop of watching.
    var generation: Int { get }
    var lastToken: HistoryToken? { get set }
}

extension RemoteWatchPosition {
    /// Moves to `token` when watching is still the start that read it; false
    /// when it stopped or started again since (the catch-up then ends).
    package mutating func advance(to token: HistoryToken, readIn generation: Int) -> Bool {
        guard self.generation == generation else { return false }
        lastToken = token
        return true
    }
}
