/// A commit to a store, as Core Data's remote-change notification reports it:
/// one from another process or another container on the same file
/// (``PersistentContainer/remoteChanges``), or any commit at all, this
/// container's own saves and batch requests included
/// (``PersistentContainer/storeChanges``).
///
/// ```swift
/// for await change in container.storeChanges where change.origin == .otherWriter {
///     print("new history up to", change.historyToken as Any)
/// }
/// ```
public struct RemoteChange: Sendable {
    /// Who made a commit.
    public enum Origin: Sendable, Hashable {
        /// A save or batch request of this container.
        case thisContainer
        /// Another process, or another container on the same file.
        case otherWriter
    }

    /// The store that changed.
    public var storeIdentifier: String
    /// Who made the commit.
    public var origin: Origin
    /// The store's latest history token when the change was noticed; nil when
    /// the store does not track history.
    public var historyToken: HistoryToken?
    /// The transactions other writers committed since the last event (empty
    /// without history tracking, and for this container's own commits).
    public var transactions: [HistoryTransaction]
    /// For this container's own commits: everything the commit changed.
    public var changes: ChangeSet?
    /// True when other writers' history was deleted (another process pruned
    /// it) before this store could read it, so ``transactions`` cannot say
    /// what changed. Contexts that merge automatically refresh their objects;
    /// refetch what you show.
    public var isIncomplete = false

    package init(
        storeIdentifier: String, origin: Origin, historyToken: HistoryToken?, transactions: [HistoryTransaction] = [],
        changes: ChangeSet? = nil
    ) {
        self.storeIdentifier = storeIdentifier
        self.origin = origin
        self.historyToken = historyToken
        self.transactions = transactions
        self.changes = changes
    }

    /// After a read of the history after `since` found it pruned (another
    /// writer pruned it unread): the position a watching store goes on from,
    /// the latest transaction, and the event that says what changed is unknown.
    package static func missedHistory(
        of store: some PersistentStore, since: HistoryToken?
    ) -> (position: HistoryToken?, event: RemoteChange) {
        let latest = (try? store.currentHistoryToken()) ?? nil
        var change = RemoteChange(storeIdentifier: store.identifier, origin: .otherWriter, historyToken: latest)
        change.isIncomplete = true
        return (latest ?? since, change)
    }
}
