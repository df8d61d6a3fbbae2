extension ManagedObjectContext {
    /// Saves every insert, change and deletion as one SQLite transaction.
    ///
    /// All or nothing: when the save throws, the store is unchanged and the
    /// context keeps its changes, so the app can fix them and save again.
    public func save() throws {
        mergePendingChanges()
        guard hasChanges else { return }
        if parent != nil {
            do { return try saveToParent() } catch { report(error); throw error }
        }
        do {
            let store = try coordinator.loadedStore()
            try validateForSave()
            let pending = PendingSave(context: self)
            pending.notifyWillSave()
            let saved = try writeResolvingConflicts(pending, store: store)
            saved.notifyDidSave()
        } catch {
            report(error)
            throw error
        }
    }

    /// Brings the saved objects in line with the store after the transaction committed.
    func apply(_ result: SaveResult, of pending: PendingSave, updatedWithColumns: [any PersistentModel], store: SQLiteStore) {
        for object in pending.inserted {
            let backing = object.persistentBacking
            let temporary = backing.objectID.temporaryKey!
            let pk = result.assignedKeys[temporary]!
            insertedByKey[temporary] = nil
            permanentIDsByTemporaryKey[temporary] = ObjectID(entityName: backing.entity!.name, storeIdentifier: store.identifier, primaryKey: pk)
            backing.objectID = ObjectID(entityName: backing.entity!.name, storeIdentifier: store.identifier, primaryKey: pk)
            backing.state = .registered
            backing.version = 1
            registry[backing.entity!.index][pk] = object
        }
        for object in pending.inserted + pending.updated {
            let backing = object.persistentBacking
            refreshForeignKeys(of: backing)
            backing.committed = backing.values
            backing.changedOrdinals.removeAll()
        }
        for (object, version) in zip(updatedWithColumns, result.updatedVersions) {
            object.persistentBacking.version = version
        }
        changedObjects.removeAll()
        for object in pending.deleted {
            let backing = object.persistentBacking
            registry[backing.entity!.index][backing.objectID.primaryKey!] = nil
            backing.state = .invalidated
            backing.relations = []
        }
        deletedObjectsByID.removeAll()
    }

    /// Copies the now-permanent keys of related objects into foreign-key values.
    private func refreshForeignKeys(of backing: ModelBacking) {
        guard let entity = backing.entity else { return }
        for ordinal in entity.columnOrdinals where entity.relationship(at: ordinal) != nil {
            guard ordinal < backing.relations.count, case .toOne(let target) = backing.relations[ordinal] else { continue }
            backing.values[ordinal] = target?.persistentBacking.objectID.primaryKey.map { .integer($0) } ?? .null
        }
    }
}

/// The objects one save writes, captured before the write.
struct PendingSave {
    let inserted: [any PersistentModel]
    let updated: [any PersistentModel]
    let deleted: [any PersistentModel]
    let author: String?
    let contextName: String?

    init(context: ManagedObjectContext) {
        inserted = context.insertedObjects
        updated = context.updatedObjects
        deleted = context.deletedObjects
        author = context.transactionAuthor
        contextName = context.name
    }

    func notifyWillSave() {
        for object in inserted { object.willSave() }
        for object in updated { object.willSave() }
        for object in deleted { object.willSave() }
    }

    func notifyDidSave() {
        for object in inserted { object.didSave() }
        for object in updated { object.didSave() }
        for object in deleted { object.didSave() }
    }

    /// The rows to write, and the updated objects that have column changes (in
    /// the order of the request's updates).
    func makeRequest() -> (request: SaveRequest, updatedWithColumns: [any PersistentModel]) {
        var request = SaveRequest()
        request.author = author
        request.contextName = contextName
        for object in inserted {
            let backing = object.persistentBacking
            let entity = backing.entity!
            var values: [StoredValue] = []
            values.reserveCapacity(entity.columnOrdinals.count)
            var pending: [PendingReference] = []
            for (column, ordinal) in entity.columnOrdinals.enumerated() {
                let (value, reference) = Self.columnValue(of: backing, ordinal: ordinal)
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
                let (value, reference) = Self.columnValue(of: backing, ordinal: ordinal)
                columns.append(column)
                values.append(value)
                if let reference { pending.append(PendingReference(column: column, temporaryKey: reference)) }
            }
            guard !columns.isEmpty else { continue }
            updatedWithColumns.append(object)
            request.updates.append(RowUpdate(
                entityIndex: entity.index, primaryKey: backing.objectID.primaryKey!,
                columns: columns, values: values, pendingReferences: pending, expectedVersion: backing.version))
        }
        for object in deleted {
            let backing = object.persistentBacking
            request.deletes.append(RowDelete(
                entityIndex: backing.entity!.index, primaryKey: backing.objectID.primaryKey!, expectedVersion: backing.version))
        }
        addRelationshipWrites(to: &request)
        return (request, updatedWithColumns)
    }

    /// The value to store for a column, and the temporary key it refers to when
    /// the column is a foreign key to an object inserted by this save.
    static func columnValue(of backing: ModelBacking, ordinal: Int) -> (StoredValue, UInt64?) {
        guard backing.entity!.relationship(at: ordinal) != nil, ordinal < backing.relations.count,
              case .toOne(let target) = backing.relations[ordinal] else {
            return (backing.values[ordinal], nil)
        }
        guard let target else { return (.null, nil) }
        let id = target.persistentBacking.objectID
        if let pk = id.primaryKey { return (.integer(pk), nil) }
        return (.null, id.temporaryKey)
    }
}
