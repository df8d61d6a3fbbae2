import StrataCore
import StrataSQL
import GRDB

extension SQLiteStore {
    /// The scratch table of one batch delete: every row it will remove, by
    /// entity index and primary key. Lives in the writer connection's temp schema.
    static let doomedTable = "temp._strata_batch_doomed"

    /// Deletes rows of one entity, and everything their cascade rules reach, in
    /// one transaction, reporting the exact effect (see ``BatchDeleteWriter``).
    /// The rows that go are found with one recursive query over the
    /// `ON DELETE CASCADE` foreign keys.
    func batchDelete(
        entityIndex: Int, selection: BatchDeleteSelection, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { db, result, previous in
            try BatchDeleteWriter.delete(
                entityIndex: entityIndex, selection: selection, of: self, into: &result, previous: &previous,
                in: SQLiteWriteExecutor(store: self, db: db))
            try db.execute(sql: "DELETE FROM \(Self.doomedTable)")
        }
    }
}

/// A batch delete's marked rows on the SQLite store: the scratch table
/// ``SQLiteStore/doomedTable``.
extension SQLiteWriteExecutor: BatchDeleteExecutor {
    private var doomed: String { SQLiteStore.doomedTable }

    func markRoots(entityIndex: Int, selection: BatchDeleteSelection) throws -> [Int64] {
        try store.createDoomedTable(in: db)
        let table = store.layout.entities[entityIndex].table
        switch selection {
        case .matching(let predicate):
            var renderer = SQLiteQueryRenderer(schema: store.schema, layout: store.layout)
            let condition = predicate.map { renderer.condition($0).fragment }
            var sql = "INSERT OR IGNORE INTO \(doomed) (entity, pk) SELECT ?, t0.pk FROM \(table) AS t0"
            if let condition { sql += " WHERE \(condition.sql)" }
            let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
            statement.reset()
            try statement.bind(.integer(Int64(entityIndex)), at: 1)
            try statement.bind(condition?.arguments ?? [], startingAt: 2)
            try statement.execute()
        case .keys(let keys):
            // One cached statement per key: no IN list, and keys without a row drop out.
            let statement = RawStatement(try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO \(doomed) (entity, pk) SELECT ?1, pk FROM \(table) WHERE pk = ?2"), in: db)
            for key in keys {
                statement.reset()
                try statement.bind(.integer(Int64(entityIndex)), at: 1)
                try statement.bind(.integer(key), at: 2)
                try statement.execute()
            }
        }
        return try store.integers("SELECT pk FROM \(doomed) WHERE entity = ? ORDER BY pk", [.integer(Int64(entityIndex))], in: db)
    }

    /// One recursive query (`UNION` drops rows already found, so cycles end).
    func markCascades(_ edges: [ForeignKeyEdge]) throws {
        guard !edges.isEmpty else { return }
        // Entity indices are schema positions, not user values.
        let steps = edges.map { edge in
            "SELECT \(edge.childIndex), t.pk FROM closure JOIN \(store.layout.entities[edge.childIndex].table) AS t "
                + "ON t.\(edge.column) = closure.pk WHERE closure.entity = \(edge.parentIndex)"
        }
        let sql = "WITH RECURSIVE closure(entity, pk) AS (SELECT entity, pk FROM \(doomed) UNION "
            + steps.joined(separator: " UNION ")
            + ") INSERT OR IGNORE INTO \(doomed) (entity, pk) SELECT entity, pk FROM closure"
        try RawStatement(try db.cachedStatement(sql: sql), in: db).execute()
    }

    func markedKeys() throws -> [Int: [Int64]] {
        let statement = RawStatement(try db.cachedStatement(sql: "SELECT entity, pk FROM \(doomed) ORDER BY entity, pk"), in: db)
        statement.reset()
        defer { statement.reset() }
        var keys: [Int: [Int64]] = [:]
        while try statement.step() { keys[Int(statement.int64(at: 0)), default: []].append(statement.int64(at: 1)) }
        return keys
    }

    /// Rows that survive the delete but reference a marked row through an edge.
    private func survivorsSQL(_ edge: ForeignKeyEdge) -> String {
        """
        SELECT t.pk FROM \(store.layout.entities[edge.childIndex].table) AS t \
        WHERE t.\(edge.column) IN (SELECT pk FROM \(doomed) WHERE entity = ?1) \
        AND t.pk NOT IN (SELECT pk FROM \(doomed) WHERE entity = ?2)
        """
    }

    func survivors(of edge: ForeignKeyEdge, limit: Int) throws -> [Int64] {
        try store.integers(
            survivorsSQL(edge) + " ORDER BY t.pk LIMIT \(limit)",
            [.integer(Int64(edge.parentIndex)), .integer(Int64(edge.childIndex))], in: db)
    }

    func ownersLosingMembers(entityIndex: Int, ordinal: Int) throws -> [Int64] {
        guard let storage = store.layout.relationships.toMany[entityIndex][ordinal] else { return [] }
        let owner = store.schema.entities[entityIndex]
        let sql: String
        switch storage {
        case .foreignKey:
            let column = quote(store.schema.entities[storage.destinationIndex].properties[owner.inverseOrdinalByOrdinal[ordinal]].name)
            sql = "SELECT DISTINCT t.\(column) FROM \(doomed) AS d JOIN \(store.layout.entities[storage.destinationIndex].table) AS t "
                + "ON t.pk = d.pk WHERE d.entity = ? AND t.\(column) IS NOT NULL"
        case .joinTable:
            guard let join = StorageNaming.joinTable(of: owner, ordinal: ordinal, in: store.schema) else { return [] }
            sql = "SELECT DISTINCT j.\(quote(join.owner)) FROM \(doomed) AS d JOIN \(quote(join.table)) AS j "
                + "ON j.\(quote(join.member)) = d.pk WHERE d.entity = ?"
        }
        return try store.integers(sql, [.integer(Int64(storage.destinationIndex))], in: db)
    }

    func nullifySurvivors(of edge: ForeignKeyEdge) throws -> [(primaryKey: Int64, version: Int64)] {
        let version = StorageNaming.versionColumn
        let statement = RawStatement(try db.cachedStatement(sql: """
            UPDATE \(store.layout.entities[edge.childIndex].table) SET \(edge.column) = NULL, \(version) = \(StoreLayout.nextVersionSQL) \
            WHERE pk IN (\(survivorsSQL(edge))) RETURNING pk, \(version)
            """), in: db)
        statement.reset()
        defer { statement.reset() }
        try statement.bind(.integer(Int64(edge.parentIndex)), at: 1)
        try statement.bind(.integer(Int64(edge.childIndex)), at: 2)
        var rows: [(primaryKey: Int64, version: Int64)] = []
        while try statement.step() { rows.append((statement.int64(at: 0), statement.int64(at: 1))) }
        return rows
    }

    func releaseDeniedKeysAmongMarked(_ edges: [ForeignKeyEdge]) throws {
        try store.releaseDeniedKeys(edges, in: db)
    }

    func deleteMarked(entityIndex: Int) throws {
        let delete = RawStatement(try db.cachedStatement(sql: """
            DELETE FROM \(store.layout.entities[entityIndex].table) WHERE pk IN (SELECT pk FROM \(doomed) WHERE entity = ?)
            """), in: db)
        delete.reset()
        try delete.bind(.integer(Int64(entityIndex)), at: 1)
        try delete.execute()
    }
}
