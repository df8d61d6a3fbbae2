extension ManagedObjectContext {
    /// Checks `@Relationship(minimumModelCount:maximumModelCount:)` of the
    /// objects a save inserts or changes; one failure per object and relationship.
    /// A maximum of 0 means no limit, as in Core Data and SwiftData.
    ///
    /// Members deleted in this context do not count. Saved objects are checked
    /// only for relationships they changed, so a save never loads a to-many it
    /// did not touch: counts can only have moved where the context changed them
    /// (removing a member, even through a delete rule, marks the owner changed).
    ///
    /// Called per object from the save's validation pass.
    func relationshipCountFailures(of object: any PersistentModel, isNew: Bool, into failures: inout [StrataError]) {
        let backing = object.persistentBacking
        guard let entity = backing.entity, !entity.relationshipOrdinals.isEmpty else { return }
        for ordinal in entity.relationshipOrdinals {
            guard case .relationship(let relationship) = entity.properties[ordinal], relationship.isToMany,
                  relationship.minimumModelCount != nil || relationship.maximumModelCount != nil,
                  isNew || backing.changedOrdinals.contains(ordinal) else { continue }
            let count = ObjectGraph.toMany(of: object, at: ordinal).count { !$0.isDeleted }
            if let failure = countFailure(count, relationship, entity: entity, object: object) {
                failures.append(failure)
            }
        }
    }

    private func countFailure(
        _ count: Int, _ relationship: RelationshipDescription, entity: EntityDescription, object: any PersistentModel
    ) -> StrataError? {
        let place = "\(entity.name).\(relationship.name) of \(object.objectID)"
        let message: String
        if let minimum = relationship.minimumModelCount, count < minimum {
            message = "\(place) holds \(count) objects; it needs at least \(minimum)"
        } else if let maximum = relationship.maximumModelCount, maximum > 0, count > maximum {
            message = "\(place) holds \(count) objects; it may hold at most \(maximum)"
        } else {
            return nil
        }
        return StrataError(
            .validation, message, entityName: entity.name, propertyName: relationship.name, objectIDs: [object.objectID])
    }
}
