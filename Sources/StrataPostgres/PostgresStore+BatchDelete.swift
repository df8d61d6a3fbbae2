import StrataCore
import StrataSQL

extension PostgresStore {
    /// The scratch table of one batch delete: every row it will remove. A
    /// temporary table of the connection, emptied when the transaction ends.
    static let doomedTable = "pg_temp._strata_batch_doomed"

    /// Deletes rows of one entity and everything their cascade rules reach, in
    /// one transaction, reporting the exact effect (see ``BatchDeleteWriter``).
    func batchDelete(
        entityIndex: Int, selection: BatchDeleteSelection, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { session, result, previous throws(StrataError) in
            try BatchDeleteWriter.delete(
                entityIndex: entityIndex, selection: selection, of: self, into: &result, previous: &previous,
                in: PostgresWriteExecutor(store: self, session: session))
        }
    }
}

/// A batch delete's marked rows on the PostgreSQL store: the temporary table
/// ``PostgresStore/doomedTable``.
extension PostgresWriteExecutor: BatchDeleteExecutor {
    private var doomed: String { PostgresStore.doomedTable }

    private func column(of edge: ForeignKeyEdge) -> String {
        quote(store.schema.entities[edge.childIndex].properties[edge.ordinal].name)
    }

    func markRoots(entityIndex: Int, selection: BatchDeleteSelection) throws(StrataError) -> [Int64] {
        try session.execute("""
            CREATE TEMP TABLE IF NOT EXISTS _strata_batch_doomed (entity BIGINT NOT NULL, pk BIGINT NOT NULL, \
            PRIMARY KEY (entity, pk)) ON COMMIT DELETE ROWS
            """)
        try session.execute("DELETE FROM \(doomed)")
        let table = store.layout.entities[entityIndex].table
        switch selection {
        case .matching(let predicate):
            // The entity index is $1; the condition's values follow.
            var renderer = PostgresQueryRenderer(layout: store.layout, arguments: [.integer(Int64(entityIndex))])
            let condition = try predicate.map { predicate throws(StrataError) in try renderer.condition(predicate).sql }
            let sql = "INSERT INTO \(doomed) (entity, pk) SELECT $1, t0.pk FROM \(table) AS t0" + (condition.map { " WHERE \($0)" } ?? "")
            try session.execute(sql, renderer.arguments)
        case .keys(let keys):
            try session.execute(
                "INSERT INTO \(doomed) (entity, pk) SELECT $1, pk FROM \(table) WHERE pk = ANY($2) ON CONFLICT DO NOTHING",
                arguments: [.integer(Int64(entityIndex)), .keys(keys)])
        }
        return try store.integers(
            "SELECT pk FROM \(doomed) WHERE entity = $1 ORDER BY pk", [.integer(Int64(entityIndex))], in: session)
    }

    /// One step at a time until a step adds nothing.
    func markCascades(_ edges: [ForeignKeyEdge]) throws(StrataError) {
        var added = !edges.isEmpty
        while added {
            added = false
            for edge in edges {
                let count = try session.execute("""
                    INSERT INTO \(doomed) (entity, pk) SELECT $1, t.pk FROM \(store.layout.entities[edge.childIndex].table) AS t
                    WHERE t.\(column(of: edge)) IN (SELECT pk FROM \(doomed) WHERE entity = $2) ON CONFLICT DO NOTHING
                    """, [.integer(Int64(edge.childIndex)), .integer(Int64(edge.parentIndex))])
                if count > 0 { added = true }
            }
        }
    }

    func markedKeys() throws(StrataError) -> [Int: [Int64]] {
        var keys: [Int: [Int64]] = [:]
        for (entity, key) in try PostgresSession.integerPairs(try session.rows("SELECT entity, pk FROM \(doomed) ORDER BY entity, pk")) {
            keys[Int(entity), default: []].append(key)
        }
        return keys
    }

    /// Rows that survive the delete but reference a marked row through an edge
    /// (`$1` the parent's entity index, `$2` the child's).
    private func survivorsSQL(_ edge: ForeignKeyEdge) -> String {
        """
        SELECT t.pk FROM \(store.layout.entities[edge.childIndex].table) AS t \
        WHERE t.\(column(of: edge)) IN (SELECT pk FROM \(doomed) WHERE entity = $1) \
        AND t.pk NOT IN (SELECT pk FROM \(doomed) WHERE entity = $2)
        """
    }

    func survivors(of edge: ForeignKeyEdge, limit: Int) throws(StrataError) -> [Int64] {
        try store.integers(
            survivorsSQL(edge) + " ORDER BY t.pk LIMIT \(limit)",
            [.integer(Int64(edge.parentIndex)), .integer(Int64(edge.childIndex))], in: session)
    }

    func ownersLosingMembers(entityIndex: Int, ordinal: Int) throws(StrataError) -> [Int64] {
        let sql: String
        let destinationIndex: Int
        switch store.layout.toMany[entityIndex][ordinal] {
        case .foreignKey(let destination, let foreignKey, _)?:
            destinationIndex = destination
            sql = "SELECT DISTINCT t.\(foreignKey) FROM \(doomed) AS d JOIN \(store.layout.entities[destination].table) AS t "
                + "ON t.pk = d.pk WHERE d.entity = $1 AND t.\(foreignKey) IS NOT NULL"
        case .joinTable(let destination, _, let join)?:
            destinationIndex = destination
            sql = "SELECT DISTINCT j.\(join.owner) FROM \(doomed) AS d JOIN \(join.table) AS j ON j.\(join.member) = d.pk WHERE d.entity = $1"
        case nil:
            return []
        }
        return try store.integers(sql, [.integer(Int64(destinationIndex))], in: session)
    }

    func nullifySurvivors(of edge: ForeignKeyEdge) throws(StrataError) -> [(primaryKey: Int64, version: Int64)] {
        let version = StorageNaming.versionColumn
        let sql = "UPDATE \(store.layout.entities[edge.childIndex].table) SET \(column(of: edge)) = NULL, \(version) = \(version) + 1 "
            + "WHERE pk IN (\(survivorsSQL(edge))) RETURNING pk, \(version)"
        let rows = try session.rows(sql, [.integer(Int64(edge.parentIndex)), .integer(Int64(edge.childIndex))])
        return try PostgresSession.integerPairs(rows).map { ($0, $1) }
    }

    func releaseDeniedKeysAmongMarked(_ edges: [ForeignKeyEdge]) throws(StrataError) {
        for edge in edges {
            try session.execute("""
                UPDATE \(store.layout.entities[edge.childIndex].table) SET \(edge.column) = NULL \
                WHERE pk IN (SELECT pk FROM \(doomed) WHERE entity = $1) \
                AND \(edge.column) IN (SELECT pk FROM \(doomed) WHERE entity = $2)
                """, [.integer(Int64(edge.childIndex)), .integer(Int64(edge.parentIndex))])
        }
    }

    func deleteMarked(entityIndex: Int) throws(StrataError) {
        try session.execute(
            "DELETE FROM \(store.layout.entities[entityIndex].table) WHERE pk IN (SELECT pk FROM \(doomed) WHERE entity = $1)",
            [.integer(Int64(entityIndex))])
    }
}
