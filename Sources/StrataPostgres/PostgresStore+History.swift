import Foundation
import StrataCore
import StrataSQL

extension PostgresStore {
    /// The shared statements over the namespace's history tables.
    private var history: SQLHistory {
        SQLHistory(dialect: .postgres, transactionTable: layout.transactionTable, changeTable: layout.changeTable)
    }

    // MARK: Recording

    /// The server's time, as Strata stores dates (seconds since 2001): every
    /// server writing the store stamps its transactions by one clock, so
    /// pruning by date keeps what it should whatever their own clocks say.
    static let serverClock = "extract(epoch FROM clock_timestamp())::float8 - 978307200"

    /// Records a commit's transaction and changes; returns its token.
    func recordHistory(of changes: ChangeSet, previous: PreviousValues, in session: PostgresSession) throws(StrataError) -> HistoryToken? {
        guard options.historyTracking, !changes.isEmpty else { return nil }
        // The server's clock stamps it ($1 is the channel, not a timestamp).
        let values = [.text(layout.channel)] + SQLHistory.transactionValues(of: changes, timestamp: .null, origin: originIdentifier).dropFirst()
        // The commit's NOTIFY goes with the same statement (delivered on commit).
        guard let number = try integers("""
            INSERT INTO \(layout.transactionTable) (\(SQLHistory.transactionColumns))
            VALUES (\(Self.serverClock), $2, $3, $4, $5) RETURNING id, pg_notify($1, id || ' ' || $5)
            """, values, in: session).first else {
            throw StrataError(.postgres, "PostgreSQL did not number a history transaction")
        }
        let rows = SQLHistory.changeRows(of: changes, number: number, schema: schema, options: options, previous: previous)
        try insertRows(rows, sql: "INSERT INTO \(layout.changeTable) (\(SQLHistory.changeColumns)) VALUES ($1)", in: session)
        return HistoryToken(storeIdentifier: identifier, transactionNumber: number)
    }

    // MARK: Reading

    func fetchHistory(_ request: HistoryRequest) throws(StrataError) -> [HistoryTransaction] {
        try checkHistoryIsTracked()
        if case .token(let token) = request.start { try check(token) }
        // One snapshot for the prune mark, the transactions and their changes:
        // a prune committed between them would drop transactions unnoticed.
        return try pool.withTransaction(isolation: "REPEATABLE READ, READ ONLY") { session throws(StrataError) in
            try readHistory(request, in: session)
        }
    }

    func currentHistoryToken() throws(StrataError) -> HistoryToken? {
        try checkHistoryIsTracked()
        let latest = try integers("SELECT COALESCE(MAX(id), 0) FROM \(layout.transactionTable)", []).first ?? 0
        let number = latest > 0 ? latest : try prunedThrough(in: nil)
        return number > 0 ? HistoryToken(storeIdentifier: identifier, transactionNumber: number) : nil
    }

    func deleteHistory(before token: HistoryToken) throws(StrataError) -> Int {
        try checkHistoryIsTracked()
        try check(token)
        return try pruneHistory { _ throws(StrataError) in token.numberBefore }
    }

    func deleteHistory(before date: Date) throws(StrataError) -> Int {
        try checkHistoryIsTracked()
        return try pruneHistory { session throws(StrataError) in
            try integers(
                history.lastBeforeDateSQL,
                [.real(date.timeIntervalSinceReferenceDate)], in: session
            ).first ?? 0
        }
    }

    private func prunedThrough(in session: PostgresSession?) throws(StrataError) -> Int64 {
        let sql = "SELECT value::bigint FROM \(layout.metadataTable) WHERE key = $1"
        return try integers(sql, [.text(SQLHistory.prunedThroughKey)], in: session).first ?? 0
    }

    private func pruneHistory(through bound: (PostgresSession) throws(StrataError) -> Int64) throws(StrataError) -> Int {
        try write { session throws(StrataError) in
            let through = try bound(session)
            guard through > 0 else { return 0 }
            try session.execute("DELETE FROM \(layout.changeTable) WHERE transaction_id <= $1", [.integer(through)])
            let deleted = try session.execute("DELETE FROM \(layout.transactionTable) WHERE id <= $1", [.integer(through)])
            // Recorded so a token older than this point reads as expired.
            let pruned = max(try prunedThrough(in: session), through)
            try session.execute("""
                INSERT INTO \(layout.metadataTable) (key, value) VALUES ($1, $2)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, [.text(SQLHistory.prunedThroughKey), .text(String(pruned))])
            return deleted
        }
    }

    private func readHistory(_ request: HistoryRequest, in session: PostgresSession) throws(StrataError) -> [HistoryTransaction] {
        var after: Int64 = 0
        if case .token(let token) = request.start {
            let pruned = try prunedThrough(in: session)
            guard token.transactionNumber >= pruned else { throw SQLHistory.expired(prunedThrough: pruned) }
            after = token.transactionNumber
        }
        let query = history.transactionsQuery(request, after: after)
        var transactions = try values(query.sql, query.arguments, in: session).map { cells throws(StrataError) in
            try SQLHistory.transaction(cells, storeIdentifier: identifier)
        }
        guard let first = transactions.first, let last = transactions.last else { return [] }
        let changes = history.changesQuery(
            after: first.token.transactionNumber - 1, through: last.token.transactionNumber, entityNames: request.entityNames)
        try SQLHistory.addChanges(try values(changes.sql, changes.arguments, in: session), to: &transactions, storeIdentifier: identifier)
        return transactions
    }

    /// The rows of a statement, as values.
    private func values(_ sql: String, _ arguments: [StoredValue], in session: PostgresSession) throws(StrataError) -> [[StoredValue]] {
        try session.rows(sql, arguments).map { row throws(StrataError) in
            try row.map { cell throws(StrataError) in try PostgresSession.value(cell) }
        }
    }
}
