/// A batch delete's marked rows on the in-memory store: a set of keys per
/// entity, held by the executor for the batch.
extension MemoryWriteExecutor: BatchDeleteExecutor {
    func markRoots(entityIndex: Int, selection: BatchDeleteSelection) throws(StrataError) -> [Int64] {
        let roots: [Int64] = switch selection {
        case .matching(let predicate): try MemoryStore.select(FetchPlan(entityIndex: entityIndex, predicate: predicate), in: database)
        case .keys(let keys): Set(keys).filter { database.row(entityIndex, $0) != nil }.sorted()
        }
        marks.keys = roots.isEmpty ? [:] : [entityIndex: Set(roots)]
        return roots
    }

    func markCascades(_ edges: [ForeignKeyEdge]) {
        var queue = marks.keys.flatMap { entity, keys in keys.map { (entity, $0) } }
        while let (parent, key) = queue.popLast() {
            for edge in edges where edge.parentIndex == parent {
                let column = MemoryDatabase.KeyColumn(entityIndex: edge.childIndex, ordinal: edge.ordinal)
                for child in database.rows(pointingAt: key, from: column) where marks.keys[edge.childIndex, default: []].insert(child).inserted {
                    queue.append((edge.childIndex, child))
                }
            }
        }
    }

    func markedKeys() -> [Int: [Int64]] {
        marks.keys.mapValues { $0.sorted() }
    }

    func survivors(of edge: ForeignKeyEdge, limit: Int) -> [Int64] {
        Array(survivors(of: edge).prefix(limit))
    }

    /// Rows that stay but point at a marked row through an edge, ascending.
    private func survivors(of edge: ForeignKeyEdge) -> [Int64] {
        let column = MemoryDatabase.KeyColumn(entityIndex: edge.childIndex, ordinal: edge.ordinal)
        var result = Set<Int64>()
        for parent in marks.keys[edge.parentIndex] ?? [] {
            for child in database.rows(pointingAt: parent, from: column) where marks.keys[edge.childIndex]?.contains(child) != true {
                result.insert(child)
            }
        }
        return result.sorted()
    }

    func ownersLosingMembers(entityIndex: Int, ordinal: Int) -> [Int64] {
        guard let shape = database.schema.toManyShape(entityIndex: entityIndex, ordinal: ordinal),
              let members = marks.keys[shape.destinationIndex] else { return [] }
        var keys = Set<Int64>()
        switch shape {
        case .foreignKey(let destination, let inverse):
            for member in members {
                if case .integer(let key)? = database.row(destination, member)?.values[inverse] { keys.insert(key) }
            }
        case .join(let join, let ownerIsSource, _):
            let pairs = database.pairs(join)
            for member in members {
                keys.formUnion((ownerIsSource ? pairs?.byTarget[member] : pairs?.bySource[member]) ?? [])
            }
        }
        return Array(keys)
    }

    func nullifySurvivors(of edge: ForeignKeyEdge) throws(StrataError) -> [(primaryKey: Int64, version: Int64)] {
        var rows: [(primaryKey: Int64, version: Int64)] = []
        for key in survivors(of: edge) {
            guard var row = database.row(edge.childIndex, key) else { continue }
            guard row.version < .max else {
                throw SaveWriter.versionExhausted(database.schema.entities[edge.childIndex], key, in: store)
            }
            row.values[edge.ordinal] = .null
            row.version += 1
            try database.put(row, entityIndex: edge.childIndex, key: key)
            rows.append((key, row.version))
        }
        return rows
    }

    func releaseDeniedKeysAmongMarked(_ edges: [ForeignKeyEdge]) {
        database.releaseDeniedKeys(among: marks.keys)
    }

    func deleteMarked(entityIndex: Int) throws(StrataError) {
        for key in (marks.keys[entityIndex] ?? []).sorted() { try database.delete(entityIndex, key) }
    }
}

/// Batch writes on the in-memory store: the matching rows, one by one.
extension MemoryWriteExecutor: BatchWriteExecutor {
    func keysMatching(entityIndex: Int, predicate: StoreExpression?) throws(StrataError) -> [Int64] {
        try MemoryStore.select(FetchPlan(entityIndex: entityIndex, predicate: predicate), in: database)
    }

    func updateMatching(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue]
    ) throws(StrataError) -> [(primaryKey: Int64, version: Int64)] {
        var updated: [(primaryKey: Int64, version: Int64)] = []
        for key in try keysMatching(entityIndex: entityIndex, predicate: predicate) {
            guard var row = database.row(entityIndex, key) else { continue }
            guard row.version < .max else { throw SaveWriter.versionExhausted(schema.entities[entityIndex], key, in: store) }
            row.version += 1
            for (ordinal, value) in zip(ordinals, values) { row.values[ordinal] = value }
            try database.put(row, entityIndex: entityIndex, key: key)
            updated.append((key, row.version))
        }
        return updated
    }
}
