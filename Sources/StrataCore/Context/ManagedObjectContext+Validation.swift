extension ManagedObjectContext {
    /// Runs every check of a save before anything is written: the models'
    /// validation hooks and deny rules. All failures are reported together in
    /// one `.validation` error.
    func validateForSave() throws {
        var failures: [StrataError] = []
        failures += runValidationHooks()
        failures += relationshipCountFailures()
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

    /// Calls `validateForInsert`, `validateForUpdate` and `validateForDelete`.
    private func runValidationHooks() -> [StrataError] {
        var failures: [StrataError] = []
        func run(_ object: any PersistentModel, _ hook: () throws -> Void) {
            do {
                try hook()
            } catch var error as StrataError {
                if error.objectIDs.isEmpty { error.objectIDs = [object.objectID] }
                if error.entityName == nil { error.entityName = object.objectID.entityName }
                failures.append(error)
            } catch {
                failures.append(StrataError(
                    .validation, "\(object.objectID) failed validation: \(error)",
                    entityName: object.objectID.entityName, objectIDs: [object.objectID],
                    underlyingError: SendableDescription(error)))
            }
        }
        for object in insertedObjects { run(object) { try object.validateForInsert() } }
        for object in updatedObjects { run(object) { try object.validateForUpdate() } }
        for object in deletedObjects { run(object) { try object.validateForDelete() } }
        return failures
    }
}
