extension ManagedObjectContext {
    /// Saves every insert, change and deletion as one transaction: into the
    /// store for a context of the container, into the parent for a child.
    ///
    /// All or nothing: when the save throws, the store is unchanged and the
    /// context keeps its changes, so the app can fix them and save again.
    public func save() throws {
        mergePendingChanges()
        if hasEventListeners { processPendingChanges() }
        guard hasChanges else { return }
        do {
            try parentStore.save(changesOf: self)
        } catch {
            report(error)
            throw error
        }
    }

    /// Writes this context's changes to the store in one transaction,
    /// settling conflicts by the merge policy.
    func saveToStore(_ store: any PersistentStore) throws {
        let pending = try prepareForSave()
        let saved = try writeResolvingConflicts(pending, store: store)
        saved.notifyDidSave()
    }

    /// Runs the hooks that come before a save (`willSave`, then validation) and
    /// captures the objects the save writes, with what the hooks changed.
    ///
    /// Each object gets `willSave()` once. When a hook changes which objects
    /// the save writes (changing, inserting, deleting or undeleting one), the
    /// newcomers get `willSave()` and every object is validated again, until
    /// the lists stay the same.
    func prepareForSave() throws -> PendingSave {
        var objects = changedObjectLists()
        var epoch = tracker.epoch
        for object in objects.inserted { object.willSave() }
        for object in objects.updated { object.willSave() }
        for object in objects.deleted { object.willSave() }
        // Built only when a hook changes the lists (rare): who had `willSave()`.
        var notified: Set<ObjectIdentifier>?
        for _ in 0...Self.maximumHookRounds {
            if tracker.epoch == epoch {
                try validateForSave(objects)
                if tracker.epoch == epoch { return PendingSave(context: self, objects: objects) }
            }
            var seen = notified ?? Set((objects.inserted + objects.updated + objects.deleted).map(ObjectIdentifier.init))
            objects = changedObjectLists()
            epoch = tracker.epoch
            for object in objects.inserted + objects.updated + objects.deleted
            where seen.insert(ObjectIdentifier(object)).inserted {
                object.willSave()
            }
            notified = seen
        }
        throw StrataError(
            .validation,
            "Save hooks kept changing which objects the save writes after \(Self.maximumHookRounds) rounds; nothing was saved")
    }

    /// Rounds of save hooks that may bring more objects into one save.
    static let maximumHookRounds = 100

    /// The inserted, updated and deleted objects, in save order.
    func changedObjectLists() -> ChangedObjects {
        (insertedObjects, updatedObjects, deletedObjects)
    }

    /// Brings the saved objects in line with the store after the transaction committed.
    func apply(
        _ result: SaveResult, of pending: PendingSave, deletes: [RowDelete], updatedWithColumns: [any PersistentModel],
        store: any PersistentStore
    ) {
        let removesAllInserted = tracker.insertedByKey.count == pending.inserted.count
        var savedKeys: [UInt64] = []
        if !pending.inserted.isEmpty {
            if !removesAllInserted { savedKeys.reserveCapacity(pending.inserted.count) }
            // Inserts are written in the order of `pending.inserted`, one row each.
            var counts = [Int](repeating: 0, count: registry.count)
            for object in pending.inserted { counts[object.persistentBacking.entity!.index] += 1 }
            for (entityIndex, count) in counts.enumerated() where count > 0 {
                registry[entityIndex].reserveCapacity(count)
            }
            permanentKeysByTemporaryKey.reserveCapacity(permanentKeysByTemporaryKey.count + pending.inserted.count)
            for (position, object) in pending.inserted.enumerated() {
                let backing = object.persistentBacking
                let temporary = backing.temporaryKey!
                let pk = result.insertedKeys[position]
                let entityIndex = result.changes.inserted[position].entityIndex
                if !removesAllInserted { savedKeys.append(temporary) }
                permanentKeysByTemporaryKey[temporary] = PermanentKey(entityIndex: entityIndex, primaryKey: pk)
                backing.objectID = result.changes.inserted[position].objectID
                backing.state = .registered
                backing.version = 1
                registry[entityIndex][pk] = object
            }
            // Every new object has its key before any foreign key is read from one.
            for object in pending.inserted { finishSaving(object.persistentBacking) }
        }
        // `updatedWithColumns` is the part of `pending.updated` that wrote
        // columns, in the same order: one pass sets both.
        var written = 0
        for object in pending.updated {
            let backing = object.persistentBacking
            finishSaving(backing)
            if written < updatedWithColumns.count, updatedWithColumns[written] === object {
                backing.version = result.updatedVersions[written]
                written += 1
            }
        }
        tracker.didSave(insertedKeys: savedKeys, removesAllInserted: removesAllInserted)
        if !pending.metadata.isEmpty { pendingMetadata = [:] }
        if !pending.deleted.isEmpty { unregisterDeleted(pending.deleted, deletes: deletes) }
        if hasEventListeners { deliver(.didSave(result.changes)) }
    }

    /// Takes saved deletions out of the identity map and invalidates them.
    /// `deletes` are their rows, one each: counting them there spares a pass
    /// over the objects themselves.
    private func unregisterDeleted(_ deleted: [any PersistentModel], deletes: [RowDelete]) {
        var counts = [Int](repeating: 0, count: registry.count)
        for delete in deletes { counts[delete.entityIndex] += 1 }
        // Deleting every registered object of an entity empties its map at once
        // (the deleted objects are registered, each under its own key).
        var emptiedEveryMap = true
        for (entityIndex, count) in counts.enumerated() where count > 0 {
            if count == registry[entityIndex].count { registry[entityIndex].removeAll() } else { emptiedEveryMap = false }
        }
        for object in deleted {
            let backing = object.persistentBacking
            if !emptiedEveryMap {
                let entityIndex = backing.entity!.index
                if !registry[entityIndex].isEmpty { registry[entityIndex][backing.primaryKey!] = nil }
            }
            backing.invalidate()
        }
    }

    /// The saved values become the committed ones.
    private func finishSaving(_ backing: ModelBacking) {
        refreshForeignKeys(of: backing)
        backing.commitValues()
        backing.changedOrdinals.removeAll()
    }

    /// Copies the now-permanent keys of related objects into foreign-key values.
    private func refreshForeignKeys(of backing: ModelBacking) {
        guard let entity = backing.entity, !entity.toOneColumnOrdinals.isEmpty else { return }
        for ordinal in entity.toOneColumnOrdinals {
            guard ordinal < backing.relations.count, case .toOne(let target) = backing.relations[ordinal] else { continue }
            backing.values[ordinal] = target?.persistentBacking.primaryKey.map { .integer($0) } ?? .null
        }
    }
}

/// The row an object saved with a temporary ID became.
struct PermanentKey {
    var entityIndex: Int
    var primaryKey: Int64
}

/// The inserted, updated and deleted objects of a context, each list in save order.
typealias ChangedObjects = (inserted: [any PersistentModel], updated: [any PersistentModel], deleted: [any PersistentModel])

/// The objects one save writes, captured before the write.
struct PendingSave {
    let inserted: [any PersistentModel]
    let updated: [any PersistentModel]
    let deleted: [any PersistentModel]
    let author: String?
    let contextName: String?
    let metadata: [String: StoredValue?]

    /// Whether any entity has relationships (else a save writes none).
    let schemaHasRelationships: Bool

    init(context: ManagedObjectContext) {
        self.init(context: context, objects: context.changedObjectLists())
    }

    init(context: ManagedObjectContext, objects: ChangedObjects) {
        inserted = objects.inserted
        updated = objects.updated
        deleted = objects.deleted
        author = context.transactionAuthor
        contextName = context.name
        metadata = context.pendingMetadata
        schemaHasRelationships = context.schema.hasRelationships
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
        request.metadata = metadata
        request.inserts.reserveCapacity(inserted.count)
        for object in inserted {
            let backing = object.persistentBacking
            let entity = backing.entity!
            let values: [StoredValue]
            var pending: [PendingReference] = []
            if entity.columnsAreOrdinals, entity.toOneColumnOrdinals.isEmpty {
                // Values by ordinal are the row: one copy of them.
                values = Array(backing.values)
            } else {
                var row: [StoredValue] = []
                row.reserveCapacity(entity.columnOrdinals.count)
                for (column, ordinal) in entity.columnOrdinals.enumerated() {
                    let (value, reference) = Self.columnValue(of: backing, ordinal: ordinal)
                    row.append(value)
                    if let reference { pending.append(PendingReference(column: column, temporaryKey: reference)) }
                }
                values = row
            }
            request.inserts.append(RowInsert(
                entityIndex: entity.index, temporaryKey: backing.temporaryKey!,
                values: values, pendingReferences: pending))
        }
        var updatedWithColumns: [any PersistentModel] = []
        updatedWithColumns.reserveCapacity(updated.count)
        request.updates.reserveCapacity(updated.count)
        // The columns of the last changed-ordinal set, shared by the rows that repeat it.
        var lastChange: (entity: Int, ordinals: OrdinalSet, columns: [Int])?
        for object in updated {
            let backing = object.persistentBacking
            let entity = backing.entity!
            let changed = backing.changedOrdinals
            let columns: [Int]
            if let lastChange, lastChange.entity == entity.index, lastChange.ordinals == changed {
                columns = lastChange.columns
            } else {
                columns = changed.elements.compactMap { entity.columnIndexByOrdinal[$0] >= 0 ? entity.columnIndexByOrdinal[$0] : nil }
                lastChange = (entity.index, changed, columns)
            }
            guard !columns.isEmpty else { continue }
            var values: [StoredValue] = []
            values.reserveCapacity(columns.count)
            var pending: [PendingReference] = []
            for column in columns {
                let (value, reference) = Self.columnValue(of: backing, ordinal: entity.columnOrdinals[column])
                values.append(value)
                if let reference { pending.append(PendingReference(column: column, temporaryKey: reference)) }
            }
            updatedWithColumns.append(object)
            request.updates.append(RowUpdate(
                entityIndex: entity.index, primaryKey: backing.primaryKey!,
                columns: columns, values: values, pendingReferences: pending, expectedVersion: backing.version))
        }
        request.deletes.reserveCapacity(deleted.count)
        for object in deleted {
            let backing = object.persistentBacking
            request.deletes.append(RowDelete(
                entityIndex: backing.entity!.index, primaryKey: backing.primaryKey!, expectedVersion: backing.version))
        }
        addRelationshipWrites(to: &request)
        return (request, updatedWithColumns)
    }

    /// The value to store for a column, and the temporary key it refers to when
    /// the column is a foreign key to an object inserted by this save.
    static func columnValue(of backing: ModelBacking, ordinal: Int) -> (StoredValue, UInt64?) {
        guard backing.entity!.isToOneColumn[ordinal], ordinal < backing.relations.count,
              case .toOne(let target) = backing.relations[ordinal] else {
            return (backing.values[ordinal], nil)
        }
        guard let target else { return (.null, nil) }
        let id = target.persistentBacking.objectID
        if let pk = id.primaryKey { return (.integer(pk), nil) }
        return (.null, id.temporaryKey)
    }
}
