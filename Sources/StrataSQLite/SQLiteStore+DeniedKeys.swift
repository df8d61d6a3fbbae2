import StrataCore
import StrataSQL
import GRDB

// Rows that go together may point at each other through a `.deny` rule (a
// folder deleted with the folder inside it). SQLite's `RESTRICT` fires as each
// row goes, not when the statement ends, so whichever row went first would
// fail. Strata checks `.deny` rules against the rows that stay before it
// deletes; the keys the going rows hold on each other are cleared first.

extension SQLiteStore {
    /// Clears the `.deny`-guarded keys that rows of ``doomedTable`` hold on
    /// other rows of it. The rows go in the same transaction, so no one sees
    /// the cleared keys; their versions are left as they are.
    func releaseDeniedKeys(_ edges: [ForeignKeyEdge], in db: Database) throws {
        for edge in edges {
            let statement = RawStatement(try db.cachedStatement(sql: """
                UPDATE \(layout.entities[edge.childIndex].table) SET \(edge.column) = NULL \
                WHERE pk IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = ?1) \
                AND \(edge.column) IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = ?2)
                """), in: db)
            statement.reset()
            try statement.bind(.integer(Int64(edge.childIndex)), at: 1)
            try statement.bind(.integer(Int64(edge.parentIndex)), at: 2)
            try statement.execute()
        }
    }

    /// The scratch table of ``doomedTable``, empty.
    func createDoomedTable(in db: Database) throws {
        try db.execute(sql: """
            CREATE TEMP TABLE IF NOT EXISTS _strata_batch_doomed (
            entity INTEGER NOT NULL, pk INTEGER NOT NULL, PRIMARY KEY (entity, pk)) WITHOUT ROWID
            """)
        try db.execute(sql: "DELETE FROM \(Self.doomedTable)")
    }
}

extension SQLiteWriteExecutor {
    /// The rows a save deletes go into the scratch table, for the edges' updates to read.
    func releaseDeniedKeys(_ edges: [ForeignKeyEdge], among deletes: [RowDelete]) throws {
        try store.createDoomedTable(in: db)
        let involved = Set(edges.flatMap { [$0.childIndex, $0.parentIndex] })
        let insert = RawStatement(
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(SQLiteStore.doomedTable) (entity, pk) VALUES (?, ?)"), in: db)
        for delete in deletes where involved.contains(delete.entityIndex) {
            insert.reset()
            try insert.bind(.integer(Int64(delete.entityIndex)), at: 1)
            try insert.bind(.integer(delete.primaryKey), at: 2)
            try insert.execute()
        }
        try store.releaseDeniedKeys(edges, in: db)
        try db.execute(sql: "DELETE FROM \(SQLiteStore.doomedTable)")
    }
}
