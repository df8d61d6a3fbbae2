/// Batch requests on an in-memory store, with the SQLite store's results:
/// the same keys, versions, change sets, history and errors.
extension MemoryStore {
    /// Runs one batch as a transaction and records it, as the SQLite store's `runBatch` does.
    private func runBatch(
        _ transaction: BatchTransaction,
        _ body: (MemoryDatabase, inout BatchWriteResult, inout PreviousValues) throws(StrataError) -> Void
    ) throws(StrataError) -> BatchWriteResult {
        let changes = changeSet(author: transaction.author, contextName: transaction.contextName, origin: transaction.origin)
        let result = try write { database, history throws(StrataError) in
            var result = BatchWriteResult(changes: changes)
            var previous = PreviousValues()
            try body(database, &result, &previous)
            result.changes.historyToken = recordHistory(of: result.changes, previous: previous, in: &history)
            return result
        }
        didCommit(result.changes)
        return result
    }

    package func batchInsert(
        entityIndex: Int, rows: [[StoredValue]], transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { database, result, _ throws(StrataError) in
            guard !rows.isEmpty else { return }
            let entity = schema.entities[entityIndex]
            let first = try database.reserveKeys(entityIndex, count: Int64(rows.count))
            var owners: Set<ChangeSet.ToManyChange> = []
            for (offset, values) in rows.enumerated() {
                let key = first + Int64(offset)
                try database.put(MemoryDatabase.Row(version: 1, values: byOrdinal(values, entity)), entityIndex: entityIndex, key: key)
                appendToOwners(entityIndex: entityIndex, key: key, columns: nil, before: nil, in: database, owners: &owners)
                result.primaryKeys.append(key)
                result.changes.inserted.append(ChangeSet.Row(
                    objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
                    entity: entity, ordinals: entity.columnOrdinals, values: values, version: 1))
            }
            result.changes.toManyChanges += owners.sorted { $0.objectID.description < $1.objectID.description }
        }
    }

    package func batchUpsert(
        entityIndex: Int, rows: BatchRows, action: UpsertAction, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { database, result, previous throws(StrataError) in
            let entity = schema.entities[entityIndex]
            let kept = BatchRows.deduplicated(rows.values, keys: entity.uniqueKeyColumns, keepLast: action != .keep)
            guard !kept.isEmpty else { return }
            let firstKey = try database.reserveKeys(entityIndex, count: Int64(kept.count))
            let holders = kept.map { holder(of: rows.values[$0], entity: entity, in: database) }
            if action != .keep, options.historyTracking, options.recordsValueChanges {
                try previous.read(entityIndex: entityIndex, keys: Array(Set(holders.compactMap { $0 })), in: MemoryWriteExecutor(store: self, database: database))
            }
            let old = Dictionary(uniqueKeysWithValues: Set(holders.compactMap { $0 }).compactMap { key in
                database.row(entityIndex, key).map { (key, $0.values) }
            })
            let allColumns = schema.batchColumns(of: entity)
            // Rows that write the same columns go together, in the SQLite store's order.
            var byColumns: [[Int]: [Int]] = [:]
            for position in kept.indices {
                let written: [Int] = switch action {
                case .update(allColumns: true), .keep: allColumns
                case .update(allColumns: false):
                    rows.columnSets.isEmpty ? allColumns : rows.columnSets[rows.columnSetOfRow[kept[position]]]
                }
                byColumns[written, default: []].append(position)
            }
            var folded: [Int64: (inserted: Bool, version: Int64, values: [Int: StoredValue])] = [:]
            for written in byColumns.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                for position in byColumns[written]! {
                    let values = rows.values[kept[position]]
                    if let stored = holder(of: values, entity: entity, in: database) {
                        guard action != .keep, var row = database.row(entityIndex, stored) else { continue }
                        row.version += 1
                        for column in written { row.values[entity.columnOrdinals[column]] = values[column] }
                        try database.put(row, entityIndex: entityIndex, key: stored)
                        var entry = folded[stored] ?? (false, row.version, [:])
                        entry.version = row.version
                        for column in written { entry.values[column] = values[column] }
                        folded[stored] = entry
                    } else {
                        let key = firstKey + Int64(position)
                        try database.put(MemoryDatabase.Row(version: 1, values: byOrdinal(values, entity)), entityIndex: entityIndex, key: key)
                        var entry = folded[key] ?? (true, 1, [:])
                        for column in written { entry.values[column] = values[column] }
                        folded[key] = entry
                    }
                }
            }
            var owners: Set<ChangeSet.ToManyChange> = []
            for pk in folded.keys.sorted() {
                let entry = folded[pk]!
                let columns = entry.values.keys.sorted()
                result.primaryKeys.append(pk)
                let change = ChangeSet.Row(
                    objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: pk), entity: entity,
                    ordinals: columns.map { entity.columnOrdinals[$0] }, values: columns.map { entry.values[$0]! }, version: entry.version)
                if entry.inserted { result.changes.inserted.append(change) } else { result.changes.updated.append(change) }
                appendToOwners(
                    entityIndex: entityIndex, key: pk, columns: Set(columns), before: entry.inserted ? nil : old[pk],
                    in: database, owners: &owners)
            }
            result.changes.toManyChanges += owners.sorted { $0.objectID.description < $1.objectID.description }
        }
    }

    package func batchUpdate(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue], transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { database, result, previous throws(StrataError) in
            let entity = schema.entities[entityIndex]
            let keys = try Self.select(FetchPlan(entityIndex: entityIndex, predicate: predicate), in: database)
            if options.historyTracking, options.recordsValueChanges {
                try previous.read(entityIndex: entityIndex, keys: keys, in: MemoryWriteExecutor(store: self, database: database))
            }
            for key in keys {
                guard var row = database.row(entityIndex, key) else { continue }
                row.version += 1
                for (ordinal, value) in zip(ordinals, values) { row.values[ordinal] = value }
                try database.put(row, entityIndex: entityIndex, key: key)
                result.primaryKeys.append(key)
                result.changes.updated.append(ChangeSet.Row(
                    objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
                    entity: entity, ordinals: ordinals, values: values, version: row.version))
            }
        }
    }

    package func batchDelete(
        entityIndex: Int, selection: BatchDeleteSelection, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { database, result, previous throws(StrataError) in
            let roots: [Int64] = switch selection {
            case .matching(let predicate): try Self.select(FetchPlan(entityIndex: entityIndex, predicate: predicate), in: database)
            case .keys(let keys): Set(keys).filter { database.row(entityIndex, $0) != nil }.sorted()
            }
            result.primaryKeys = roots
            guard !roots.isEmpty else { return }
            let edges = ForeignKeyEdge.all(in: schema)
            // Everything the cascades reach, transitively.
            var doomed: [Int: Set<Int64>] = [entityIndex: Set(roots)]
            var queue = roots.map { (entityIndex, $0) }
            while let (parent, key) = queue.popLast() {
                for edge in edges where edge.rule == .cascade && edge.parentIndex == parent {
                    let column = MemoryDatabase.KeyColumn(entityIndex: edge.childIndex, ordinal: edge.ordinal)
                    for child in database.rows(pointingAt: key, from: column) where doomed[edge.childIndex, default: []].insert(child).inserted {
                        queue.append((edge.childIndex, child))
                    }
                }
            }
            for edge in edges where edge.rule == .deny && doomed[edge.parentIndex] != nil {
                let blockers = survivors(of: edge, doomed: doomed, in: database)
                guard !blockers.isEmpty else { continue }
                throw edge.denial(blockers: Array(blockers), in: schema, storeIdentifier: identifier)
            }
            result.changes.toManyChanges = survivingOwners(doomed: doomed, in: database)
            for doomedEntity in doomed.keys.sorted() {
                let entity = schema.entities[doomedEntity]
                let keys = doomed[doomedEntity]!.sorted()
                result.changes.deleted += keys.map { key in
                    deletedRow(entityIndex: entity.index, primaryKey: key)
                }
                if PreviousValues.needed(forDeleting: doomedEntity, schema: schema, options: options) {
                    try previous.read(entityIndex: doomedEntity, keys: keys, in: MemoryWriteExecutor(store: self, database: database))
                }
            }
            result.changes.updated = try nullify(edges.filter { $0.rule == .nullify && doomed[$0.parentIndex] != nil }, doomed: doomed, in: database)
            database.releaseDeniedKeys(among: doomed)
            for doomedEntity in doomed.keys.sorted() {
                for key in doomed[doomedEntity]!.sorted() { try database.delete(doomedEntity, key) }
            }
        }
    }

    // MARK: Helpers

    /// A row in column order, laid out by property ordinal.
    private func byOrdinal(_ values: [StoredValue], _ entity: EntityDescription) -> ContiguousArray<StoredValue> {
        var row = ContiguousArray<StoredValue>(repeating: .null, count: entity.properties.count)
        for (column, ordinal) in entity.columnOrdinals.enumerated() { row[ordinal] = values[column] }
        return row
    }

    /// The stored row holding one of the unique keys of `values` (column order), by constraint order.
    private func holder(of values: [StoredValue], entity: EntityDescription, in database: MemoryDatabase) -> Int64? {
        for (constraint, columns) in entity.uniqueKeyColumns.enumerated() {
            let key = columns.map { values[$0] }
            guard !key.contains(where: \.isNull) else { continue }
            if let holder = database.holder(of: key, constraint: constraint, entityIndex: entity.index) { return holder }
        }
        return nil
    }

    /// A new or moved member of an ordered one-to-many goes after its owner's
    /// other members; both owners' relationships are recorded.
    private func appendToOwners(
        entityIndex: Int, key: Int64, columns: Set<Int>?, before: ContiguousArray<StoredValue>?,
        in database: MemoryDatabase, owners: inout Set<ChangeSet.ToManyChange>
    ) {
        let entity = schema.entities[entityIndex]
        for ordinal in schema.orderedToOneOrdinals(of: entityIndex) {
            guard columns.map({ $0.contains(entity.columnIndexByOrdinal[ordinal]) }) ?? true,
                  let now = database.row(entityIndex, key)?.values[ordinal] else { continue }
            let previousOwner = before?[ordinal] ?? .null
            guard previousOwner != now else { continue }
            let ownerIndex = entity.destinationIndexByOrdinal[ordinal]
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            if case .integer(let owner) = previousOwner {
                owners.insert(toManyChange(entityIndex: ownerIndex, ordinal: inverse, primaryKey: owner))
            }
            guard case .integer(let owner) = now else { continue }
            database.appendPosition(entityIndex: entityIndex, key: key, ordinal: ordinal)
            owners.insert(toManyChange(entityIndex: ownerIndex, ordinal: inverse, primaryKey: owner))
        }
    }

    /// Rows that stay but point at a doomed row through an edge, ascending.
    private func survivors(of edge: ForeignKeyEdge, doomed: [Int: Set<Int64>], in database: MemoryDatabase) -> [Int64] {
        let column = MemoryDatabase.KeyColumn(entityIndex: edge.childIndex, ordinal: edge.ordinal)
        var result = Set<Int64>()
        for parent in doomed[edge.parentIndex] ?? [] {
            for child in database.rows(pointingAt: parent, from: column) where doomed[edge.childIndex]?.contains(child) != true {
                result.insert(child)
            }
        }
        return result.sorted()
    }

    /// Owners that stay but lose members: their to-many relationships change.
    private func survivingOwners(doomed: [Int: Set<Int64>], in database: MemoryDatabase) -> [ChangeSet.ToManyChange] {
        var changes: [ChangeSet.ToManyChange] = []
        for owner in schema.entities {
            for ordinal in owner.relationshipOrdinals {
                guard let shape = schema.toManyShape(entityIndex: owner.index, ordinal: ordinal),
                      let members = doomed[shape.destinationIndex] else { continue }
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
                for key in keys.sorted() where doomed[owner.index]?.contains(key) != true {
                    changes.append(toManyChange(entityIndex: owner.index, ordinal: ordinal, primaryKey: key))
                }
            }
        }
        return changes
    }

    /// Clears the keys that point at doomed rows, raising each surviving row's
    /// version, and returns those rows as updates.
    private func nullify(
        _ edges: [ForeignKeyEdge], doomed: [Int: Set<Int64>], in database: MemoryDatabase
    ) throws(StrataError) -> [ChangeSet.Row] {
        var rows: [ChangeSet.Row] = []
        var positions: [ObjectID: Int] = [:]
        for edge in edges {
            let entity = schema.entities[edge.childIndex]
            for key in survivors(of: edge, doomed: doomed, in: database) {
                guard var row = database.row(edge.childIndex, key) else { continue }
                row.values[edge.ordinal] = .null
                row.version += 1
                try database.put(row, entityIndex: edge.childIndex, key: key)
                let id = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key)
                if let position = positions[id] {
                    rows[position].ordinals.append(edge.ordinal)
                    rows[position].values.append(.null)
                    rows[position].version = row.version
                } else {
                    positions[id] = rows.count
                    rows.append(ChangeSet.Row(objectID: id, entity: entity, ordinals: [edge.ordinal], values: [.null], version: row.version))
                }
            }
        }
        return rows
    }
}
