/// One thing for a context to merge: another context's save in this process,
/// or history transactions another writer committed.
package enum MergeItem: Sendable {
    case changes(ChangeSet)
    case history([HistoryTransaction])
    /// History was pruned before it could be read: refresh everything.
    case missedHistory
}

/// Changes waiting to be merged into one context, filled from any thread and
/// drained by the context in its own isolation domain.
package final class MergeInbox: Sendable {
    package let owner: ObjectIdentifier
    private let pending = Locked<[MergeItem]>([])
    private let wakeUp = Locked<WakeUp?>(nil)

    /// The wake-up action in a box. A closure stored directly as a `Locked`
    /// value comes back from each `withLock` read re-wrapped in a thunk, one
    /// layer deeper every time; a class reference reads back as itself.
    private final class WakeUp: Sendable {
        let action: @Sendable () -> Void
        init(_ action: @escaping @Sendable () -> Void) { self.action = action }
    }

    init(owner: ObjectIdentifier) {
        self.owner = owner
    }

    /// Called after each post, to schedule a prompt drain in the owner's domain.
    package func setWakeUp(_ action: (@Sendable () -> Void)?) {
        let box = action.map(WakeUp.init)
        wakeUp.withLock { $0 = box }
    }

    func post(_ changes: ChangeSet) {
        post(.changes(changes))
    }

    func post(_ transactions: [HistoryTransaction]) {
        post(.history(transactions))
    }

    /// Another writer's history was pruned unread (see ``RemoteChange/isIncomplete``).
    func postMissedHistory() {
        post(.missedHistory)
    }

    private func post(_ item: MergeItem) {
        pending.withLock { $0.append(item) }
        wakeUp.withLock { $0 }?.action()
    }

    /// Returns items a drain could not merge yet to the front, without a
    /// wake-up: the next merge tries them again first.
    func putBack(_ items: ArraySlice<MergeItem>) {
        pending.withLock { $0.insert(contentsOf: items, at: 0) }
    }

    func drain() -> [MergeItem] {
        pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
    }

    var isEmpty: Bool { pending.withLock { $0.isEmpty } }
}
