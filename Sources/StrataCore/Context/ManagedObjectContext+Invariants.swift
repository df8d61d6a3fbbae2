extension ManagedObjectContext {
    /// Checks the context's object graph and returns every inconsistency found
    /// (empty when all is well): the identity map, the change sets, and that
    /// both sides of every loaded relationship agree.
    ///
    /// Meant for tests and debugging; it visits every registered object.
    ///
    /// ```swift
    /// #expect(context.objectGraphProblems().isEmpty)
    /// ```
    public func objectGraphProblems() -> [String] {
        var problems: [String] = []
        for (entityIndex, objects) in registry.enumerated() {
            for (pk, object) in objects {
                let backing = object.persistentBacking
                if backing.primaryKey != pk || backing.entity?.index != entityIndex {
                    problems.append("identity map: \(backing.objectID) is registered as \(schema.entities[entityIndex].name)/p\(pk)")
                }
                if backing.coordinator !== self {
                    problems.append("identity map: \(backing.objectID) belongs to another context")
                }
                if backing.state != .registered && backing.state != .deleted {
                    problems.append("identity map: \(backing.objectID) is registered in state \(backing.state)")
                }
                if backing.state == .deleted, !tracker.deleted.contains(object) {
                    problems.append("change set: \(backing.objectID) is deleted but not in deletedObjects")
                }
            }
        }
        for (key, object) in tracker.insertedByKey {
            let backing = object.persistentBacking
            if backing.state != .inserted || backing.temporaryKey != key {
                problems.append("change set: inserted object \(backing.objectID) has state \(backing.state)")
            }
        }
        problems += tracker.changed.positionProblems() + tracker.deleted.positionProblems()
        for object in tracker.deleted.objects where object.persistentBacking.state != .deleted {
            problems.append("change set: \(object.objectID) is in deletedObjects with state \(object.persistentBacking.state)")
        }
        for object in tracker.changed.objects where object.persistentBacking.coordinator !== self {
            problems.append("change set: updated object \(object.objectID) belongs to another context")
        }
        for object in registeredObjects where object.persistentBacking.state != .deleted {
            problems += inverseProblems(of: object)
        }
        return problems
    }

    /// Loaded relationships of `object` whose other side disagrees.
    private func inverseProblems(of object: any PersistentModel) -> [String] {
        let backing = object.persistentBacking
        guard !backing.isFault, let entity = backing.entity else { return [] }
        var problems: [String] = []
        for (ordinal, slot) in backing.relations.enumerated() {
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            guard inverse >= 0 else { continue }
            let name = "\(entity.name).\(entity.properties[ordinal].name)"
            let members: [any PersistentModel]
            switch slot {
            case .unloaded: continue
            case .toOne(let target): members = target.map { [$0] } ?? []
            case .toMany(let list):
                members = list
                var seen = Set<ObjectIdentifier>(minimumCapacity: list.count)
                if list.contains(where: { !seen.insert(ObjectIdentifier($0)).inserted }) {
                    problems.append("\(name) of \(object.objectID) holds a member twice")
                }
            }
            for member in members {
                let state = member.persistentBacking.state
                if state == .invalidated {
                    problems.append("\(name) of \(object.objectID) holds \(member.objectID), which no longer exists")
                    continue
                }
                if state == .deleted || member.persistentBacking.isFault { continue }
                if !pointsBack(member, at: inverse, to: object) {
                    problems.append("\(name) of \(object.objectID) holds \(member.objectID), whose inverse does not point back")
                }
            }
        }
        return problems
    }

    /// Whether `member`'s relationship at `ordinal` includes `owner` (unloaded
    /// to-many relationships are not checked; they load consistently).
    private func pointsBack(_ member: any PersistentModel, at ordinal: Int, to owner: any PersistentModel) -> Bool {
        let backing = member.persistentBacking
        guard ordinal < backing.relations.count else {
            if let entity = backing.entity, entity.properties[ordinal].hasColumn {
                return backing.values[ordinal] == (owner.objectID.primaryKey.map { .integer($0) } ?? .null)
            }
            return true
        }
        switch backing.relations[ordinal] {
        case .unloaded:
            if let entity = backing.entity, entity.properties[ordinal].hasColumn {
                return backing.values[ordinal] == (owner.objectID.primaryKey.map { .integer($0) } ?? .null)
            }
            return true
        case .toOne(let target): return target === owner
        case .toMany(let list): return list.contains { $0 === owner }
        }
    }
}
