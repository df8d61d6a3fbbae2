extension ManagedObjectContext {
    /// The members of a to-many relationship in their stored order (the rows
    /// whose foreign key points at the owner, or its join rows), adjusted by
    /// this context's unsaved changes: members that left go, new ones follow.
    package func loadToMany(of owner: any PersistentModel, ordinal: Int) -> [any PersistentModel] {
        var members: [any PersistentModel] = []
        if owner.persistentBacking.state != .inserted {
            do {
                members = try parentStore.members(of: [owner], ordinal: ordinal, everyOwner: false, in: self)[0]
            } catch {
                reportUnthrown(error)
            }
        }
        return withPendingChanges(members, of: owner, ordinal: ordinal)
    }

    /// Stored members of a to-many adjusted by this context's unsaved changes:
    /// members that left go, new ones follow.
    func withPendingChanges(
        _ stored: [any PersistentModel], of owner: any PersistentModel, ordinal: Int
    ) -> [any PersistentModel] {
        // Nothing unsaved: the stored members are the members.
        guard tracker.hasChanges, let entity = owner.persistentBacking.entity else { return stored }
        var members = stored
        let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        if inverse < 0 {
            // No inverse: the owner's own array is the only record of membership,
            // and it is loaded once; only deleted members need to go.
            members.removeAll { $0.persistentBacking.state == .deleted || $0.persistentBacking.state == .invalidated }
        } else if destination.properties[inverse].hasColumn {
            adjustOneToMany(&members, of: owner, inverse: inverse, destination: destination)
        } else {
            adjustManyToMany(&members, of: owner, inverse: inverse, destination: destination)
        }
        return members
    }

    /// Unsaved changes to a one-to-many: members that now point elsewhere leave,
    /// new ones join.
    private func adjustOneToMany(
        _ members: inout [any PersistentModel], of owner: any PersistentModel, inverse: Int, destination: EntityDescription
    ) {
        members.removeAll { member in
            let state = member.persistentBacking.state
            return state == .deleted || state == .invalidated
                || (member.persistentBacking.changedOrdinals.contains(inverse) && ObjectGraph.toOne(of: member, at: inverse) !== owner)
        }
        var present = Set(members.map { ObjectIdentifier($0) })
        let candidates = tracker.insertedObjects() + tracker.changed.objects
        for candidate in candidates where candidate.persistentBacking.entity === destination {
            guard !present.contains(ObjectIdentifier(candidate)),
                  candidate.persistentBacking.state != .deleted,
                  ObjectGraph.toOne(of: candidate, at: inverse) === owner else { continue }
            members.append(candidate)
            present.insert(ObjectIdentifier(candidate))
        }
    }

    /// Unsaved changes to a many-to-many: the other side's loaded, changed
    /// arrays say who left and who joined.
    private func adjustManyToMany(
        _ members: inout [any PersistentModel], of owner: any PersistentModel, inverse: Int, destination: EntityDescription
    ) {
        func holdsOwner(_ member: any PersistentModel) -> Bool? {
            guard let others = ObjectGraph.loadedMembers(of: member, at: inverse) else { return nil }
            return others.contains { $0 === owner }
        }
        members.removeAll { member in
            let state = member.persistentBacking.state
            return state == .deleted || state == .invalidated
                || (member.persistentBacking.changedOrdinals.contains(inverse) && holdsOwner(member) == false)
        }
        var present = Set(members.map { ObjectIdentifier($0) })
        let candidates = tracker.insertedObjects() + tracker.changed.objects
        for candidate in candidates where candidate.persistentBacking.entity === destination {
            guard !present.contains(ObjectIdentifier(candidate)),
                  candidate.persistentBacking.state != .deleted,
                  holdsOwner(candidate) == true else { continue }
            members.append(candidate)
            present.insert(ObjectIdentifier(candidate))
        }
    }
}
