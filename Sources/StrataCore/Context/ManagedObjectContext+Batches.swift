import Foundation

// Loading and letting go of the objects of one batch of a
// ``FetchResultsCollection``.

extension ManagedObjectContext {
    /// The objects for `keys`, in the order of `keys`, loaded with one query per
    /// chunk of keys.
    ///
    /// Loaded registered objects are reused as they are (identity and unsaved
    /// changes kept), registered faults are filled, and rows the context does
    /// not have yet become new registered objects. A key whose row no longer
    /// exists gets a fault, which reports `.objectNotFound` when it fires.
    func objects(forKeys keys: ArraySlice<Int64>, entity: EntityDescription) throws -> ContiguousArray<any PersistentModel> {
        let entityIndex = entity.index
        var slots = ContiguousArray<(any PersistentModel)?>(repeating: nil, count: keys.count)
        var offsetByMissingKey: [Int64: Int] = [:]
        for (offset, key) in keys.enumerated() {
            if let existing = registry[entityIndex][key], !existing.persistentBacking.isFault {
                slots[offset] = existing
            } else {
                offsetByMissingKey[key] = offset
            }
        }
        if !offsetByMissingKey.isEmpty {
            let store = try coordinator.loadedStore()
            let plan = store.decodePlan(entityIndex: entityIndex)
            let token = contextToken
            var loaded = ContiguousArray<any PersistentModel>()
            loaded.reserveCapacity(offsetByMissingKey.count)
            registry[entityIndex].reserveCapacity(offsetByMissingKey.count)
            try store.fetchRows(entityIndex: entityIndex, primaryKeys: offsetByMissingKey.keys) { row in
                let pk = row.primaryKey
                guard let offset = offsetByMissingKey[pk] else { return }
                let object: any PersistentModel
                if let existing = registry[entityIndex][pk] {
                    existing.persistentBacking.load(values: row.decodeValues(plan), version: row.version)
                    object = existing
                } else {
                    let backing = ModelBacking(
                        entity: entity,
                        objectID: ObjectID(entityName: entity.name, storeIdentifier: store.identifier, primaryKey: pk),
                        token: token, values: row.decodeValues(plan), version: row.version)
                    object = entity.modelType.init(backing: backing)
                    registry[entityIndex][pk] = object
                }
                slots[offset] = object
                loaded.append(object)
            }
            // Hooks run once the read is over: they may touch other objects.
            for object in loaded { object.awakeFromFetch() }
        }
        var objects = ContiguousArray<any PersistentModel>()
        objects.reserveCapacity(keys.count)
        for (slot, key) in zip(slots, keys) {
            objects.append(slot ?? registerRow(entity: entity, primaryKey: key, values: nil, version: 0))
        }
        return objects
    }

    /// Lets go of the registered objects for `keys` that nothing outside the
    /// context holds and that have no unsaved changes, as Core Data's identity
    /// map does for every object. The next fetch of such a row makes a new one.
    ///
    /// Objects that are changed, deleted, related to a loaded object, or held by
    /// the app stay registered, so identity and unsaved changes are never lost.
    func releaseUnreferencedObjects(entityIndex: Int, keys: some Sequence<Int64>) {
        let registered = registry[entityIndex]
        let modelType = schema.entities[entityIndex].modelType
        for key in keys {
            modelType.releaseIfUnreferenced(key, from: registered)
        }
    }
}

extension PersistentModel {
    /// Removes the object for `key` from `registered` when it has no unsaved
    /// changes and the map holds the only reference to it.
    ///
    /// Typed as `Self` so the uniqueness check sees a native reference (an
    /// `AnyObject` check can report false for a unique object).
    static func releaseIfUnreferenced(_ key: Int64, from registered: IdentityMap) {
        guard let object = registered.removeValue(forKey: key) else { return }
        let backing = object.persistentBacking
        var typed = unsafeDowncast(consume object as AnyObject, to: Self.self)
        if backing.state != .registered || !backing.changedOrdinals.isEmpty || !isKnownUniquelyReferenced(&typed) {
            registered[key] = typed
        }
    }
}
