// Relationship accessors and the in-memory upkeep of inverses. Setting either
// side of a relationship updates the other side at once, for objects in a
// context; objects related before insertion are brought in line on insert.

extension ModelBacking {
    public func setInitialValue<D: PersistentModel>(_ value: D?, at ordinal: Int, as: D?.Type) {
        storeInitial(.null, at: ordinal)
        ensureRelations(count: ordinal + 1)
        relations[ordinal] = .toOne(value)
        if value != nil { needsInverseSync = true }
    }

    public func setInitialValue<D: PersistentModel>(_ value: [D], at ordinal: Int, as: [D].Type) {
        storeInitial(.null, at: ordinal)
        ensureRelations(count: ordinal + 1)
        relations[ordinal] = .toMany(value)
        if !value.isEmpty { needsInverseSync = true }
    }
}

extension PersistentModel {
    @inlinable
    public func persistentValue<D: PersistentModel>(at ordinal: Int, as: D?.Type) -> D? {
        if persistentBacking.observesReads { persistentBacking.observeRead(of: self, at: ordinal) }
        return ObjectGraph.toOne(of: self, at: ordinal).map { target -> D in ObjectGraph.cast(target) }
    }

    public func setPersistentValue<D: PersistentModel>(_ newValue: D?, at ordinal: Int, as: D?.Type) {
        ObjectGraph.setToOne(of: self, at: ordinal, to: newValue)
    }

    // Inlined into the model's accessor, so the copy into `[D]` is compiled
    // for `D`: a generic `map` costs a run-time witness call per member.
    @inlinable
    public func persistentValue<D: PersistentModel>(at ordinal: Int, as: [D].Type) -> [D] {
        if persistentBacking.observesReads { persistentBacking.observeRead(of: self, at: ordinal) }
        let members = ObjectGraph.toMany(of: self, at: ordinal)
        // An empty array is the shared empty storage, which the initialiser
        // below would write its count into.
        guard !members.isEmpty else { return [] }
        return [D](unsafeUninitializedCapacity: members.count) { target, initialized in
            for (index, member) in members.enumerated() {
                (target.baseAddress! + index).initialize(to: ObjectGraph.cast(member))
            }
            initialized = members.count
        }
    }

    public func setPersistentValue<D: PersistentModel>(_ newValue: [D], at ordinal: Int, as: [D].Type) {
        ObjectGraph.setToMany(of: self, at: ordinal, to: newValue)
    }
}

/// Reads and writes relationships and keeps inverses consistent.
@usableFromInline package enum ObjectGraph {
    /// A related object as its model type. Relationships hold objects of
    /// their destination's model type only, so the common case is an exact
    /// class match, checked without the runtime's general cast.
    @inlinable @inline(__always)
    package static func cast<D: PersistentModel>(_ object: any PersistentModel) -> D {
        if type(of: object) == D.self { return unsafeDowncast(object as AnyObject, to: D.self) }
        return object as! D
    }

    /// The object a to-one relationship points to, resolving a stored key.
    @usableFromInline package static func toOne(of owner: any PersistentModel, at ordinal: Int) -> (any PersistentModel)? {
        let backing = owner.persistentBacking
        backing.willAccess()
        let stored = backing.values[checked: ordinal]
        backing.ensureRelations(count: ordinal + 1)
        if case .toOne(let target) = backing.relations[ordinal] { return target }
        guard case .integer(let pk) = stored, let entity = backing.entity,
              let coordinator = backing.coordinator else {
            backing.relations[ordinal] = .toOne(nil)
            return nil
        }
        let target = coordinator.object(entityIndex: entity.destinationIndexByOrdinal[ordinal], primaryKey: pk)
        backing.relations[ordinal] = .toOne(target)
        return target
    }

    /// The members of a to-many relationship, loading them once.
    @usableFromInline package static func toMany(of owner: any PersistentModel, at ordinal: Int) -> [any PersistentModel] {
        let backing = owner.persistentBacking
        backing.willAccess()
        backing.ensureRelations(count: ordinal + 1)
        if case .toMany(let members) = backing.relations[ordinal] {
            // A member deleted and saved (under `.noAction`, say) has no row any more.
            guard backing.contextToken?.hasInvalidatedObjects != false,
                  members.contains(where: { $0.persistentBacking.state == .invalidated }) else { return members }
            let live = members.filter { $0.persistentBacking.state != .invalidated }
            backing.relations[ordinal] = .toMany(live)
            return live
        }
        guard let coordinator = backing.coordinator, backing.state != .new else {
            backing.relations[ordinal] = .toMany([])
            return []
        }
        let members = coordinator.loadToMany(of: owner, ordinal: ordinal)
        backing.relations[ordinal] = .toMany(members)
        return members
    }

    /// The loaded members of a to-many relationship, or nil when not loaded.
    static func loadedMembers(of object: any PersistentModel, at ordinal: Int) -> [any PersistentModel]? {
        let backing = object.persistentBacking
        guard ordinal < backing.relations.count, case .toMany(let members) = backing.relations[ordinal] else {
            return nil
        }
        return members
    }

    /// Sets a to-one slot and its foreign key, without touching inverses.
    package static func assignToOne(of owner: any PersistentModel, at ordinal: Int, to target: (any PersistentModel)?) {
        let backing = owner.persistentBacking
        backing.willAccess()
        _ = backing.values[checked: ordinal]
        backing.ensureRelations(count: ordinal + 1)
        backing.recordUndo(.relation(owner, ordinal: ordinal, backing.relations[ordinal], backing.values[ordinal]))
        backing.relations[ordinal] = .toOne(target)
        let key: StoredValue = target?.persistentBacking.primaryKey.map { .integer($0) } ?? .null
        backing.keepOriginal(at: ordinal)
        backing.values[ordinal] = key
        let pending = target.map { $0.persistentBacking.objectID.isTemporary } ?? false
        backing.noteChange(at: ordinal, owner: owner, forceChanged: pending)
    }

    /// Sets a to-many slot, without touching inverses.
    static func assignToMany(of owner: any PersistentModel, at ordinal: Int, to members: [any PersistentModel]) {
        let backing = owner.persistentBacking
        backing.ensureRelations(count: ordinal + 1)
        backing.recordUndo(.relation(owner, ordinal: ordinal, backing.relations[ordinal], backing.values[ordinal]))
        backing.relations[ordinal] = .toMany(members)
        backing.noteChange(at: ordinal, owner: owner, forceChanged: true)
    }

    /// Appends to a loaded to-many in place, without touching inverses:
    /// amortised constant time, as its undo step is.
    static func append(_ member: any PersistentModel, toLoaded ordinal: Int, of owner: any PersistentModel, ifAbsent check: Bool) {
        let backing = owner.persistentBacking
        guard case .toMany(var members) = backing.relations[ordinal] else { return }
        if check, members.contains(where: { $0 === member }) { return }
        backing.recordUndo(.appended(owner, ordinal: ordinal, member: member))
        // The slot lets go of the list first, so appending does not copy it.
        backing.relations[ordinal] = .toOne(nil)
        members.append(member)
        backing.relations[ordinal] = .toMany(members)
        backing.noteChange(at: ordinal, owner: owner, forceChanged: true)
    }

    /// Brings a new object into the other's context when only one of them is managed.
    static func join(_ owner: any PersistentModel, _ target: any PersistentModel) {
        let ownerCoordinator = owner.persistentBacking.coordinator
        let targetCoordinator = target.persistentBacking.coordinator
        if let ownerCoordinator, targetCoordinator == nil, target.persistentBacking.state == .new {
            ownerCoordinator.adopt(target)
        } else if let targetCoordinator, ownerCoordinator == nil, owner.persistentBacking.state == .new {
            targetCoordinator.adopt(owner)
        } else if let ownerCoordinator, let targetCoordinator, ownerCoordinator !== targetCoordinator {
            preconditionFailure("Strata: cannot relate \(owner.objectID) and \(target.objectID), which belong to different contexts")
        }
    }

    package static func setToOne(of owner: any PersistentModel, at ordinal: Int, to target: (any PersistentModel)?) {
        let operation = UndoableOperation(owner)
        defer { operation.end() }
        if let target { join(owner, target) }
        let backing = owner.persistentBacking
        guard let entity = backing.entity else {
            // Not in a context yet: remember the target and fix inverses on insert.
            backing.storeInitial(.null, at: ordinal)
            backing.ensureRelations(count: ordinal + 1)
            backing.relations[ordinal] = .toOne(target)
            backing.needsInverseSync = true
            return
        }
        let old = toOne(of: owner, at: ordinal)
        if old === target { return }
        assignToOne(of: owner, at: ordinal, to: target)
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        guard inverse >= 0 else { return }
        if let old { detach(owner, fromInverse: inverse, of: old) }
        // A member's to-one and its owner's loaded to-many agree, so an
        // object whose to-one pointed elsewhere is not among the target's members.
        if let target { attach(owner, toInverse: inverse, of: target, checkPresence: false) }
    }

    package static func setToMany(of owner: any PersistentModel, at ordinal: Int, to newMembers: [any PersistentModel]) {
        let operation = UndoableOperation(owner)
        defer { operation.end() }
        // A to-many holds each object once, as Core Data's ordered sets do.
        var newIDs = Set<ObjectIdentifier>(minimumCapacity: newMembers.count)
        let members = newMembers.filter { newIDs.insert(ObjectIdentifier($0)).inserted }
        for member in members { join(owner, member) }
        let backing = owner.persistentBacking
        guard let entity = backing.entity else {
            backing.storeInitial(.null, at: ordinal)
            backing.ensureRelations(count: ordinal + 1)
            backing.relations[ordinal] = .toMany(members)
            backing.needsInverseSync = true
            return
        }
        let old = toMany(of: owner, at: ordinal)
        let oldIDs = Set(old.map { ObjectIdentifier($0) })
        assignToMany(of: owner, at: ordinal, to: members)
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        guard inverse >= 0 else { return }
        if isManyToMany(backing, ordinal: ordinal, inverse: inverse) {
            for removed in old where !newIDs.contains(ObjectIdentifier(removed)) {
                detach(owner, fromInverse: inverse, of: removed)
            }
            for added in members where !oldIDs.contains(ObjectIdentifier(added)) {
                attach(owner, toInverse: inverse, of: added)
            }
            return
        }
        for removed in old where !newIDs.contains(ObjectIdentifier(removed)) {
            if toOne(of: removed, at: inverse) === owner {
                assignToOne(of: removed, at: inverse, to: nil)
            }
        }
        for added in members where !oldIDs.contains(ObjectIdentifier(added)) {
            let previous = toOne(of: added, at: inverse)
            if previous === owner { continue }
            if let previous, let previousMembers = loadedMembers(of: previous, at: ordinal) {
                assignToMany(of: previous, at: ordinal, to: previousMembers.filter { $0 !== added })
            }
            assignToOne(of: added, at: inverse, to: owner)
        }
    }

    /// Whether a to-many relationship's inverse is to-many too.
    static func isManyToMany(_ backing: ModelBacking, ordinal: Int, inverse: Int) -> Bool {
        guard let entity = backing.entity, let schema = backing.coordinator?.schema else { return false }
        return !schema.entities[entity.destinationIndexByOrdinal[ordinal]].properties[inverse].hasColumn
    }

    /// Removes `member` from the inverse relationship of `object`.
    static func detach(_ member: any PersistentModel, fromInverse inverse: Int, of object: any PersistentModel) {
        guard let entity = object.persistentBacking.entity else { return }
        if entity.properties[inverse].hasColumn {
            if toOne(of: object, at: inverse) === member {
                assignToOne(of: object, at: inverse, to: nil)
            }
        } else if let members = loadedMembers(of: object, at: inverse) {
            assignToMany(of: object, at: inverse, to: members.filter { $0 !== member })
        } else {
            object.persistentBacking.noteChange(at: inverse, owner: object, forceChanged: true)
        }
    }

    /// Adds `member` to the inverse relationship of `object`. `checkPresence`
    /// false: the caller knows `member` is not among a to-many's members (its
    /// own to-one pointed elsewhere until now), which saves a scan per attach.
    static func attach(
        _ member: any PersistentModel, toInverse inverse: Int, of object: any PersistentModel, checkPresence: Bool = true
    ) {
        guard let entity = object.persistentBacking.entity else { return }
        if entity.properties[inverse].hasColumn {
            // One-to-one: whoever `object` pointed to loses it.
            let previous = toOne(of: object, at: inverse)
            if previous === member { return }
            let back = entity.inverseOrdinalByOrdinal[inverse]
            if let previous, back >= 0, toOne(of: previous, at: back) === object {
                assignToOne(of: previous, at: back, to: nil)
            }
            assignToOne(of: object, at: inverse, to: member)
        } else if loadedMembers(of: object, at: inverse) != nil {
            append(member, toLoaded: inverse, of: object, ifAbsent: checkPresence)
        } else {
            object.persistentBacking.noteChange(at: inverse, owner: object, forceChanged: true)
        }
    }

    /// Applies relationships set before insertion to their inverses.
    package static func syncInverses(of object: any PersistentModel) {
        let backing = object.persistentBacking
        guard backing.needsInverseSync, let entity = backing.entity else { return }
        backing.needsInverseSync = false
        for (ordinal, property) in entity.properties.enumerated() {
            guard case .relationship = property, ordinal < backing.relations.count else { continue }
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            switch backing.relations[ordinal] {
            case .toOne(let target?):
                join(object, target)
                backing.noteChange(at: ordinal, owner: object, forceChanged: true)
                if inverse >= 0 { attach(object, toInverse: inverse, of: target) }
            case .toMany(let members):
                let manyToMany = inverse >= 0 && isManyToMany(backing, ordinal: ordinal, inverse: inverse)
                for member in members {
                    join(object, member)
                    if manyToMany {
                        attach(object, toInverse: inverse, of: member)
                    } else if inverse >= 0 {
                        let previous = toOne(of: member, at: inverse)
                        if previous !== object {
                            if let previous { detach(member, fromInverse: ordinal, of: previous) }
                            assignToOne(of: member, at: inverse, to: object)
                        }
                    }
                }
            default:
                break
            }
        }
    }
}

/// One relationship set, with every inverse it keeps in step, as one undo group.
struct UndoableOperation {
    private let coordinator: (any ObjectGraphCoordinator)?

    init(_ owner: any PersistentModel) {
        let backing = owner.persistentBacking
        coordinator = backing.recordsUndo ? backing.coordinator : nil
        coordinator?.beginUndoableOperation()
    }

    func end() { coordinator?.endUndoableOperation() }
}
