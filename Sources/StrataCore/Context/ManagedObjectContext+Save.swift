extension ManagedObjectContext {
    /// Saves every insert, change and deletion as one SQLite transaction.
    ///
    /// All or nothing: when the save throws, the store is unchanged and the
    /// context keeps its changes, so the app can fix them and save again.
    public func save() throws {
        mergePendingChanges()
        guard hasChanges else { return }
        let store = try coordinator.loadedStore()
        try validateForSave()

        let inserted = insertedObjects
        let updated = updatedObjects
        let deleted = deletedObjects
        for object in inserted { object.willSave() }
        for object in updated { object.willSave() }
        for object in deleted { object.willSave() }

        var request = SaveRequest()
        request.author = transactionAuthor
        request.contextName = name
        for object in inserted {
            let backing = object.persistentBacking
            let entity = backing.entity!
            var values: [StoredValue] = []
            values.reserveCapacity(entity.columnOrdinals.count)
            var pending: [PendingReference] = []
            for (column, ordinal) in entity.columnOrdinals.enumerated() {
                let (value, reference) = columnValue(of: backing, ordinal: ordinal)
                values.append(value)
                if let reference { pending.append(PendingReference(column: column, temporaryKey: reference)) }
            }
            request.inserts.append(RowInsert(
                entityIndex: entity.index, temporaryKey: backing.objectID.temporaryKey!,
                values: values, pendingReferences: pending))
        }
        var updatedWithColumns: [any PersistentModel] = []
        for object in updated {
            let backing = object.persistentBacking
            let entity = backing.entity!
            var columns: [Int] = []
            var values: [StoredValue] = []
            var pending: [PendingReference] = []
            for ordinal in backing.changedOrdinals.elements {
                let column = entity.columnIndexByOrdinal[ordinal]
                guard column >= 0 else { continue }
                let (value, reference) = columnValue(of: backing, ordinal: ordinal)
                columns.append(column)
                values.append(value)
                if let reference { pending.append(PendingReference(column: column, temporaryKey: reference)) }
            }
            guard !columns.isEmpty else { continue }
            updatedWithColumns.append(object)
            request.updates.append(RowUpdate(
                entityIndex: entity.index, primaryKey: backing.objectID.primaryKey!,
                columns: columns, values: values, pendingReferences: pending))
        }
        for object in deleted {
            let backing = object.persistentBacking
            request.deletes.append(RowDelete(entityIndex: backing.entity!.index, primaryKey: backing.objectID.primaryKey!))
        }

        let result: SaveResult
        do {
            result = try store.save(request, origin: ObjectIdentifier(originMarker))
        } catch {
            report(error)
            throw error
        }

        // The transaction committed: bring the objects in line with the store.
        for object in inserted {
            let backing = object.persistentBacking
            let temporary = backing.objectID.temporaryKey!
            let pk = result.assignedKeys[temporary]!
            insertedByKey[temporary] = nil
            backing.objectID = ObjectID(entityName: backing.entity!.name, storeIdentifier: store.identifier, primaryKey: pk)
            backing.state = .registered
            backing.version = 1
            registry[backing.entity!.index][pk] = object
        }
        for object in inserted + updated {
            let backing = object.persistentBacking
            refreshForeignKeys(of: backing)
            backing.committed = backing.values
            backing.changedOrdinals.removeAll()
        }
        for (object, version) in zip(updatedWithColumns, result.updatedVersions) {
            object.persistentBacking.version = version
        }
        changedObjects.removeAll()
        for object in deleted {
            let backing = object.persistentBacking
            registry[backing.entity!.index][backing.objectID.primaryKey!] = nil
            backing.state = .invalidated
            backing.relations = []
        }
        deletedObjectsByID.removeAll()
        for object in inserted { object.didSave() }
        for object in updated { object.didSave() }
        for object in deleted { object.didSave() }
    }

    /// The value to store for a column, and the temporary key it refers to when
    /// the column is a foreign key to an object inserted by this save.
    private func columnValue(of backing: ModelBacking, ordinal: Int) -> (StoredValue, UInt64?) {
        guard backing.entity!.relationship(at: ordinal) != nil, ordinal < backing.relations.count,
              case .toOne(let target) = backing.relations[ordinal] else {
            return (backing.values[ordinal], nil)
        }
        guard let target else { return (.null, nil) }
        let id = target.persistentBacking.objectID
        if let pk = id.primaryKey { return (.integer(pk), nil) }
        return (.null, id.temporaryKey)
    }

    /// Copies the now-permanent keys of related objects into foreign-key values.
    private func refreshForeignKeys(of backing: ModelBacking) {
        guard let entity = backing.entity else { return }
        for ordinal in entity.columnOrdinals where entity.relationship(at: ordinal) != nil {
            guard ordinal < backing.relations.count, case .toOne(let target) = backing.relations[ordinal] else { continue }
            backing.values[ordinal] = target?.persistentBacking.objectID.primaryKey.map { .integer($0) } ?? .null
        }
    }

    /// Checks deny rules before anything is written; every failure is reported
    /// together in one `.validation` error.
    private func validateForSave() throws {
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
