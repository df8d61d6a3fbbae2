/// Turns the member rows of a to-many read (rows grouped by owner) into each
/// owner's list of registered objects, as a fetch turns rows into objects:
/// the identity map of the members' entity is held for the whole read, each
/// new member is made straight from its row and filed in its owner's list
/// without another copy, and `awakeFromFetch()` runs once the read is over.
///
/// ```swift
/// var rows = MemberRows(context: context, entity: destination, storeIdentifier: store.identifier)
/// defer { rows.awakeLoaded() }
/// try store.fetchMembers(entityIndex: owner.index, ordinal: ordinal, owners: keys) { rows.add($1, owner: $0) }
/// let lists = rows.members(of: keys)
/// ```
struct MemberRows: ~Copyable {
    private let context: ManagedObjectContext
    private let entity: EntityDescription
    private let storeIdentifier: String
    private let registered: IdentityMap
    /// Each owner's members, in the order the read met the owners.
    private var lists: ContiguousArray<[any PersistentModel]> = []
    private var listByOwner: [Int64: Int] = [:]
    private var current: [any PersistentModel] = []
    private var currentOwner: Int64?
    /// Positions (over every row read, in order) of members that were loaded
    /// already or could not be loaded: they get no `awakeFromFetch()`.
    private var notLoaded = ContiguousArray<Int>()
    private var position = 0

    init(context: ManagedObjectContext, entity: EntityDescription, storeIdentifier: String, owners: Int) {
        self.context = context
        self.entity = entity
        self.storeIdentifier = storeIdentifier
        registered = context.registry[entity.index]
        lists.reserveCapacity(owners)
        listByOwner.reserveCapacity(owners)
    }

    /// Adds the member under `row` to `owner`'s list: the registered object
    /// (loaded from the row when a fault), else a new one made from the row.
    /// A member whose row cannot be read stays a fault: it is still a member,
    /// and its own accessors deal with the value.
    mutating func add(_ row: any StoreRow, owner: Int64) {
        if owner != currentOwner { startList(for: owner) }
        defer { position += 1 }
        let key = row.primaryKey
        if let existing = registered[key] {
            let backing = existing.persistentBacking
            if !backing.isFault || (try? context.load(row, into: backing)) == nil { notLoaded.append(position) }
            current.append(existing)
            return
        }
        guard let object = try? context.makeObject(entity: entity, storeIdentifier: storeIdentifier, row: row) else {
            notLoaded.append(position)
            current.append(context.registerFault(entity: entity, primaryKey: key))
            return
        }
        registered.insertNew(object, forKey: key)
        current.append(object)
    }

    private mutating func startList(for owner: Int64) {
        fileCurrentList()
        currentOwner = owner
        // Owners often have alike counts: the last one's spares most regrowth.
        current.reserveCapacity(lists.last?.count ?? 0)
    }

    private mutating func fileCurrentList() {
        guard let currentOwner else { return }
        listByOwner[currentOwner] = lists.count
        lists.append(current)
        current = []
    }

    /// Each owner's members, in the order of `owners` (keys; nil for none).
    mutating func members(of owners: [Int64?]) -> [[any PersistentModel]] {
        fileCurrentList()
        currentOwner = nil
        return owners.map { owner in owner.flatMap { listByOwner[$0] }.map { lists[$0] } ?? [] }
    }

    /// Calls `awakeFromFetch()` on each member this read loaded, in the order
    /// read (also after a read that failed partway, for what it loaded).
    mutating func awakeLoaded() {
        fileCurrentList()
        currentOwner = nil
        var skip = notLoaded.makeIterator()
        var nextSkip = skip.next()
        var position = 0
        for list in lists {
            // Members are called in place, without a retain and release each.
            list.withUnsafeBufferPointer { members in
                for index in members.indices {
                    defer { position += 1 }
                    if position == nextSkip {
                        nextSkip = skip.next()
                        continue
                    }
                    members[index].awakeFromFetch()
                }
            }
        }
    }
}
