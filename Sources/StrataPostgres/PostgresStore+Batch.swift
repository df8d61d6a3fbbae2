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

    /// Inserts rows of one entity (see ``BatchWriter``); a taken unique key fails the whole batch.
    func batchInsert(entityIndex: Int, rows: [[StoredValue]], transaction: BatchTransaction) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { session, result, _ throws(StrataError) in
            try BatchWriter.insert(
                entityIndex: entityIndex, rows: rows, of: self, into: &result, in: PostgresWriteExecutor(store: self, session: session))
        }
    }

    /// Sets attributes of every row matching a condition (nil: every row), one statement.
    func batchUpdate(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue], transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        try runBatch(transaction) { session, result, previous throws(StrataError) in
            try BatchWriter.update(
                entityIndex: entityIndex, predicate: predicate, ordinals: ordinals, values: values, of: self,
                into: &result, previous: &previous, in: PostgresWriteExecutor(store: self, session: session))
        }
    }
}

/// Batch writes on the PostgreSQL store: one statement over the matching rows.
extension PostgresWriteExecutor: BatchWriteExecutor {
    func keysMatching(entityIndex: Int, predicate: StoreExpression?) throws(StrataError) -> [Int64] {
        var renderer = PostgresQueryRenderer(layout: store.layout)
        let condition = try predicate.map { predicate throws(StrataError) in try renderer.condition(predicate).sql }
        let select = "SELECT t0.pk FROM \(store.layout.entities[entityIndex].table) AS t0" + (condition.map { " WHERE \($0)" } ?? "")
        return try store.integers(select, renderer.arguments, in: session)
    }

    func updateMatching(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue]
    ) throws(StrataError) -> [(primaryKey: Int64, version: Int64)] {
        var renderer = PostgresQueryRenderer(layout: store.layout)
        let entity = store.schema.entities[entityIndex]
        let table = store.layout.entities[entityIndex]
        let version = StorageNaming.versionColumn
        // The new values first ($1…), then the condition's.
        var assignments = ["\(version) = t0.\(version) + 1"]
        for (ordinal, value) in zip(ordinals, values) {
            let column = entity.columnIndexByOrdinal[ordinal]
            assignments.append("\(table.columns[column]) = \(renderer.bind(value).sql)")
            if let folded = table.foldedColumns[column] { assignments.append("\(folded) = \(renderer.bind(PostgresLayout.folded(value)).sql)") }
        }
        let condition = try predicate.map { predicate throws(StrataError) in try renderer.condition(predicate).sql }
        let sql = "UPDATE \(table.table) AS t0 SET \(assignments.joined(separator: ", "))"
            + (condition.map { " WHERE \($0)" } ?? "") + " RETURNING t0.pk, t0.\(version)"
        return try PostgresSession.integerPairs(try session.rows(sql, renderer.arguments)).map { ($0, $1) }
    }

    /// One statement: the new members numbered after each owner's others, in key order.
    func appendNewMembers(entityIndex: Int, ordinal: Int, members: [Int64], owners: [Int64?]) throws(StrataError) {
        let entity = store.schema.entities[entityIndex]
        guard case .foreignKey(_, _, let position)? =
                store.layout.toMany[entity.destinationIndexByOrdinal[ordinal]][entity.inverseOrdinalByOrdinal[ordinal]]
        else { return }
        let column = store.layout.entities[entityIndex].columns[entity.columnIndexByOrdinal[ordinal]]
        let table = store.layout.entities[entityIndex].table
        try session.execute("""
            UPDATE \(table) AS t SET \(position) = n.position FROM (
                SELECT m.pk, COALESCE((SELECT MAX(x.\(position)) FROM \(table) AS x
                    WHERE x.\(column) = m.\(column) AND NOT x.pk = ANY($1)), -1)
                    + ROW_NUMBER() OVER (PARTITION BY m.\(column) ORDER BY m.pk) AS position
                FROM \(table) AS m WHERE m.pk = ANY($1) AND m.\(column) IS NOT NULL) AS n
            WHERE t.pk = n.pk
            """, arguments: [.keys(members)])
    }
}
