extension ManagedObjectContext {
    /// Checks deny rules before anything is written; every failure is reported
    /// together in one `.validation` error.
    func validateForSave() throws {
        var failures: [StrataError] = []
        for object in deletedObjects {
            guard let entity = object.persistentBacking.entity else { continue }
            for (ordinal, property) in entity.properties.enumerated() {
                guard case .relationship(let relationship) = property, relationship.deleteRule == .deny else { continue }
                let related: [any PersistentModel] = relationship.isToMany
                    ? ObjectGraph.toMany(of: object, at: ordinal)
                    : ObjectGraph.toOne(of: object, at: ordinal).map { [$0] } ?? []
                if related.contains(where: { !$0.isDeleted }) {
                    failures.append(StrataError(
                        .validation, "\(entity.name).\(relationship.name) denies deleting \(object.objectID) while it is not empty",
                        entityName: entity.name, propertyName: relationship.name, objectIDs: [object.objectID]))
                }
            }
        }
        guard !failures.isEmpty else { return }
        if failures.count == 1 { throw failures[0] }
        throw StrataError(
            .validation, "\(failures.count) objects failed validation: " + failures.map(\.message).joined(separator: "; "),
            objectIDs: failures.flatMap(\.objectIDs), detailedErrors: failures)
    }
}
