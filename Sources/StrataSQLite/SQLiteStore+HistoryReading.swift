import Foundation
import StrataCore
import StrataSQL
import GRDB

extension SQLiteStore {
    /// The transactions a request selects, oldest first, each with its changes.
    ///
    /// Runs on a reader connection (a consistent snapshot), so it may be called
    /// from any thread, off the main actor. Throws `.historyTokenExpired` when
    /// transactions after the request's token were pruned.
    func fetchHistory(_ request: HistoryRequest) throws(StrataError) -> [HistoryTransaction] {
        try checkHistoryIsTracked()
        if case .token(let token) = request.start { try check(token) }
        do {
            return try writer.read { db in try self.readHistory(request, in: db) }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The token of the latest transaction; nil when nothing was recorded. When
    /// every transaction was pruned, the token of the last pruned one.
    func currentHistoryToken() throws(StrataError) -> HistoryToken? {
        try checkHistoryIsTracked()
        do {
            let number = try writer.read { db -> Int64? in
                guard try db.tableExists(StorageNaming.historyTransactionTable) else { return nil }
                let latest = try Int64.fetchOne(db, sql: HistoryLayout.latestSQL)
                let pruned = try Self.prunedThrough(db)
                return latest ?? (pruned > 0 ? pruned : nil)
            }
            return number.map { HistoryToken(storeIdentifier: identifier, transactionNumber: $0) }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Deletes the transactions before `token` (the token's own stays). Returns
    /// how many were deleted.
    func deleteHistory(before token: HistoryToken) throws(StrataError) -> Int {
        try checkHistoryIsTracked()
        try check(token)
        return try pruneHistory { _ in token.numberBefore }
    }

    /// Deletes the transactions saved before `date`, and any older-numbered ones
    /// (so the kept history never has holes). Returns how many were deleted.
    func deleteHistory(before date: Date) throws(StrataError) -> Int {
        try checkHistoryIsTracked()
        return try pruneHistory { db in
            try Int64.fetchOne(db, sql: HistoryLayout.sql.lastBeforeDateSQL, arguments: [date.timeIntervalSinceReferenceDate])
        }
    }

    /// The highest transaction number pruned so far (0 when none).
    static func prunedThrough(_ db: Database) throws -> Int64 {
        try String.fetchOne(db, sql: HistoryLayout.prunedThroughSQL).flatMap { Int64($0) } ?? 0
    }

    private func pruneHistory(through bound: @escaping (Database) throws -> Int64?) throws(StrataError) -> Int {
        if isReadOnly { throw StrataError(.readOnlyStore, "The store is read-only; no history was deleted") }
        do {
            return try writer.write { db -> Int in
                guard let through = try bound(db), through > 0 else { return 0 }
                try db.execute(
                    sql: "DELETE FROM \(StorageNaming.historyChangeTable) WHERE transaction_id <= ?", arguments: [through])
                try db.execute(sql: "DELETE FROM \(StorageNaming.historyTransactionTable) WHERE id <= ?", arguments: [through])
                let deleted = db.changesCount
                // Recorded so a token older than this point reads as expired
                // rather than silently skipping what was deleted.
                let pruned = max(try Self.prunedThrough(db), through)
                try db.execute(
                    sql: "INSERT OR REPLACE INTO \(StorageNaming.metadataTable) (key, value) VALUES (?, ?)",
                    arguments: [SQLHistory.prunedThroughKey, String(pruned)])
                return deleted
            }
        } catch {
            throw Self.translate(error)
        }
    }

    private func readHistory(_ request: HistoryRequest, in db: Database) throws -> [HistoryTransaction] {
        // A read-only store that never tracked history has no tables: no history.
        guard try db.tableExists(StorageNaming.historyTransactionTable) else { return [] }
        var after: Int64 = 0
        if case .token(let token) = request.start {
            let pruned = try Self.prunedThrough(db)
            guard token.transactionNumber >= pruned else { throw SQLHistory.expired(prunedThrough: pruned) }
            after = token.transactionNumber
        }
        let query = HistoryLayout.sql.transactionsQuery(request, after: after)
        var transactions = try rows(query.sql, query.arguments, columns: 6, in: db).map { cells throws(StrataError) in
            try SQLHistory.transaction(cells, storeIdentifier: identifier)
        }
        guard let first = transactions.first, let last = transactions.last else { return [] }
        let changes = HistoryLayout.sql.changesQuery(
            after: first.token.transactionNumber - 1, through: last.token.transactionNumber, entityNames: request.entityNames)
        try SQLHistory.addChanges(
            try rows(changes.sql, changes.arguments, columns: 8, in: db), to: &transactions, storeIdentifier: identifier)
        return transactions
    }

    /// The rows of a statement, each as its first `columns` values.
    private func rows(_ sql: String, _ arguments: [StoredValue], columns: Int32, in db: Database) throws -> [[StoredValue]] {
        let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
        statement.reset()
        defer { statement.reset() }
        try statement.bind(arguments)
        var rows: [[StoredValue]] = []
        while try statement.step() { rows.append((0..<columns).map { statement.value(at: $0) }) }
        return rows
    }
}
