import StrataCore
import StrataSQL

extension PostgresStore {
    /// Runs a batch request in one transaction under the write lock, then
    /// records its history, announces it and tells this process's observers.
    func runBatch(
        _ transaction: BatchTransaction,
        _ body: (PostgresSession, inout BatchWriteResult, inout PreviousValues) throws(StrataError) -> Void
    ) throws(StrataError) -> BatchWriteResult {
        if isReadOnly { throw StrataError(.readOnlyStore, "The store is read-only; the batch operation wrote nothing") }
        let changes = changeSet(author: transaction.author, contextName: transaction.contextName, origin: transaction.origin)
        let result = try write { session throws(StrataError) -> BatchWriteResult in
            var result = BatchWriteResult(changes: changes)
            var previous = PreviousValues()
            try body(session, &result, &previous)
            result.changes.historyToken = try recordHistory(of: result.changes, previous: previous, in: session)
            if result.changes.historyToken == nil { try announce(nil, in: session) }
            return result
        }
        didCommit(result.changes)
        return result
    }

    /// Inserts rows of one entity (values in column order) with keys from the
    /// store's sequence; a taken unique key fails the whole batch. New members
    /// of an ordered one-to-many go after their owner's other members.
    func batchInsert(entityIndex: Int, rows: [[StoredValue]], transaction: BatchTransaction) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { session, result, _ throws(StrataError) in
            guard !rows.isEmpty else { return }
            let entity = schema.entities[entityIndex]
            let first = try reserveKeyBlock(entityIndex: entityIndex, count: Int64(rows.count), in: session)
            let newKeys = rows.indices.map { first + Int64($0) }
            result.primaryKeys += newKeys
            for (key, values) in zip(newKeys, rows) {
                result.changes.inserted.append(ChangeSet.Row(
                    objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
                    entity: entity, ordinals: entity.columnOrdinals, values: values, version: 1))
            }
            try insertRows(keys: newKeys, rows: rows, entityIndex: entityIndex, in: session)
            let keys = PostgresArgument.keys(result.primaryKeys)
            for owner in orderedOwners(of: entityIndex) {
                let column = layout.entities[entityIndex].columns[owner.column]
                let table = layout.entities[entityIndex].table
                try session.execute("""
                    UPDATE \(table) AS t SET \(owner.position) = n.position FROM (
                        SELECT m.pk, COALESCE((SELECT MAX(x.\(owner.position)) FROM \(table) AS x
                            WHERE x.\(column) = m.\(column) AND NOT x.pk = ANY($1)), -1)
                            + ROW_NUMBER() OVER (PARTITION BY m.\(column) ORDER BY m.pk) AS position
                        FROM \(table) AS m WHERE m.pk = ANY($1) AND m.\(column) IS NOT NULL) AS n
                    WHERE t.pk = n.pk
                    """, arguments: [keys])
                var seen = Set<Int64>()
                for values in rows {
                    guard case .integer(let key) = values[owner.column], seen.insert(key).inserted else { continue }
                    let ownerEntity = schema.entities[owner.entityIndex]
                    result.changes.toManyChanges.append(ChangeSet.ToManyChange(
                        objectID: ObjectID(entityName: ownerEntity.name, storeIdentifier: identifier, primaryKey: key),
                        relationshipName: ownerEntity.properties[owner.ordinal].name, entityIndex: owner.entityIndex,
                        ordinal: owner.ordinal))
                }
            }
        }
    }

    /// The to-one columns of an entity whose inverse is an ordered one-to-many:
    /// the column, its position column, and the owner's relationship.
    func orderedOwners(of entityIndex: Int) -> [(column: Int, position: String, entityIndex: Int, ordinal: Int)] {
        var owners: [(column: Int, position: String, entityIndex: Int, ordinal: Int)] = []
        for ownerEntity in schema.entities {
            for (ordinal, storage) in layout.toMany[ownerEntity.index].enumerated() {
                guard case .foreignKey(let destinationIndex, _, let position)? = storage, destinationIndex == entityIndex else { continue }
                let inverse = ownerEntity.inverseOrdinalByOrdinal[ordinal]
                let column = schema.entities[entityIndex].columnIndexByOrdinal[inverse]
                owners.append((column, position, ownerEntity.index, ordinal))
            }
        }
        return owners
    }

    /// Sets attributes of every row matching a condition (nil: every row), one statement.
    func batchUpdate(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue], transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        var renderer = PostgresQueryRenderer(layout: layout)
        let entity = schema.entities[entityIndex]
        let columns = ordinals.map { entity.columnIndexByOrdinal[$0] }
        // The new values first ($1…), then the condition's.
        var assignments = ["\(StorageNaming.versionColumn) = t0.\(StorageNaming.versionColumn) + 1"]
        let table = layout.entities[entityIndex]
        for (column, value) in zip(columns, values) {
            assignments.append("\(table.columns[column]) = \(renderer.bind(value))")
            if let folded = table.foldedColumns[column] { assignments.append("\(folded) = \(renderer.bind(PostgresLayout.folded(value)))") }
        }
        let condition = try predicate.map { predicate throws(StrataError) in try renderer.condition(predicate) }
        let arguments = renderer.arguments
        // The same condition on its own, for reading the rows before they change.
        var selectRenderer = PostgresQueryRenderer(layout: layout)
        let selectCondition = try predicate.map { predicate throws(StrataError) in try selectRenderer.condition(predicate) }
        let selectArguments = selectRenderer.arguments
        return try runBatch(transaction) { session, result, previous throws(StrataError) in
            if options.historyTracking, options.recordsValueChanges {
                // History records old values: read the matching rows before they change.
                var select = "SELECT t0.pk FROM \(table.table) AS t0"
                if let selectCondition { select += " WHERE \(selectCondition)" }
                let keys = try integers(select, selectArguments, in: session)
                var rows: [Int64: ContiguousArray<StoredValue>] = [:]
                try fetchRows(entityIndex: entityIndex, primaryKeys: keys, in: session) { cursor, _ in rows[cursor.primaryKey] = cursor.decodeValues() }
                previous.rows[entityIndex] = rows
            }
            var sql = "UPDATE \(table.table) AS t0 SET \(assignments.joined(separator: ", "))"
            if let condition { sql += " WHERE \(condition)" }
            sql += " RETURNING t0.pk, t0.\(StorageNaming.versionColumn)"
            var updated: [(Int64, Int64)] = []
            for row in try session.rows(sql, arguments) {
                var cells = row.makeIterator()
                guard let key = try cells.next().flatMap({ cell throws(StrataError) in try PostgresSession.integer(cell) }),
                      let version = try cells.next().flatMap({ cell throws(StrataError) in try PostgresSession.integer(cell) })
                else { continue }
                updated.append((key, version))
            }
            updated.sort { $0.0 < $1.0 }
            for (key, version) in updated {
                result.primaryKeys.append(key)
                result.changes.updated.append(ChangeSet.Row(
                    objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
                    entity: entity, ordinals: ordinals, values: values, version: version))
            }
        }
    }

    /// Puts a member of an ordered one-to-many after its owner's other members.
    func appendMember(_ member: Int64, to owner: Int64, column: String, position: String, table: String, in session: PostgresSession) throws(StrataError) {
        try session.execute("""
            UPDATE \(table) SET \(position) = (SELECT COALESCE(MAX(x.\(position)) + 1, 0) FROM \(table) AS x
            WHERE x.\(column) = $1 AND x.pk <> $2) WHERE pk = $2
            """, [.integer(owner), .integer(member)])
    }

}
