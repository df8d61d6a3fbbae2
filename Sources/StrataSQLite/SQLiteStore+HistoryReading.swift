import Foundation
import StrataCore
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
            try Int64.fetchOne(db, sql: HistoryLayout.prunableBeforeDateSQL, arguments: [date.timeIntervalSinceReferenceDate])
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
                    arguments: [HistoryLayout.prunedThroughKey, String(pruned)])
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
        var conditions = ["t.id > ?"]
        var arguments: [StoredValue] = []
        switch request.start {
        case .beginning:
            break
        case .token(let token):
            let pruned = try Self.prunedThrough(db)
            guard token.transactionNumber >= pruned else {
                throw StrataError(
                    .historyTokenExpired,
                    "History after this token was deleted (pruned through transaction \(pruned)); "
                        + "fetch from the beginning or from a date, and refresh the objects you rely on")
            }
            after = token.transactionNumber
        case .date(let date):
            conditions.append("t.timestamp > ?")
            arguments.append(.real(date.timeIntervalSinceReferenceDate))
        }
        arguments.insert(.integer(after), at: 0)
        if let authors = request.authors {
            conditions.append("t.author IN (\(Self.placeholders(authors.count)))")
            arguments += authors.sorted().map(StoredValue.text)
        }
        if let origin = request.excludedOrigin {
            conditions.append("t.origin <> ?")
            arguments.append(.text(origin.uuidString))
        }
        let entityNames = request.entityNames.map { $0.sorted().map(StoredValue.text) }
        if let entityNames {
            conditions.append("""
                EXISTS (SELECT 1 FROM \(StorageNaming.historyChangeTable) AS c \
                WHERE c.transaction_id = t.id AND c.entity IN (\(Self.placeholders(entityNames.count))))
                """)
            arguments += entityNames
        }
        var sql = """
            SELECT t.id, t.timestamp, t.author, t.context_name, t.process_id, t.origin \
            FROM \(StorageNaming.historyTransactionTable) AS t WHERE \(conditions.joined(separator: " AND ")) ORDER BY t.id
            """
        if let limit = request.fetchLimit {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(max(limit, 0))))
        }
        var transactions = try readTransactions(sql: sql, arguments: arguments, in: db)
        guard let first = transactions.first, let last = transactions.last else { return [] }
        try readChanges(
            into: &transactions, from: first.token.transactionNumber - 1, through: last.token.transactionNumber,
            entityNames: entityNames, in: db)
        return transactions
    }

    private func readTransactions(sql: String, arguments: [StoredValue], in db: Database) throws -> [HistoryTransaction] {
        let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
        statement.reset()
        defer { statement.reset() }
        try statement.bind(arguments)
        var transactions: [HistoryTransaction] = []
        while try statement.step() {
            guard case .text(let originText) = statement.value(at: 5), let origin = UUID(uuidString: originText),
                  case .real(let seconds) = statement.value(at: 1) else {
                throw StrataError(.corruptStore, "A history transaction record is damaged")
            }
            transactions.append(HistoryTransaction(
                token: HistoryToken(storeIdentifier: identifier, transactionNumber: statement.int64(at: 0)),
                timestamp: Date(timeIntervalSinceReferenceDate: seconds), author: statement.value(at: 2).text,
                contextName: statement.value(at: 3).text, processID: Int32(truncatingIfNeeded: statement.int64(at: 4)),
                origin: origin, changes: []))
        }
        return transactions
    }

    /// Adds the changes of transactions numbered in `(after, through]` to the
    /// transactions read (changes of transactions filtered out are skipped).
    private func readChanges(
        into transactions: inout [HistoryTransaction], from after: Int64, through: Int64,
        entityNames: [StoredValue]?, in db: Database
    ) throws {
        var positions: [Int64: Int] = [:]
        for (position, transaction) in transactions.enumerated() { positions[transaction.token.transactionNumber] = position }
        var sql = HistoryLayout.selectChangesSQL
        var arguments: [StoredValue] = [.integer(after), .integer(through)]
        if let entityNames {
            sql += " AND entity IN (\(Self.placeholders(entityNames.count)))"
            arguments += entityNames
        }
        sql += " ORDER BY id"
        let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
        statement.reset()
        defer { statement.reset() }
        try statement.bind(arguments)
        let coder = HistoryValueCoder()
        while try statement.step() {
            guard let position = positions[statement.int64(at: 0)] else { continue }
            guard let type = HistoryLayout.changeType(statement.int64(at: 1)), let entity = statement.value(at: 2).text else {
                throw StrataError(.corruptStore, "A history change record is damaged")
            }
            let objectID = ObjectID(entityName: entity, storeIdentifier: identifier, primaryKey: statement.int64(at: 3))
            let properties = statement.value(at: 4).text.map {
                Set($0.split(separator: HistoryLayout.propertySeparator).map(String.init))
            } ?? []
            transactions[position].changes.append(HistoryChange(
                changeType: type, objectID: objectID, updatedProperties: properties,
                tombstone: try coder.decode(statement.value(at: 5)), oldValues: try coder.decode(statement.value(at: 6)),
                newValues: try coder.decode(statement.value(at: 7))))
        }
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}

extension StoredValue {
    /// The text of a `.text` value; nil otherwise.
    var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }
}
