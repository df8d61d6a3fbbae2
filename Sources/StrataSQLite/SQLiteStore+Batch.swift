import StrataCore
import StrataSQL
import GRDB

extension SQLiteStore {
    /// Runs one batch operation as one write transaction: the body writes and
    /// fills in the change set (and, before it changes rows, the old values
    /// history needs), history is recorded in the same transaction, and
    /// observers receive the change set after the commit, as with a save.
    /// When anything throws, nothing is written.
    func runBatch(
        _ transaction: BatchTransaction, _ body: (Database, inout BatchWriteResult, inout PreviousValues) throws -> Void
    ) throws(StrataError) -> BatchWriteResult {
        if isReadOnly {
            throw StrataError(.readOnlyStore, "The store is read-only; the batch operation wrote nothing")
        }
        let changes = changeSet(author: transaction.author, contextName: transaction.contextName, origin: transaction.origin)
        let result: BatchWriteResult
        do {
            result = try writer.write { db in
                try db.holdingConnectionMutex {
                    var result = BatchWriteResult(changes: changes)
                    var previous = PreviousValues()
                    try body(db, &result, &previous)
                    result.changes.historyToken = try recordHistory(of: result.changes, previous: previous, in: db)
                    return result
                }
            }
        } catch {
            throw Self.translate(error)
        }
        didCommit(result.changes)
        return result
    }

    /// Inserts rows of one entity with keys from the store's sequence, in one
    /// transaction. `rows` hold values in the entity's column order; foreign keys
    /// must name stored rows (checked by SQLite at commit).
    func batchInsert(
        entityIndex: Int, rows: [[StoredValue]], transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { db, result, _ in
            guard !rows.isEmpty else { return }
            let entity = schema.entities[entityIndex]
            var inserts: [RowInsert] = []
            inserts.reserveCapacity(rows.count)
            for (index, values) in rows.enumerated() {
                inserts.append(RowInsert(
                    entityIndex: entityIndex, temporaryKey: UInt64(index), values: values, pendingReferences: []))
            }
            let keys = try reservePrimaryKeys(for: inserts, in: db)
            let insert = RawStatement(try db.cachedStatement(sql: layout.entities[entityIndex].insertSQL), in: db)
            let ordered = orderedToOneColumns(of: entityIndex)
            var owners: Set<ChangeSet.ToManyChange> = []
            result.changes.inserted.reserveCapacity(rows.count)
            result.primaryKeys.reserveCapacity(rows.count)
            for (index, values) in rows.enumerated() {
                let key = keys[UInt64(index)]!
                insert.reset()
                try insert.bind(.integer(key), at: 1)
                try insert.bind(values, startingAt: 2)
                try insert.execute()
                // A new member of an ordered one-to-many goes after its owner's other members.
                for column in ordered {
                    guard case .integer(let owner) = values[column.column] else { continue }
                    let append = RawStatement(try db.cachedStatement(sql: column.appendSQL), in: db)
                    append.reset()
                    try append.bind(.integer(owner), at: 1)
                    try append.bind(.integer(key), at: 2)
                    try append.execute()
                    owners.insert(toManyChange(entityIndex: column.ownerIndex, ordinal: column.ownerOrdinal, primaryKey: owner))
                }
                result.primaryKeys.append(key)
                result.changes.inserted.append(ChangeSet.Row(
                    objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
                    entity: entity, ordinals: entity.columnOrdinals, values: values, version: 1))
            }
            result.changes.toManyChanges += owners.sorted { $0.objectID.description < $1.objectID.description }
        }
    }

    /// Sets attribute columns of every row matching a condition (nil: all
    /// rows), bumping each row's version, in one transaction.
    func batchUpdate(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue],
        transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        var renderer = SQLiteQueryRenderer(schema: schema, layout: layout)
        let condition = predicate.map { renderer.render($0).fragment }
        let whereSQL = condition?.sql
        let arguments = condition?.arguments ?? []
        return try runBatch(transaction) { db, result, previous in
            let entity = schema.entities[entityIndex]
            let table = layout.entities[entityIndex]
            let version = StorageNaming.versionColumn
            if options.historyTracking, options.recordsValueChanges {
                // History records old values: read the matching rows before they change.
                var select = "SELECT t0.pk FROM \(table.table) AS t0"
                if let whereSQL { select += " WHERE \(whereSQL)" }
                let keys = try integers(select, arguments, in: db)
                try capturePreviousValues(entityIndex: entityIndex, primaryKeys: keys, into: &previous, in: db)
            }
            let assignments = ["\(version) = \(StoreLayout.nextVersionSQL)"]
                + ordinals.map { "\(table.columns[entity.columnIndexByOrdinal[$0]]) = ?" }
            var sql = "UPDATE \(table.table) AS t0 SET \(assignments.joined(separator: ", "))"
            if let whereSQL { sql += " WHERE \(whereSQL)" }
            sql += " RETURNING pk, \(version)"
            let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
            statement.reset()
            defer { statement.reset() }
            try statement.bind(values)
            try statement.bind(arguments, startingAt: Int32(values.count + 1))
            while try statement.step() {
                let key = statement.int64(at: 0)
                result.primaryKeys.append(key)
                result.changes.updated.append(ChangeSet.Row(
                    objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
                    entity: entity, ordinals: ordinals, values: values, version: statement.int64(at: 1)))
            }
            result.primaryKeys.sort()
            result.changes.updated.sort { $0.objectID.primaryKey! < $1.objectID.primaryKey! }
        }
    }


    /// The to-one columns of an entity whose inverse is an ordered one-to-many,
    /// with the statement that appends a member to its owner's order.
    func orderedToOneColumns(of entityIndex: Int) -> [OrderedToOneColumn] {
        let entity = schema.entities[entityIndex]
        return entity.columnOrdinals.enumerated().compactMap { column, ordinal in
            guard entity.relationship(at: ordinal) != nil else { return nil }
            let owner = entity.destinationIndexByOrdinal[ordinal]
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            guard owner >= 0, inverse >= 0,
                  case .foreignKey(let storage) = layout.relationships.toMany[owner][inverse] else { return nil }
            return OrderedToOneColumn(column: column, appendSQL: storage.appendSQL, ownerIndex: owner, ownerOrdinal: inverse)
        }
    }
}

/// A foreign-key column whose inverse is an ordered one-to-many.
struct OrderedToOneColumn {
    /// The column's index in the entity's column order.
    var column: Int
    /// Puts row `?2` after the other members of owner `?1`.
    var appendSQL: String
    /// The owner's entity index and its to-many's ordinal.
    var ownerIndex: Int
    var ownerOrdinal: Int
}
