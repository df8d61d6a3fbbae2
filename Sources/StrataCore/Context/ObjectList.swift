/// One of a context's change collections (its changed or its deleted
/// objects): the objects in the order they joined, with membership kept as a
/// position in each object's backing, so adding, removing and testing an
/// object hash nothing.
///
/// An object is a member when the slot its backing names holds that very
/// object, so positions left behind by removals need no clearing: emptying
/// the list touches no backing. Removing an object leaves a hole that
/// iteration skips; the list closes its holes once they outnumber its members.
///
/// ```swift
/// var deleted = ObjectList(.deleted)
/// deleted.insert(book)        // true: it joined
/// deleted.contains(book)      // true
/// deleted.remove(book)
/// ```
struct ObjectList {
    /// Which position field of ``ModelBacking`` this list uses.
    enum Membership {
        case changed
        case deleted
    }

    let membership: Membership
    private var slots = ContiguousArray<(any PersistentModel)?>()
    /// The number of members (slots that are not holes).
    private(set) var count = 0

    init(_ membership: Membership) {
        self.membership = membership
    }

    var isEmpty: Bool { count == 0 }

    /// The members in the order they joined.
    var objects: [any PersistentModel] {
        objects { _ in true }
    }

    /// The members that `isIncluded` accepts, in the order they joined.
    func objects(where isIncluded: (any PersistentModel) -> Bool) -> [any PersistentModel] {
        var members: [any PersistentModel] = []
        members.reserveCapacity(count)
        for case let object? in slots where isIncluded(object) { members.append(object) }
        return members
    }

    func contains(_ object: any PersistentModel) -> Bool {
        slot(of: object, backing: object.persistentBacking) != nil
    }

    func contains(where predicate: (any PersistentModel) throws -> Bool) rethrows -> Bool {
        for case let object? in slots where try predicate(object) { return true }
        return false
    }

    /// Adds an object at the end; false when it is a member already.
    @discardableResult
    mutating func insert(_ object: any PersistentModel) -> Bool {
        let backing = object.persistentBacking
        guard slot(of: object, backing: backing) == nil else { return false }
        setPosition(slots.count, in: backing)
        slots.append(object)
        count += 1
        return true
    }

    /// Removes an object if it is a member.
    mutating func remove(_ object: any PersistentModel) {
        guard let position = slot(of: object, backing: object.persistentBacking) else { return }
        slots[position] = nil
        count -= 1
        if slots.count > 2 * count + 64 { closeHoles() }
    }

    /// Removes every member.
    mutating func removeAll() {
        slots.removeAll()
        count = 0
    }

    private mutating func closeHoles() {
        var members = ContiguousArray<(any PersistentModel)?>()
        members.reserveCapacity(count)
        for case let object? in slots {
            setPosition(members.count, in: object.persistentBacking)
            members.append(object)
        }
        slots = members
    }

    /// Members whose backing does not record their position (for
    /// ``ManagedObjectContext/objectGraphProblems()``).
    func positionProblems() -> [String] {
        var problems: [String] = []
        for (slot, object) in slots.enumerated() {
            guard let object else { continue }
            if position(in: object.persistentBacking) != slot {
                problems.append("change set: \(object.objectID) is listed as \(membership) at \(slot) but records another position")
            }
        }
        return problems
    }

    /// The slot holding `object`, if it is a member.
    private func slot(of object: any PersistentModel, backing: ModelBacking) -> Int? {
        let position = position(in: backing)
        guard position >= 0, position < slots.count, let member = slots[position], member === object else { return nil }
        return position
    }

    private func position(in backing: ModelBacking) -> Int {
        switch membership {
        case .changed: Int(backing.changedPosition)
        case .deleted: Int(backing.deletedPosition)
        }
    }

    private func setPosition(_ position: Int, in backing: ModelBacking) {
        switch membership {
        case .changed: backing.changedPosition = Int32(position)
        case .deleted: backing.deletedPosition = Int32(position)
        }
    }
}
