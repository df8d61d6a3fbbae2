import StrataCore
import StrataSQL

extension PostgresStore {
    /// The scratch table of one batch delete: every row it will remove. A
    /// temporary table of the connection, emptied when the transaction ends.
    static let doomedTable = "pg_temp._strata_batch_doomed"

    /// Deletes rows of one entity and everything their cascade rules reach, in
    /// one transaction, reporting the exact effect, as the SQLite store does:
    /// the rows that will go are found first; a `.deny` rule that still
    /// protects one fails with `.validation` and deletes nothing; foreign keys
    /// pointing at them from surviving rows are cleared (updates); owners that
    /// survive and lose members are listed in `toManyChanges`.
    func batchDelete(
        entityIndex: Int, selection: BatchDeleteSelection, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        var condition: (sql: String, arguments: [StoredValue])?
        if case .matching(let predicate?) = selection {
            // The entity index is $1; the condition's values follow.
            var renderer = PostgresQueryRenderer(layout: layout, arguments: [.integer(Int64(entityIndex))])
            condition = (try renderer.condition(predicate), renderer.arguments)
        }
        return try runBatch(transaction) { session, result, previous throws(StrataError) in
            try session.execute("""
                CREATE TEMP TABLE IF NOT EXISTS _strata_batch_doomed (entity BIGINT NOT NULL, pk BIGINT NOT NULL, \
                PRIMARY KEY (entity, pk)) ON COMMIT DELETE ROWS
                """)
            try session.execute("DELETE FROM \(Self.doomedTable)")
            let table = layout.entities[entityIndex].table
            switch selection {
            case .matching:
                let sql = "INSERT INTO \(Self.doomedTable) (entity, pk) SELECT $1, t0.pk FROM \(table) AS t0"
                    + (condition.map { " WHERE \($0.sql)" } ?? "")
                try session.execute(sql, condition?.arguments ?? [.integer(Int64(entityIndex))])
            case .keys(let keys):
                try session.execute(
                    "INSERT INTO \(Self.doomedTable) (entity, pk) SELECT $1, pk FROM \(table) WHERE pk = ANY($2) ON CONFLICT DO NOTHING",
                    arguments: [.integer(Int64(entityIndex)), .keys(keys)])
            }
            result.primaryKeys = try doomedKeys(of: entityIndex, in: session)
            guard !result.primaryKeys.isEmpty else { return }
            let edges = ForeignKeyEdge.all(in: schema)
            try addCascades(edges.filter { $0.rule == .cascade }, in: session)
            let doomed = Set(try integers("SELECT DISTINCT entity FROM \(Self.doomedTable)", [], in: session).map { Int($0) })
            for edge in edges where edge.rule == .deny && doomed.contains(edge.parentIndex) {
                try checkDenied(edge, in: session)
            }
            result.changes.toManyChanges = try survivingOwners(of: doomed, in: session)
            for doomedIndex in doomed.sorted() {
                let keys = try doomedKeys(of: doomedIndex, in: session)
                let entity = schema.entities[doomedIndex]
                result.changes.deleted += keys.map { key in
                    deletedRow(entityIndex: entity.index, primaryKey: key)
                }
                if PreviousValues.needed(forDeleting: doomedIndex, schema: schema, options: options) {
                    try previous.read(entityIndex: doomedIndex, keys: keys, in: PostgresWriteExecutor(store: self, session: session))
                }
            }
            result.changes.updated = try nullify(edges.filter { $0.rule == .nullify && doomed.contains($0.parentIndex) }, in: session)
            try releaseDeniedKeys(amongDoomed: doomed, in: session)
            for doomedIndex in doomed.sorted() {
                try session.execute(
                    "DELETE FROM \(layout.entities[doomedIndex].table) WHERE pk IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = $1)",
                    [.integer(Int64(doomedIndex))])
            }
        }
    }

    private func doomedKeys(of entityIndex: Int, in session: PostgresSession) throws(StrataError) -> [Int64] {
        try integers("SELECT pk FROM \(Self.doomedTable) WHERE entity = $1 ORDER BY pk", [.integer(Int64(entityIndex))], in: session)
    }

    private func column(of edge: ForeignKeyEdge) -> String {
        quote(schema.entities[edge.childIndex].properties[edge.ordinal].name)
    }

    /// Adds every row the cascade rules reach, one step at a time until a step adds nothing.
    private func addCascades(_ edges: [ForeignKeyEdge], in session: PostgresSession) throws(StrataError) {
        var added = !edges.isEmpty
        while added {
            added = false
            for edge in edges {
                let count = try session.execute("""
                    INSERT INTO \(Self.doomedTable) (entity, pk) SELECT $1, t.pk FROM \(layout.entities[edge.childIndex].table) AS t
                    WHERE t.\(column(of: edge)) IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = $2) ON CONFLICT DO NOTHING
                    """, [.integer(Int64(edge.childIndex)), .integer(Int64(edge.parentIndex))])
                if count > 0 { added = true }
            }
        }
    }

    /// Rows that survive the delete but reference a doomed row through an edge
    /// (`$1` the parent's entity index, `$2` the child's).
    private func survivorsSQL(_ edge: ForeignKeyEdge, columns: String) -> String {
        """
        SELECT \(columns) FROM \(layout.entities[edge.childIndex].table) AS t \
        WHERE t.\(column(of: edge)) IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = $1) \
        AND t.pk NOT IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = $2)
        """
    }

    /// Throws `.validation` when a `.deny` rule still protects a doomed row.
    private func checkDenied(_ edge: ForeignKeyEdge, in session: PostgresSession) throws(StrataError) {
        let blockers = try integers(
            survivorsSQL(edge, columns: "t.pk") + " ORDER BY t.pk LIMIT 100",
            [.integer(Int64(edge.parentIndex)), .integer(Int64(edge.childIndex))], in: session)
        guard !blockers.isEmpty else { return }
        throw edge.denial(blockers: blockers, in: schema, storeIdentifier: identifier)
    }

    /// Owners that stay but lose members: their to-many relationships change.
    private func survivingOwners(of doomed: Set<Int>, in session: PostgresSession) throws(StrataError) -> [ChangeSet.ToManyChange] {
        var changes: [ChangeSet.ToManyChange] = []
        for owner in schema.entities {
            for (ordinal, storage) in layout.toMany[owner.index].enumerated() {
                let sql: String
                let destinationIndex: Int
                switch storage {
                case .foreignKey(let destination, let foreignKey, _)?:
                    destinationIndex = destination
                    sql = "SELECT DISTINCT t.\(foreignKey) FROM \(Self.doomedTable) AS d JOIN \(layout.entities[destination].table) AS t "
                        + "ON t.pk = d.pk WHERE d.entity = $1 AND t.\(foreignKey) IS NOT NULL "
                        + "AND t.\(foreignKey) NOT IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = $2)"
                case .joinTable(let destination, _, let join)?:
                    destinationIndex = destination
                    sql = "SELECT DISTINCT j.\(join.owner) FROM \(Self.doomedTable) AS d JOIN \(join.table) AS j "
                        + "ON j.\(join.member) = d.pk WHERE d.entity = $1 "
                        + "AND j.\(join.owner) NOT IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = $2)"
                case nil:
                    continue
                }
                guard doomed.contains(destinationIndex) else { continue }
                let keys = try integers(sql, [.integer(Int64(destinationIndex)), .integer(Int64(owner.index))], in: session)
                for key in keys.sorted() { changes.append(toManyChange(entityIndex: owner.index, ordinal: ordinal, primaryKey: key)) }
            }
        }
        return changes
    }

    /// Clears the foreign keys that point at doomed rows, bumping each
    /// surviving row's version, and returns those rows as updates.
    private func nullify(_ edges: [ForeignKeyEdge], in session: PostgresSession) throws(StrataError) -> [ChangeSet.Row] {
        var rows: [ChangeSet.Row] = []
        var positions: [ObjectID: Int] = [:]
        for edge in edges {
            let table = layout.entities[edge.childIndex].table
            let version = StorageNaming.versionColumn
            let sql = "UPDATE \(table) SET \(column(of: edge)) = NULL, \(version) = \(version) + 1 "
                + "WHERE pk IN (\(survivorsSQL(edge, columns: "t.pk"))) RETURNING pk, \(version)"
            let entity = schema.entities[edge.childIndex]
            for row in try session.rows(sql, [.integer(Int64(edge.parentIndex)), .integer(Int64(edge.childIndex))]) {
                var cells = row.makeIterator()
                guard let key = try cells.next().flatMap({ cell throws(StrataError) in try PostgresSession.integer(cell) }),
                      let rowVersion = try cells.next().flatMap({ cell throws(StrataError) in try PostgresSession.integer(cell) })
                else { continue }
                let id = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key)
                if let position = positions[id] {
                    // A row with two cleared foreign keys is one update.
                    rows[position].ordinals.append(edge.ordinal)
                    rows[position].values.append(.null)
                    rows[position].version = rowVersion
                } else {
                    positions[id] = rows.count
                    rows.append(ChangeSet.Row(objectID: id, entity: entity, ordinals: [edge.ordinal], values: [.null], version: rowVersion))
                }
            }
        }
        return rows.sorted { ($0.entityIndex, $0.objectID.primaryKey ?? 0) < ($1.entityIndex, $1.objectID.primaryKey ?? 0) }
    }
}
