// Prefetching: the relationships a request names, loaded with its results in
// one read per relationship, whatever the number of objects.

extension ManagedObjectContext {
    /// Loads the named relationships of the fetched objects now, rather than on
    /// first use: one read per relationship, whatever the number of objects.
    ///
    /// `everyOwner`: the objects are every stored object of the entity (a
    /// fetch of them all), so stores may read whole member tables.
    func prefetch<T: PersistentModel>(
        _ keyPaths: [PartialKeyPath<T>], of objects: [T], entity: EntityDescription, everyOwner: Bool = false
    ) throws {
        let ordinals = try prefetchOrdinals(keyPaths, entity: entity)
        guard !ordinals.isEmpty, !objects.isEmpty else { return }
        // A fetch's results are distinct objects.
        try prefetch(
            ordinals, of: objects.map { $0 as any PersistentModel }, entity: entity, distinct: true, everyOwner: everyOwner)
    }

    /// Everything a request prefetches: its relationships, then those of the
    /// objects they reach (`prefetch(_:then:)`).
    func prefetch<T: PersistentModel>(for request: FetchRequest<T>, of objects: [T], entity: EntityDescription) throws {
        let everyObject = request.predicate == nil && request.fetchLimit == nil && request.fetchOffset == 0
            && request.fetchBatchSize == 0
        try prefetch(request.relationshipKeyPathsForPrefetching, of: objects, entity: entity, everyOwner: everyObject)
        for nested in request.nestedPrefetching {
            let memberEntity = try schema.entity(for: nested.memberType)
            let ordinals = try nested.keyPaths.map { keyPath throws(StrataError) in
                guard let ordinal = memberEntity.ordinal(for: keyPath), memberEntity.relationship(at: ordinal) != nil else {
                    throw StrataError(
                        .unsupportedPredicate, "\(keyPath) is not a relationship of \(memberEntity.name) and cannot be prefetched",
                        entityName: memberEntity.name)
                }
                return ordinal
            }
            guard let ordinal = entity.ordinal(for: nested.relationship) else { continue }
            var reached: [any PersistentModel] = []
            for object in objects where ordinal < object.persistentBacking.relations.count {
                switch object.persistentBacking.relations[ordinal] {
                case .toMany(let members): reached += members
                case .toOne(let target?): reached.append(target)
                case .toOne(nil), .unloaded: break
                }
            }
            try prefetch(ordinals, of: reached, entity: memberEntity)
        }
    }

    /// The ordinals of the relationships to prefetch; throws for a key path
    /// that is not a relationship of the entity.
    func prefetchOrdinals<T: PersistentModel>(
        _ keyPaths: [PartialKeyPath<T>], entity: EntityDescription
    ) throws -> [Int] {
        try keyPaths.map { keyPath in
            guard let ordinal = entity.ordinal(for: keyPath), entity.relationship(at: ordinal) != nil else {
                throw StrataError(
                    .unsupportedPredicate, "\(keyPath) is not a relationship of \(entity.name) and cannot be prefetched",
                    entityName: entity.name)
            }
            return ordinal
        }
    }

    /// Loads the relationships at `ordinals` of the loaded ones among `objects`
    /// (faults wait): the targets of a to-one that are not loaded yet with one
    /// read of their keys, the members of a to-many with one read for every owner.
    /// `distinct`: no object is in `objects` twice.
    func prefetch(
        _ ordinals: [Int], of objects: some Collection<any PersistentModel>, entity: EntityDescription,
        distinct: Bool = false, everyOwner: Bool = false
    ) throws {
        // Each object once (members of a many-to-many reach it from several owners).
        var seen = Set<ObjectIdentifier>(minimumCapacity: distinct ? 0 : objects.count)
        let loaded = objects.filter {
            !$0.persistentBacking.isFault && (distinct || seen.insert(ObjectIdentifier($0)).inserted)
        }
        guard !loaded.isEmpty else { return }
        for ordinal in ordinals {
            let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
            if entity.properties[ordinal].hasColumn {
                try prefetchToOne(ordinal, of: loaded, destination: destination)
            } else {
                try prefetchToMany(ordinal, of: loaded, everyOwner: everyOwner)
            }
        }
    }

    private func prefetchToOne(_ ordinal: Int, of objects: [any PersistentModel], destination: EntityDescription) throws {
        var keys: [Int64] = []
        var seen = Set<Int64>()
        for object in objects {
            let backing = object.persistentBacking
            if ordinal < backing.relations.count, case .toOne = backing.relations[ordinal] { continue }
            guard case .integer(let key) = backing.values[ordinal] else { continue }
            if let target = registry[destination.index][key], !target.persistentBacking.isFault { continue }
            if seen.insert(key).inserted { keys.append(key) }
        }
        if !keys.isEmpty {
            try parentStore.readValues(entityIndex: destination.index, primaryKeys: keys, in: self) { row in
                // A target whose row cannot be read stays a fault, as it would unprefetched.
                _ = try? registerRow(entity: destination, primaryKey: row.primaryKey, values: row.values, version: row.version)
            }
        }
        for object in objects { _ = ObjectGraph.toOne(of: object, at: ordinal) }
    }

    private func prefetchToMany(_ ordinal: Int, of objects: [any PersistentModel], everyOwner: Bool) throws {
        let owners = objects.filter { object in
            let backing = object.persistentBacking
            guard backing.state != .inserted, backing.state != .new else { return false }
            if ordinal < backing.relations.count, case .toMany = backing.relations[ordinal] { return false }
            return true
        }
        guard !owners.isEmpty else { return }
        let stored = try parentStore.members(of: owners, ordinal: ordinal, everyOwner: everyOwner, in: self)
        for (owner, members) in zip(owners, stored) {
            let backing = owner.persistentBacking
            backing.ensureRelations(count: ordinal + 1)
            backing.relations[ordinal] = .toMany(withPendingChanges(members, of: owner, ordinal: ordinal))
        }
    }
}
