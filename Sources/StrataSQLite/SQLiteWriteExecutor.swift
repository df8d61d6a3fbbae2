import StrataCore
import GRDB

/// Thrown inside the write closure so GRDB rolls the transaction back.
struct ConflictAbort: Error {
    let conflicts: StoreConflicts
}

/// The SQLite store's answers to a write's reads, on the write transaction's connection.
struct SQLiteWriteExecutor: StoreWriteExecutor {
    typealias Failure = any Error
    let store: SQLiteStore
    let db: Database

    var schema: Schema { store.schema }

    func readRows(entityIndex: Int, keys: [Int64], _ body: (StoredRow) -> Void) throws {
        try store.forEachRow(entityIndex: entityIndex, primaryKeys: keys, in: db) { body($0.stored()) }
    }

    func rowsHolding(
        entityIndex: Int, constraint: Int, columns: [Int], values: [StoredValue], _ body: (StoredRow) -> Void
    ) throws {
        let entity = store.layout.entities[entityIndex]
        let condition = columns.map { "t0.\(entity.columns[$0]) = ?" }.joined(separator: " AND ")
        let sql = "SELECT \(entity.selectList) FROM \(entity.table) AS t0 WHERE \(condition)"
        try store.forEachRow(entityIndex: entityIndex, sql: sql, arguments: values, in: db) { body($0.stored()) }
    }
}
