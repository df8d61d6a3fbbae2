/// What a context changed since it last saved: inserted objects (by
/// temporary key, in insertion order), changed objects and deleted objects,
/// each list in the order objects joined it.
///
/// Every change to these collections passes ``record(_:)``, the one place
/// that counts it (``epoch``) — a save compares epochs to tell whether its
/// hooks changed what it writes — and where observation and undo attach.
///
/// ```swift
/// var tracker = ChangeTracker()
/// tracker.insert(book, key: 1)
/// tracker.epoch             // 1
/// tracker.insertedObjects   // [book]
/// ```
struct ChangeTracker {
    /// One change to the collections.
    enum Change {
        case inserted(any PersistentModel)
        case insertionRemoved(any PersistentModel)
        case changed(any PersistentModel)
        case changeRemoved(any PersistentModel)
        case deleted(any PersistentModel)
        case deletionTakenBack(any PersistentModel)
        case forgotten(any PersistentModel)
        case cleared
        case saved
    }

    /// Inserted objects, by temporary key.
    private(set) var insertedByKey: [UInt64: any PersistentModel] = [:]
    /// The inserted objects in the order they were inserted, so a save needs
    /// no sort (see ``ChangeOrder``).
    private var insertionOrder = ChangeOrder()
    /// Registered objects changed since they were saved or fetched, in the
    /// order of their first change (some may have changed back).
    private(set) var changed = ObjectList(.changed)
    /// Deleted registered objects, deletion not saved yet, in deletion order.
    private(set) var deleted = ObjectList(.deleted)
    /// Counts changes, so a save can tell whether its validation hooks changed
    /// what it saves.
    private(set) var epoch = 0
    /// Inserts and deletions for the context's next change event, kept only
    /// while someone listens (nil otherwise).
    private(set) var journal: [Change]?

    /// Counts a change; every mutation below passes here.
    private mutating func record(_ change: Change) {
        epoch &+= 1
        guard journal != nil else { return }
        switch change {
        case .inserted, .insertionRemoved, .deleted, .deletionTakenBack: journal!.append(change)
        default: break
        }
    }

    /// Starts keeping inserts and deletions for change events.
    mutating func startJournal() {
        if journal == nil { journal = [] }
    }

    /// Stops keeping the journal (nobody listens any more).
    mutating func stopJournal() {
        journal = nil
    }

    /// The journal's entries since the last call; the journal goes on.
    mutating func takeJournal() -> [Change] {
        guard let entries = journal, !entries.isEmpty else { return [] }
        journal = []
        return entries
    }

    mutating func insert(_ object: any PersistentModel, key: UInt64) {
        insertedByKey[key] = object
        insertionOrder.append(key, object, liveCount: insertedByKey.count)
        record(.inserted(object))
    }

    /// An inserted object leaves (deleted before a save, or settled by a merge).
    mutating func removeInserted(key: UInt64) {
        guard let object = insertedByKey.removeValue(forKey: key) else { return }
        record(.insertionRemoved(object))
    }

    /// Marks an object changed. Counted even when it is listed already: it may
    /// have been changed back, and left out of lists captured meanwhile.
    mutating func noteChanged(_ object: any PersistentModel) {
        changed.insert(object)
        record(.changed(object))
    }

    /// An object's changes were dropped or settled (refresh, merge resolution).
    mutating func removeChanged(_ object: any PersistentModel) {
        changed.remove(object)
        record(.changeRemoved(object))
    }

    mutating func delete(_ object: any PersistentModel) {
        changed.remove(object)
        deleted.insert(object)
        record(.deleted(object))
    }

    /// A deletion is taken back (the object is inserted again).
    mutating func undelete(_ object: any PersistentModel) {
        deleted.remove(object)
        record(.deletionTakenBack(object))
    }

    /// An object left the store elsewhere: it is neither changed nor deleted here.
    mutating func forget(_ object: any PersistentModel) {
        changed.remove(object)
        deleted.remove(object)
        record(.forgotten(object))
    }

    /// Empties every collection (a rollback, a reset, a save written).
    mutating func removeAll() {
        insertedByKey.removeAll()
        insertionOrder.removeAll()
        changed.removeAll()
        deleted.removeAll()
        record(.cleared)
    }

    /// After a save: the saved inserts leave, as the written lists empty.
    mutating func didSave(insertedKeys: some Sequence<UInt64>, removesAllInserted: Bool) {
        if removesAllInserted {
            insertedByKey.removeAll()
            insertionOrder.removeAll()
        } else {
            for key in insertedKeys { insertedByKey[key] = nil }
        }
        changed.removeAll()
        deleted.removeAll()
        record(.saved)
    }

    var hasChanges: Bool {
        !insertedByKey.isEmpty || !deleted.isEmpty || changed.contains { $0.isUpdated }
    }

    /// Objects inserted since the last save, in insertion order.
    mutating func insertedObjects() -> [any PersistentModel] {
        if let objects = insertionOrder.objects(liveCount: insertedByKey.count) { return objects }
        let sorted = insertedByKey.sorted { $0.key < $1.key }
        insertionOrder.rebuild(sorted.map { ($0.key, $0.value) }, isSorted: true)
        return sorted.map(\.value)
    }
}

/// The order in which objects joined ``ChangeTracker/insertedByKey``,
/// beside that dictionary.
///
/// Only the context's insert path adds to the dictionary, and it appends here;
/// removals elsewhere leave stale entries. So while the list and the
/// dictionary have the same count, the list holds exactly the dictionary's
/// entries (every key is appended when added, and a key appended twice would
/// make the list longer). Otherwise the caller rebuilds it.
struct ChangeOrder {
    private(set) var entries: [(key: UInt64, object: any PersistentModel)] = []
    /// Keys ascend: the objects are in their order of insertion.
    private(set) var isSorted = true

    mutating func append(_ key: UInt64, _ object: any PersistentModel, liveCount: Int) {
        if let last = entries.last, last.key > key { isSorted = false }
        // Stale entries (objects removed from the dictionary) are dropped at the
        // next rebuild; keep them from piling up when no save comes.
        if entries.count > 2 * liveCount + 64 {
            entries = []
            isSorted = false
            return
        }
        entries.append((key, object))
    }

    /// The objects in order, or nil when the list is out of step or out of
    /// key order and must be rebuilt.
    func objects(liveCount: Int) -> [any PersistentModel]? {
        guard entries.count == liveCount, isSorted else { return nil }
        return entries.map(\.object)
    }

    mutating func rebuild(_ entries: [(UInt64, any PersistentModel)], isSorted: Bool) {
        self.entries = entries.map { (key: $0.0, object: $0.1) }
        self.isSorted = isSorted
    }

    mutating func removeAll() {
        entries.removeAll()
        isSorted = true
    }
}
