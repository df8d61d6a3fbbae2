import Foundation

// Loading and letting go of the objects of one batch of a
// ``FetchResultsCollection``.

extension ManagedObjectContext {
    /// The objects for `keys`, in the order of `keys`.
    ///
    /// Loaded registered objects are reused as they are (identity and unsaved
    /// changes kept), registered faults are filled, and rows the context does
    /// not have yet become new registered objects. A key whose row no longer
    /// exists gets a fault, which reports `.objectNotFound` when it fires.
    func objects(forKeys keys: ArraySlice<Int64>, entity: EntityDescription) throws -> ContiguousArray<any PersistentModel> {
        let registered = registry[entity.index]
        var slots = ContiguousArray<(any PersistentModel)?>(repeating: nil, count: keys.count)
        var missing = 0
        for (offset, key) in keys.enumerated() {
            if let existing = registered[key], !existing.persistentBacking.isFault {
                slots[offset] = existing
            } else {
                missing += 1
            }
        }
        if missing > 0 { try load(into: &slots, keys: keys, entity: entity) }
        var objects = ContiguousArray<any PersistentModel>()
        objects.reserveCapacity(keys.count)
        for (slot, key) in zip(slots, keys) {
            objects.append(slot ?? registerFault(entity: entity, primaryKey: key))
        }
        return objects
    }

    /// Reads the rows of the keys whose slot is empty and fills those slots.
    ///
    /// Keys that ascend with few gaps (a batch of a fetch in key order) are read
    /// with one range scan merged with them; others with `pk IN (…)` chunks.
    private func load(
        into slots: inout ContiguousArray<(any PersistentModel)?>, keys: ArraySlice<Int64>, entity: EntityDescription
    ) throws {
        let entityIndex = entity.index
        let registered = registry[entityIndex]
        let storeIdentifier = parentStore.storeIdentifier ?? ""
        var loaded = ContiguousArray<any PersistentModel>()
        registered.reserveCapacity(keys.count)
        func take(_ row: any StoreRow, at offset: Int) throws {
            let pk = row.primaryKey
            let object: any PersistentModel
            if let existing = registered[pk] {
                try load(row, into: existing.persistentBacking)
                object = existing
            } else {
                object = try makeObject(entity: entity, storeIdentifier: storeIdentifier, row: row)
                registered[pk] = object
            }
            slots[offset] = object
            loaded.append(object)
        }
        // Hooks run once the read is over (they may touch other objects), and
        // after a read that failed partway too: what it loaded stays registered.
        defer { for object in loaded { object.awakeFromFetch() } }
        if let range = Self.denseRange(of: keys) {
            var offset = 0
            try parentStore.storedRows(entityIndex: entityIndex, keys: .range(range), in: self) { row in
                let pk = row.primaryKey
                while offset < keys.count, keys[keys.startIndex + offset] < pk { offset += 1 }
                guard offset < keys.count, keys[keys.startIndex + offset] == pk, slots[offset] == nil else { return }
                try take(row, at: offset)
            }
        } else {
            var offsetByKey: [Int64: Int] = [:]
            for (offset, key) in keys.enumerated() where slots[offset] == nil { offsetByKey[key] = offset }
            try parentStore.storedRows(entityIndex: entityIndex, keys: .keys(Array(offsetByKey.keys)), in: self) { row in
                guard let offset = offsetByKey[row.primaryKey] else { return }
                try take(row, at: offset)
            }
        }
    }

    /// The span of `keys` when they ascend and the span is less than twice
    /// their number (a range scan then reads few rows it does not need).
    private static func denseRange(of keys: ArraySlice<Int64>) -> ClosedRange<Int64>? {
        guard let first = keys.first, let last = keys.last else { return nil }
        var previous = first
        for key in keys.dropFirst() {
            guard key > previous else { return nil }
            previous = key
        }
        return last - first < 2 * Int64(keys.count) ? first...last : nil
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
