/// One thing for a context to merge: another context's save in this process,
/// or history transactions another writer committed.
package enum MergeItem: Sendable {
    case changes(ChangeSet)
    case history([HistoryTransaction])
}

/// Changes waiting to be merged into one context, filled from any thread and
/// drained by the context in its own isolation domain.
package final class MergeInbox: Sendable {
    package let owner: ObjectIdentifier
    private let pending = Locked<[MergeItem]>([])
    private let wakeUp = Locked<(@Sendable () -> Void)?>(nil)

    init(owner: ObjectIdentifier) {
        self.owner = owner
    }

    /// Called after each post, to schedule a prompt drain in the owner's domain.
    package func setWakeUp(_ action: (@Sendable () -> Void)?) {
        wakeUp.withLock { $0 = action }
    }

    func post(_ changes: ChangeSet) {
        post(.changes(changes))
    }

    func post(_ transactions: [HistoryTransaction]) {
        post(.history(transactions))
    }

    private func post(_ item: MergeItem) {
        pending.withLock { $0.append(item) }
        wakeUp.withLock { $0 }?()
    }

    func drain() -> [MergeItem] {
        pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
    }

    var isEmpty: Bool { pending.withLock { $0.isEmpty } }
}
