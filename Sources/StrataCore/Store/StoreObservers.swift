/// Receives every change set a store commits, on the saving thread.
package protocol StoreObserver: AnyObject, Sendable {
    func store(_ store: any PersistentStore, didCommit changes: ChangeSet)
}

/// The weakly held observers of one store.
package final class StoreObservers: Sendable {
    private struct Entry: @unchecked Sendable {
        // @unchecked: the referent is Sendable (StoreObserver); `weak` is the only reason it isn't inferred.
        weak var observer: (any StoreObserver)?
    }

    private let entries = Locked<[Entry]>([])

    package init() {}

    package func add(_ observer: any StoreObserver) {
        entries.withLock { entries in
            entries.removeAll { $0.observer == nil }
            entries.append(Entry(observer: observer))
        }
    }

    package func current() -> [any StoreObserver] {
        entries.withLock { entries in entries.compactMap(\.observer) }
    }
}
