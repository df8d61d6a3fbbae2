import StrataCore
import StrataSQL
import GRDB

extension SQLiteStore {
    /// The scratch table of one batch delete: every row it will remove, by
    /// entity index and primary key. Lives in the writer connection's temp schema.
    static let doomedTable = "temp._strata_batch_doomed"

    /// Deletes rows of one entity, and everything SQLite's foreign keys cascade
    /// to, in one transaction, reporting the exact effect.
    ///
    /// Before anything is deleted it computes, with one recursive query over the
    /// `ON DELETE CASCADE` foreign keys, every row that will go; fails with
    /// `.validation` when a `RESTRICT` (`.deny`) foreign key still points at one of
    /// them; and clears (`SET NULL`) the foreign keys that point at them itself, so
    /// those rows get a new version and appear as updates. The
    /// old values history needs (tombstones of attributes marked
    /// `.preserveValueOnDeletion`) are read first; owners that survive and lose
    /// members are listed in `toManyChanges`.
    func batchDelete(
        entityIndex: Int, selection: BatchDeleteSelection, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { db, result, previous in
            try createDoomedTable(in: db)
            try selectRoots(entityIndex: entityIndex, selection: selection, in: db)
            result.primaryKeys = try integers("SELECT pk FROM \(Self.doomedTable) WHERE entity = ? ORDER BY pk",
                                              [.integer(Int64(entityIndex))], in: db)
            guard !result.primaryKeys.isEmpty else { return }
            let edges = ForeignKeyEdge.all(in: schema)
            try addCascades(edges.filter { $0.rule == .cascade }, in: db)
            let doomed = Set(try integers("SELECT DISTINCT entity FROM \(Self.doomedTable)", [], in: db).map { Int($0) })
            for edge in edges where edge.rule == .deny && doomed.contains(edge.parentIndex) {
                try checkDenied(edge, in: db)
            }
            result.changes.toManyChanges = try survivingOwners(of: doomed, in: db)
            for entityIndex in doomed.sorted() {
                let keys = try integers(
                    "SELECT pk FROM \(Self.doomedTable) WHERE entity = ? ORDER BY pk", [.integer(Int64(entityIndex))], in: db)
                let entity = schema.entities[entityIndex]
                result.changes.deleted += keys.map { key in
                    deletedRow(entityIndex: entity.index, primaryKey: key)
                }
                // History tombstones (and old values) are read before the rows go.
                if PreviousValues.needed(forDeleting: entityIndex, schema: schema, options: options) {
                    try capturePreviousValues(entityIndex: entityIndex, primaryKeys: keys, into: &previous, in: db)
                }
            }
            result.changes.updated = try nullify(edges.filter { $0.rule == .nullify && doomed.contains($0.parentIndex) }, in: db)
            try releaseDeniedKeys(schema.denyEdges.filter { doomed.contains($0.childIndex) && doomed.contains($0.parentIndex) }, in: db)
            for entityIndex in doomed.sorted() {
                let delete = RawStatement(try db.cachedStatement(sql: """
                    DELETE FROM \(layout.entities[entityIndex].table) \
                    WHERE pk IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = ?)
                    """), in: db)
                delete.reset()
                try delete.bind(.integer(Int64(entityIndex)), at: 1)
                try delete.execute()
            }
            try db.execute(sql: "DELETE FROM \(Self.doomedTable)")
        }
    }

    private func selectRoots(entityIndex: Int, selection: BatchDeleteSelection, in db: Database) throws {
        let table = layout.entities[entityIndex].table
        switch selection {
        case .matching(let predicate):
            var renderer = SQLiteQueryRenderer(schema: schema, layout: layout)
            let condition = predicate.map { renderer.render($0).fragment }
            let arguments = condition?.arguments ?? []
            var sql = "INSERT OR IGNORE INTO \(Self.doomedTable) (entity, pk) SELECT ?, t0.pk FROM \(table) AS t0"
            if let condition { sql += " WHERE \(condition.sql)" }
            let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
            statement.reset()
            try statement.bind(.integer(Int64(entityIndex)), at: 1)
            try statement.bind(arguments, startingAt: 2)
            try statement.execute()
        case .keys(let keys):
            // One cached statement per key: no IN list, and keys without a row drop out.
            let statement = RawStatement(try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO \(Self.doomedTable) (entity, pk) SELECT ?1, pk FROM \(table) WHERE pk = ?2"), in: db)
            for key in keys {
                statement.reset()
                try statement.bind(.integer(Int64(entityIndex)), at: 1)
                try statement.bind(.integer(key), at: 2)
                try statement.execute()
            }
        }
    }

    /// Adds every row the `ON DELETE CASCADE` foreign keys reach, transitively,
    /// with one recursive query (`UNION` drops rows already found, so cycles end).
    private func addCascades(_ edges: [ForeignKeyEdge], in db: Database) throws {
        guard !edges.isEmpty else { return }
        // Entity indices are schema positions, not user values.
        let steps = edges.map { edge in
            "SELECT \(edge.childIndex), t.pk FROM closure JOIN \(layout.entities[edge.childIndex].table) AS t "
                + "ON t.\(edge.column) = closure.pk WHERE closure.entity = \(edge.parentIndex)"
        }
        let sql = "WITH RECURSIVE closure(entity, pk) AS (SELECT entity, pk FROM \(Self.doomedTable) UNION "
            + steps.joined(separator: " UNION ")
            + ") INSERT OR IGNORE INTO \(Self.doomedTable) (entity, pk) SELECT entity, pk FROM closure"
        try RawStatement(try db.cachedStatement(sql: sql), in: db).execute()
    }

    /// Rows that survive the delete but reference a doomed row through an edge.
    private func survivorsSQL(_ edge: ForeignKeyEdge, columns: String) -> String {
        """
        SELECT \(columns) FROM \(layout.entities[edge.childIndex].table) AS t \
        WHERE t.\(edge.column) IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = ?1) \
        AND t.pk NOT IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = ?2)
        """
    }

    /// Throws `.validation` when a `.deny` rule still protects a doomed row.
    private func checkDenied(_ edge: ForeignKeyEdge, in db: Database) throws {
        let blockers = try integers(survivorsSQL(edge, columns: "t.pk") + " ORDER BY t.pk LIMIT 100",
                                    [.integer(Int64(edge.parentIndex)), .integer(Int64(edge.childIndex))], in: db)
        guard !blockers.isEmpty else { return }
        throw edge.denial(blockers: blockers, in: schema, storeIdentifier: identifier)
    }

    /// Owners that stay but lose members: their to-many relationships change.
    private func survivingOwners(of doomed: Set<Int>, in db: Database) throws -> [ChangeSet.ToManyChange] {
        var changes: [ChangeSet.ToManyChange] = []
        for owner in schema.entities {
            for (ordinal, storage) in layout.relationships.toMany[owner.index].enumerated() {
                guard let storage, doomed.contains(storage.destinationIndex) else { continue }
                let members = layout.entities[storage.destinationIndex].table
                let sql: String
                switch storage {
                case .foreignKey:
                    let inverse = owner.inverseOrdinalByOrdinal[ordinal]
                    let column = quote(schema.entities[storage.destinationIndex].properties[inverse].name)
                    sql = "SELECT DISTINCT t.\(column) FROM \(Self.doomedTable) AS d JOIN \(members) AS t ON t.pk = d.pk "
                        + "WHERE d.entity = ?1 AND t.\(column) IS NOT NULL "
                        + "AND t.\(column) NOT IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = ?2)"
                case .joinTable:
                    guard let join = StorageNaming.joinTable(of: owner, ordinal: ordinal, in: schema) else { continue }
                    let (ownerColumn, memberColumn) = (quote(join.owner), quote(join.member))
                    sql = "SELECT DISTINCT j.\(ownerColumn) FROM \(Self.doomedTable) AS d JOIN \(quote(join.table)) AS j "
                        + "ON j.\(memberColumn) = d.pk WHERE d.entity = ?1 "
                        + "AND j.\(ownerColumn) NOT IN (SELECT pk FROM \(Self.doomedTable) WHERE entity = ?2)"
                }
                let keys = try integers(sql, [.integer(Int64(storage.destinationIndex)), .integer(Int64(owner.index))], in: db)
                for key in keys.sorted() {
                    changes.append(toManyChange(entityIndex: owner.index, ordinal: ordinal, primaryKey: key))
                }
            }
        }
        return changes
    }

    /// Clears the foreign keys that point at doomed rows (what `SET NULL` would
    /// do), bumping each surviving row's version, and returns those rows as updates.
    private func nullify(_ edges: [ForeignKeyEdge], in db: Database) throws -> [ChangeSet.Row] {
        var rows: [ChangeSet.Row] = []
        var positions: [ObjectID: Int] = [:]
        for edge in edges {
            let table = layout.entities[edge.childIndex].table
            let version = StorageNaming.versionColumn
            let sql = "UPDATE \(table) SET \(edge.column) = NULL, \(version) = \(StoreLayout.nextVersionSQL) "
                + "WHERE pk IN (\(survivorsSQL(edge, columns: "t.pk"))) RETURNING pk, \(version)"
            let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
            statement.reset()
            defer { statement.reset() }
            try statement.bind(.integer(Int64(edge.parentIndex)), at: 1)
            try statement.bind(.integer(Int64(edge.childIndex)), at: 2)
            let entity = schema.entities[edge.childIndex]
            while try statement.step() {
                let id = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: statement.int64(at: 0))
                if let position = positions[id] {
                    // A row with two cleared foreign keys is one update.
                    rows[position].ordinals.append(edge.ordinal)
                    rows[position].values.append(.null)
                    rows[position].version = statement.int64(at: 1)
                } else {
                    positions[id] = rows.count
                    rows.append(ChangeSet.Row(
                        objectID: id, entity: schema.entities[edge.childIndex], ordinals: [edge.ordinal], values: [.null],
                        version: statement.int64(at: 1)))
                }
            }
        }
        return rows
    }
}
