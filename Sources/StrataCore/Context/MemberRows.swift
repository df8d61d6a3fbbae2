/// Turns the member rows of a many-owner to-many read into each owner's list
/// of registered objects, as a fetch turns rows into objects: the identity
/// map of the members' entity is held for the whole read, each new member is
/// made straight from its row and filed in its owner's list without another
/// copy, and `awakeFromFetch()` runs once the read is over.
///
/// Rows come each owner's together and in order, or in table order with
/// their stored positions (see ``MemberPosition``); then the lists are put
/// in order when the read is over.
///
/// ```swift
/// var rows = MemberRows(
///     context: context, entity: destination, storeIdentifier: store.identifier, owners: keys.count, membersAreUnique: true)
/// defer { rows.finishReading() }
/// try store.fetchMembers(entityIndex: owner.index, ordinal: ordinal, owners: keys, everyOwner: false) {
///     owner, position, row in
///     rows.add(row, owner: owner, position: position)
/// }
/// let lists = rows.members(of: keys)
/// ```
struct MemberRows: ~Copyable {
    private let context: ManagedObjectContext
    private let entity: EntityDescription
    private let storeIdentifier: String
    private let registered: IdentityMap
    /// Whether a member may already be registered: not when each member row
    /// comes once (a one-to-many) and the context had none of the entity.
    private let looksUp: Bool
    /// Each owner's members, in the order the read met the owners; the list
    /// being filled is out of it, in `current`.
    private var lists: ContiguousArray<[any PersistentModel]> = []
    private var listByOwner: [Int64: Int] = [:]
    private var current: [any PersistentModel] = []
    private var currentOwner: Int64?
    private var currentList = 0
    /// For rows read in table order: each row's list and stored position, in
    /// the order read. Positions are integers but for a row another program
    /// wrote; those are kept aside, by row, in `otherPositions`.
    private var placements: ContiguousArray<Placement> = []
    private var otherPositions: [Int: StoredValue] = [:]
    /// Members that were loaded already or could not be loaded (their list and
    /// place in it): they get no `awakeFromFetch()`.
    private var notLoaded: [(list: Int, index: Int)] = []
    private var isFinished = false

    /// `membersAreUnique`: each member row comes once (a one-to-many's).
    init(context: ManagedObjectContext, entity: EntityDescription, storeIdentifier: String, owners: Int, membersAreUnique: Bool) {
        self.context = context
        self.entity = entity
        self.storeIdentifier = storeIdentifier
        registered = context.registry[entity.index]
        looksUp = !membersAreUnique || !registered.isEmpty
        lists.reserveCapacity(owners)
        listByOwner.reserveCapacity(owners)
    }

    /// Adds the member under `row` to `owner`'s list: the registered object
    /// (loaded from the row when a fault), else a new one made from the row.
    /// A member whose row cannot be read stays a fault: it is still a member,
    /// and its own accessors deal with the value.
    mutating func add(_ row: any StoreRow, owner: Int64, position: MemberPosition) {
        if owner != currentOwner { switchList(to: owner) }
        switch position {
        case .next: break
        case .stored(let value): placements.append(Placement(list: currentList, isInteger: true, position: value))
        case .storedValue(let value):
            otherPositions[placements.count] = value
            placements.append(Placement(list: currentList, isInteger: false, position: 0))
        }
        let key = row.primaryKey
        if looksUp, let existing = registered[key] {
            let backing = existing.persistentBacking
            if !backing.isFault || (try? context.load(row, into: backing)) == nil {
                notLoaded.append((currentList, current.count))
            }
            current.append(existing)
            return
        }
        guard let object = try? context.makeObject(entity: entity, storeIdentifier: storeIdentifier, row: row, primaryKey: key) else {
            notLoaded.append((currentList, current.count))
            current.append(context.registerFault(entity: entity, primaryKey: key))
            return
        }
        if looksUp {
            // The lookup above found no object for the key.
            registered.insertNew(object, forKey: key)
        } else if let first = registered.insertIfAbsent(object, forKey: key) {
            // Without the lookup, a row met twice (owners given twice) keeps its first object.
            notLoaded.append((currentList, current.count))
            current.append(first)
            return
        }
        current.append(object)
    }

    private struct Placement {
        let list: Int
        /// False for a position that is not an integer (see `otherPositions`).
        let isInteger: Bool
        let position: Int64
    }

    /// The stored position of the row at `index` of `placements`.
    private func position(at index: Int) -> StoredValue {
        placements[index].isInteger ? .integer(placements[index].position) : otherPositions[index] ?? .null
    }

    /// Files the list being filled and takes out `owner`'s (new, or met
    /// before when rows come in table order).
    private mutating func switchList(to owner: Int64) {
        // Owners often have alike counts: the last one's spares most regrowth.
        let lastCount = current.count
        fileCurrentList()
        currentOwner = owner
        if let known = listByOwner[owner] {
            currentList = known
            swap(&current, &lists[known])
        } else {
            currentList = lists.count
            listByOwner[owner] = currentList
            lists.append([])
            current.reserveCapacity(lastCount)
        }
    }

    private mutating func fileCurrentList() {
        guard currentOwner != nil else { return }
        swap(&current, &lists[currentList])
        current = []
        currentOwner = nil
    }

    /// Each owner's members, in the order of `owners` (keys; nil for none).
    mutating func members(of owners: [Int64?]) -> [[any PersistentModel]] {
        finishReading()
        return owners.map { owner in owner.flatMap { listByOwner[$0] }.map { lists[$0] } ?? [] }
    }

    /// Ends the read: calls `awakeFromFetch()` on each member it loaded (also
    /// after a read that failed partway, for what it loaded), then puts lists
    /// read in table order in their stored order. Runs once.
    mutating func finishReading() {
        guard !isFinished else { return }
        isFinished = true
        fileCurrentList()
        awakeLoaded()
        putListsInStoredOrder()
    }

    private func awakeLoaded() {
        var skipped = notLoaded
        // Rows in table order (or owners given twice) can return to an owner met before.
        let inOrder = zip(skipped, skipped.dropFirst()).allSatisfy { ($0.list, $0.index) < ($1.list, $1.index) }
        if !inOrder { skipped.sort { ($0.list, $0.index) < ($1.list, $1.index) } }
        var skip = skipped.makeIterator()
        var nextSkip = skip.next()
        var hooks = FetchHooks(token: context.contextToken)
        for (list, members) in lists.enumerated() {
            for index in members.indices {
                if let next = nextSkip, next.list == list, next.index == index {
                    nextSkip = skip.next()
                    continue
                }
                guard hooks.awake(members[index]) else { return }
            }
        }
    }

    /// Sorts by stored position each list whose rows came out of order; rows
    /// of one position keep the key order they came in.
    private mutating func putListsInStoredOrder() {
        guard !placements.isEmpty else { return }
        defer {
            placements = []
            otherPositions = [:]
        }
        // Each list's last row so far, as an index into `placements`.
        var last = [Int](repeating: -1, count: lists.count)
        var outOfOrder = Set<Int>()
        for (index, placement) in placements.enumerated() {
            let list = placement.list
            let previous = last[list]
            last[list] = index
            guard previous >= 0 else { continue }
            if placement.isInteger, placements[previous].isInteger {
                if placement.position < placements[previous].position { outOfOrder.insert(list) }
            } else if Self.precedes(position(at: index), position(at: previous)) {
                outOfOrder.insert(list)
            }
        }
        guard !outOfOrder.isEmpty else { return }
        // One pass gathers the positions of every list to sort, in list order.
        var positionsByList: [Int: [StoredValue]] = [:]
        for index in placements.indices where outOfOrder.contains(placements[index].list) {
            positionsByList[placements[index].list, default: []].append(position(at: index))
        }
        for (list, positions) in positionsByList {
            let members = lists[list]
            let order = zip(positions, members.indices).sorted { a, b in
                Self.precedes(a.0, b.0) || (!Self.precedes(b.0, a.0) && a.1 < b.1)
            }
            lists[list] = order.map { members[$0.1] }
        }
    }

    /// Whether position `a` comes before `b` in the store's order.
    private static func precedes(_ a: StoredValue, _ b: StoredValue) -> Bool {
        if case .integer(let x) = a, case .integer(let y) = b { return x < y }
        return StoredValueOrder.compare(a, b, collation: .binary) == .orderedAscending
    }
}
