extension ManagedObjectContext {
    /// The members of a to-many relationship: the rows whose foreign key points
    /// at the owner, adjusted by this context's unsaved changes.
    package func loadToMany(of owner: any PersistentModel, ordinal: Int) -> [any PersistentModel] {
        let backing = owner.persistentBacking
        guard let entity = backing.entity else { return [] }
        let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        guard inverse >= 0 else { return [] }
        var members: [any PersistentModel] = []
        if let pk = backing.objectID.primaryKey {
            do {
                let store = try coordinator.loadedStore()
                let column = quote(destination.properties[inverse].name)
                let sql = "SELECT \(store.selectList(entityIndex: destination.index)) FROM \(store.tableName(entityIndex: destination.index)) AS t0 WHERE t0.\(column) = ? ORDER BY t0.pk"
                try store.fetchRows(entityIndex: destination.index, sql: sql, arguments: [.integer(pk)]) { row in
                    let values = store.decodeValues(row, entityIndex: destination.index)
                    members.append(registerRow(entity: destination, primaryKey: row.primaryKey, values: values, version: row.version))
                }
            } catch {
                report(error)
            }
        }
        // Unsaved changes: members that now point elsewhere leave, new ones join.
        members.removeAll { member in
            let state = member.persistentBacking.state
            return state == .deleted || state == .invalidated
                || (member.persistentBacking.changedOrdinals.contains(inverse) && ObjectGraph.toOne(of: member, at: inverse) !== owner)
        }
        var present = Set(members.map { ObjectIdentifier($0) })
        let candidates = insertedByKey.sorted { $0.key < $1.key }.map(\.value) + Array(changedObjects.values)
        for candidate in candidates where candidate.persistentBacking.entity === destination {
            guard !present.contains(ObjectIdentifier(candidate)),
                  candidate.persistentBacking.state != .deleted,
                  ObjectGraph.toOne(of: candidate, at: inverse) === owner else { continue }
            members.append(candidate)
            present.insert(ObjectIdentifier(candidate))
        }
        return members
    }
}
