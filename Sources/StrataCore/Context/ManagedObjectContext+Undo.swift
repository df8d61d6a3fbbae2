// Undo and redo: the context records each change as an `UndoStep` while it
// has an undo manager, and reverts groups of them.

extension ManagedObjectContext {
    /// Whether the context records its changes for ``undo()`` and ``redo()``:
    /// setting it on makes an ``undoManager``, off drops it with its history.
    /// On for the container's `viewContext`, off by default elsewhere (as Core
    /// Data gives background contexts no undo manager): recording costs a
    /// little on every change.
    ///
    /// ```swift
    /// context.isUndoEnabled = true
    /// book.title = "Changed"
    /// context.undo()
    /// ```
    public var isUndoEnabled: Bool {
        get { undoManager != nil }
        set {
            guard newValue != isUndoEnabled else { return }
            undoManager = newValue ? ContextUndoManager(context: self) : nil
            contextToken.recordsUndo = newValue
        }
    }

    /// Takes back the last group of changes (see ``ContextUndoManager``).
    public func undo() {
        undoManager?.undo()
    }

    /// Makes the last undone group of changes again.
    public func redo() {
        undoManager?.redo()
    }

    /// Reverts steps in reverse order; each revert records its own counterpart.
    func revert(_ steps: [UndoStep]) {
        for step in steps.reversed() { revert(step) }
    }

    private func revert(_ step: UndoStep) {
        switch step {
        case .value(let object, let ordinal, let value):
            let backing = object.persistentBacking
            guard isLive(backing) || backing.state == .deleted else { return }
            backing.willAccess()
            guard backing.values[ordinal] != value else { return }
            backing.change(to: value, at: ordinal, owner: object)
        case .relation(let object, let ordinal, let slot, let key):
            let backing = object.persistentBacking
            guard backing.state != .new else { return }
            if backing.state != .invalidated { backing.willAccess() }
            backing.ensureRelations(count: ordinal + 1)
            recordUndoStep(.relation(object, ordinal: ordinal, backing.relations[ordinal], backing.values[ordinal]))
            restore(slot, key: key, at: ordinal, of: object)
        case .appended(let object, let ordinal, let member):
            let backing = object.persistentBacking
            guard backing.state != .new, ordinal < backing.relations.count,
                  case .toMany(var members) = backing.relations[ordinal] else { return }
            if backing.state != .invalidated { backing.willAccess() }
            recordUndoStep(.relation(object, ordinal: ordinal, backing.relations[ordinal], backing.values[ordinal]))
            if members.last === member {
                members.removeLast()
            } else if let index = members.lastIndex(where: { $0 === member }) {
                members.remove(at: index)
            }
            restore(.toMany(members), key: backing.values[ordinal], at: ordinal, of: object)
        case .insertion(let object):
            remove(object)
        case .removal(let object, let relations):
            putBack(object, relations: relations)
        }
    }

    /// Sets a relationship slot and its column without touching inverses
    /// (their own steps restore them).
    private func restore(_ slot: RelationSlot, key: StoredValue, at ordinal: Int, of object: any PersistentModel) {
        let backing = object.persistentBacking
        backing.keepOriginal(at: ordinal)
        backing.relations[ordinal] = slot
        var pending = false
        if case .toOne(let target) = slot {
            // The target may have been saved, or put back with a new ID, since.
            let id = target?.persistentBacking.objectID
            backing.values[ordinal] = id?.primaryKey.map { .integer($0) } ?? .null
            pending = id?.isTemporary ?? false
        } else if case .toMany = slot {
            pending = true
        } else {
            backing.values[ordinal] = key
        }
        if backing.state != .invalidated { backing.noteChange(at: ordinal, owner: object, forceChanged: pending) }
    }

    /// Takes an object out of the context: an unsaved one leaves, a saved one is deleted.
    private func remove(_ object: any PersistentModel) {
        let backing = object.persistentBacking
        switch backing.state {
        case .inserted:
            let relations = loadedRelations(of: object)
            tracker.removeInserted(key: backing.temporaryKey!)
            backing.invalidate()
            backing.state = .new
            recordUndoStep(.removal(object, relations: relations))
            if hasEventListeners { scheduleProcessing() }
        case .registered:
            deleteObject(object)
        default:
            break
        }
    }

    /// Brings an object back: a deletion not saved is taken back; an object
    /// that left (or whose deletion was saved) is inserted again, as new.
    private func putBack(_ object: any PersistentModel, relations: ContiguousArray<RelationSlot>) {
        let backing = object.persistentBacking
        switch backing.state {
        case .deleted:
            insertObject(object)
        case .new, .invalidated:
            backing.state = .new
            insertObject(object)
            backing.ensureRelations(count: relations.count)
            for (ordinal, slot) in relations.enumerated() {
                guard case .unloaded = slot else {
                    restore(slot, key: .null, at: ordinal, of: object)
                    continue
                }
            }
        default:
            break
        }
    }

    /// An object's relationships, loaded, as an undo step keeps them.
    func loadedRelations(of object: any PersistentModel) -> ContiguousArray<RelationSlot> {
        let backing = object.persistentBacking
        guard let entity = backing.entity else { return [] }
        var slots = ContiguousArray<RelationSlot>(repeating: .unloaded, count: entity.properties.count)
        for ordinal in entity.relationshipOrdinals {
            if entity.relationship(at: ordinal)!.isToMany {
                slots[ordinal] = .toMany(ObjectGraph.toMany(of: object, at: ordinal))
            } else {
                slots[ordinal] = .toOne(ObjectGraph.toOne(of: object, at: ordinal))
            }
        }
        return slots
    }

    private func isLive(_ backing: ModelBacking) -> Bool {
        backing.state == .registered || backing.state == .inserted
    }

    func recordUndoStep(_ step: @autoclosure () -> UndoStep) {
        undoManager?.record(step())
    }
}
