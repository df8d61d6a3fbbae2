extension ManagedObjectContext {
    /// Runs every check of a save before anything is written: the models'
    /// validation hooks and deny rules. All failures are reported together in
    /// one `.validation` error.
    func validateForSave(_ objects: ChangedObjects) throws {
        let (inserted, updated, deleted) = objects
        var failures: [StrataError] = []
        var countFailures: [StrataError] = []
        failures += runValidationHooks(inserted: inserted, updated: updated, deleted: deleted, countFailures: &countFailures)
        failures += countFailures
        if schema.hasWideUnsignedAttributes {
            for object in inserted { failures += wideUnsignedFailures(of: object) }
            for object in updated { failures += wideUnsignedFailures(of: object) }
        }
        if !deleted.isEmpty, schema.deniesDeletion {
            for object in deleted where object.persistentBacking.entity?.deniesDeletion == true {
                failures += denials(ofDeleting: object)
            }
        }
        guard !failures.isEmpty else { return }
        if failures.count == 1 { throw failures[0] }
        throw StrataError(
            .validation, "\(failures.count) objects failed validation: " + failures.map(\.message).joined(separator: "; "),
            objectIDs: failures.flatMap(\.objectIDs), detailedErrors: failures)
    }

    /// The `UInt` and `UInt64` values of `object` above `Int64.max`, which no
    /// store keeps (they are held as text until a save refuses them).
    private func wideUnsignedFailures(of object: any PersistentModel) -> [StrataError] {
        let backing = object.persistentBacking
        guard let entity = backing.entity, !entity.wideUnsignedOrdinals.isEmpty else { return [] }
        return entity.wideUnsignedOrdinals.compactMap { ordinal in
            guard !WideUnsigned.fits(backing.values[ordinal]) else { return nil }
            let name = entity.properties[ordinal].name
            return StrataError(
                .validation, "\(entity.name).\(name) \(WideUnsigned.refusal)",
                entityName: entity.name, propertyName: name, objectIDs: [object.objectID])
        }
    }

    /// The `.deny` delete rules that refuse deleting `object`: relationships
    /// that still hold objects not deleted themselves.
    func denials(ofDeleting object: any PersistentModel) -> [StrataError] {
        guard let entity = object.persistentBacking.entity, !entity.relationshipOrdinals.isEmpty else { return [] }
        var failures: [StrataError] = []
        for ordinal in entity.relationshipOrdinals {
            guard case .relationship(let relationship) = entity.properties[ordinal],
                  relationship.deleteRule == .deny else { continue }
            let related: [any PersistentModel] = relationship.isToMany
                ? ObjectGraph.toMany(of: object, at: ordinal)
                : ObjectGraph.toOne(of: object, at: ordinal).map { [$0] } ?? []
            if related.contains(where: { !$0.isDeleted }) {
                failures.append(StrataError(
                    .validation, "\(entity.name).\(relationship.name) denies deleting \(object.objectID) while it is not empty",
                    entityName: entity.name, propertyName: relationship.name, objectIDs: [object.objectID]))
            }
        }
        return failures
    }

    /// Calls `validateForInsert`, `validateForUpdate` and `validateForDelete`.
    /// Also checks relationship counts of inserted and updated objects (see
    /// `relationshipCountFailures(of:isNew:into:)`) in the same pass, into `countFailures`.
    private func runValidationHooks(
        inserted: [any PersistentModel], updated: [any PersistentModel], deleted: [any PersistentModel],
        countFailures: inout [StrataError]
    ) -> [StrataError] {
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
        for object in inserted {
            run(object) { try object.validateForInsert() }
            relationshipCountFailures(of: object, isNew: true, into: &countFailures)
        }
        for object in updated {
            run(object) { try object.validateForUpdate() }
            relationshipCountFailures(of: object, isNew: false, into: &countFailures)
        }
        for object in deleted { run(object) { try object.validateForDelete() } }
        return failures
    }
}
