import Foundation

extension ManagedObjectContext {
    /// The objects matching a request, in its order.
    ///
    /// With `includesPendingChanges` (the default), unsaved inserts, changes and
    /// deletes of this context count: they are checked against the predicate in
    /// memory and merged with the store's results.
    public func fetch<T: PersistentModel>(_ request: FetchRequest<T>) throws -> [T] {
        do {
            return try fetchObjects(request)
        } catch {
            report(error)
            throw error
        }
    }

    /// The number of objects matching a request.
    public func count<T: PersistentModel>(for request: FetchRequest<T>) throws -> Int {
        do {
            mergePendingChanges()
            if parent != nil { return try childFetch(request).count }
            let store = try coordinator.loadedStore()
            let entity = try schema.entity(for: T.self)
            let query = try SelectQuery(request: request, schema: schema, entity: entity, store: store)
            if request.includesPendingChanges, hasPendingChanges(entityIndex: entity.index) {
                return try fetchObjects(request).count
            }
            let counted = try store.fetchIntegers(sql: query.countSQL(), arguments: query.countArguments())
            return Int(counted.first ?? 0)
        } catch {
            report(error)
            throw error
        }
    }

    private func fetchObjects<T: PersistentModel>(_ request: FetchRequest<T>) throws -> [T] {
        mergePendingChanges()
        if parent != nil { return try childFetch(request) }
        let store = try coordinator.loadedStore()
        let entity = try schema.entity(for: T.self)
        let query = try SelectQuery(request: request, schema: schema, entity: entity, store: store)
        let pending = request.includesPendingChanges && hasPendingChanges(entityIndex: entity.index)
        if !pending {
            let objects: [T] = try load(query: query, limited: true, batchSize: request.fetchBatchSize, entity: entity, store: store)
            try prefetch(request.relationshipKeyPathsForPrefetching, of: objects, entity: entity)
            return objects
        }

        // Unsaved changes count: take the store's matches, drop what this context
        // deleted or changed, then add what matches in memory, and order and
        // limit the whole in memory.
        var results: [T] = try load(query: query, limited: false, batchSize: 0, entity: entity, store: store)
        results.removeAll { object in
            let backing = object.persistentBacking
            return backing.state == .deleted || backing.state == .invalidated || !backing.changedOrdinals.isEmpty
        }
        var candidates: [T] = insertedByKey.sorted { $0.key < $1.key }.compactMap { $0.value as? T }
        candidates += changedObjects.values.compactMap { object in
            guard let typed = object as? T, typed.persistentBacking.state == .registered,
                  !typed.persistentBacking.changedOrdinals.isEmpty else { return nil }
            return typed
        }
        for candidate in candidates {
            if try request.predicate?.evaluate(candidate) ?? true {
                results.append(candidate)
            }
        }
        if !request.sortBy.isEmpty {
            results.sort(using: request.sortBy)
        }
        let start = min(request.fetchOffset, results.count)
        var slice = Array(results[start...])
        if let limit = request.fetchLimit, limit >= 0, slice.count > limit {
            slice = Array(slice.prefix(limit))
        }
        try prefetch(request.relationshipKeyPathsForPrefetching, of: slice, entity: entity)
        return slice
    }

    /// Whether this context has unsaved changes that a fetch of the entity must see.
    func hasPendingChanges(entityIndex: Int) -> Bool {
        if insertedByKey.values.contains(where: { $0.persistentBacking.entity?.index == entityIndex }) { return true }
        if deletedObjectsByID.values.contains(where: { $0.persistentBacking.entity?.index == entityIndex }) { return true }
        return changedObjects.values.contains { object in
            object.persistentBacking.entity?.index == entityIndex && !object.persistentBacking.changedOrdinals.isEmpty
        }
    }

    /// Runs a query and turns rows into registered objects (or batched faults).
    private func load<T: PersistentModel>(
        query: SelectQuery, limited: Bool, batchSize: Int, entity: EntityDescription, store: SQLiteStore
    ) throws -> [T] {
        var objects: [T] = []
        if batchSize > 0 {
            let keys = try store.fetchIntegers(sql: query.keysSQL(limited: limited), arguments: query.arguments(limited: limited))
            objects.reserveCapacity(keys.count)
            let batches = FaultBatch.make(keys: keys, size: batchSize)
            for (offset, pk) in keys.enumerated() {
                let object = registerRow(entity: entity, primaryKey: pk, values: nil, version: 0)
                if object.persistentBacking.isFault {
                    object.persistentBacking.faultBatch = batches[offset / batchSize]
                }
                objects.append(object as! T)
            }
            return objects
        }
        let entityIndex = entity.index
        let storeIdentifier = store.identifier
        try store.fetchRows(entityIndex: entityIndex, sql: query.selectSQL(limited: limited),
                            arguments: query.arguments(limited: limited)) { row in
            let pk = row.primaryKey
            // One lookup per row: a hit reuses the registered object (filling it
            // if it is a fault); a miss creates and registers the object.
            if let existing = registry[entityIndex][pk] {
                if existing.persistentBacking.isFault {
                    existing.persistentBacking.load(values: store.decodeValues(row, entityIndex: entityIndex), version: row.version)
                    existing.awakeFromFetch()
                }
                objects.append(existing as! T)
                return
            }
            let backing = ModelBacking(
                entity: entity, objectID: ObjectID(entityName: entity.name, storeIdentifier: storeIdentifier, primaryKey: pk),
                coordinator: self, values: store.decodeValues(row, entityIndex: entityIndex), version: row.version)
            let object = T(backing: backing)
            registry[entityIndex][pk] = object
            object.awakeFromFetch()
            objects.append(object)
        }
        return objects
    }

    /// Loads the named relationships of the fetched objects now, rather than on first use.
    private func prefetch<T: PersistentModel>(
        _ keyPaths: [PartialKeyPath<T>], of objects: [T], entity: EntityDescription
    ) throws {
        for keyPath in keyPaths {
            guard let ordinal = entity.ordinal(for: keyPath), entity.relationship(at: ordinal) != nil else {
                throw StrataError(
                    .unsupportedPredicate, "\(keyPath) is not a relationship of \(entity.name) and cannot be prefetched",
                    entityName: entity.name)
            }
            for object in objects where !object.persistentBacking.isFault {
                if entity.properties[ordinal].hasColumn {
                    _ = ObjectGraph.toOne(of: object, at: ordinal)
                } else {
                    _ = ObjectGraph.toMany(of: object, at: ordinal)
                }
            }
        }
    }
}
