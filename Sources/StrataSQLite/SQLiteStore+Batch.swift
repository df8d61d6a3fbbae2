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

    /// Inserts rows of one entity (see ``BatchWriter``); foreign keys must
    /// name stored rows (checked by SQLite at commit).
    func batchInsert(
        entityIndex: Int, rows: [[StoredValue]], transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { db, result, _ in
            try BatchWriter.insert(
                entityIndex: entityIndex, rows: rows, of: self, into: &result, in: SQLiteWriteExecutor(store: self, db: db))
        }
    }

    /// Sets attribute columns of every row matching a condition (nil: all
    /// rows), bumping each row's version, in one transaction.
    func batchUpdate(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue],
        transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { db, result, previous in
            try BatchWriter.update(
                entityIndex: entityIndex, predicate: predicate, ordinals: ordinals, values: values, of: self,
                into: &result, previous: &previous, in: SQLiteWriteExecutor(store: self, db: db))
        }
    }
}

/// Batch writes on the SQLite store: one statement over the matching rows.
extension SQLiteWriteExecutor: BatchWriteExecutor {
    private func condition(_ predicate: StoreExpression?) -> SQLFragment? {
        var renderer = SQLiteQueryRenderer(schema: store.schema, layout: store.layout)
        return predicate.map { renderer.condition($0).fragment }
    }

    func keysMatching(entityIndex: Int, predicate: StoreExpression?) throws -> [Int64] {
        let condition = condition(predicate)
        var select = "SELECT t0.pk FROM \(store.layout.entities[entityIndex].table) AS t0"
        if let condition { select += " WHERE \(condition.sql)" }
        return try store.integers(select, condition?.arguments ?? [], in: db)
    }

    func updateMatching(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue]
    ) throws -> [(primaryKey: Int64, version: Int64)] {
        let entity = store.schema.entities[entityIndex]
        let table = store.layout.entities[entityIndex]
        let version = StorageNaming.versionColumn
        let condition = condition(predicate)
        let assignments = ["\(version) = \(StoreLayout.nextVersionSQL)"]
            + ordinals.map { "\(table.columns[entity.columnIndexByOrdinal[$0]]) = ?" }
        var sql = "UPDATE \(table.table) AS t0 SET \(assignments.joined(separator: ", "))"
        if let condition { sql += " WHERE \(condition.sql)" }
        sql += " RETURNING pk, \(version)"
        let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
        statement.reset()
        defer { statement.reset() }
        try statement.bind(values)
        try statement.bind(condition?.arguments ?? [], startingAt: Int32(values.count + 1))
        var updated: [(primaryKey: Int64, version: Int64)] = []
        while try statement.step() { updated.append((statement.int64(at: 0), statement.int64(at: 1))) }
        return updated
    }
}
