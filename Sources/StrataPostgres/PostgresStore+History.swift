import Foundation
import StrataCore
import StrataSQL

extension PostgresStore {
    private static let prunedThroughKey = "historyPrunedThrough"

    private static func text(_ value: StoredValue) -> String? {
        if case .text(let text) = value { text } else { nil }
    }

    private static func code(_ type: HistoryChange.ChangeType) -> Int64 {
        switch type {
        case .insert: 1
        case .update: 2
        case .delete: 3
        }
    }

    private static func changeType(_ code: Int64) -> HistoryChange.ChangeType? {
        switch code {
        case 1: .insert
        case 2: .update
        case 3: .delete
        default: nil
        }
    }

    // MARK: Recording

    /// The server's time, as Strata stores dates (seconds since 2001): every
    /// server writing the store stamps its transactions by one clock, so
    /// pruning by date keeps what it should whatever their own clocks say.
    static let serverClock = "extract(epoch FROM clock_timestamp())::float8 - 978307200"

    /// Records a commit's transaction and changes; returns its token.
    func recordHistory(of changes: ChangeSet, previous: PreviousValues, in session: PostgresSession) throws(StrataError) -> HistoryToken? {
        guard options.historyTracking, !changes.isEmpty else { return nil }
        // The commit's NOTIFY goes with the same statement (delivered on commit).
        guard let number = try integers("""
            INSERT INTO \(layout.transactionTable) (timestamp, author, context_name, process_id, origin)
            VALUES (\(Self.serverClock), $1, $2, $3, $4) RETURNING id, pg_notify($5, id || ' ' || $4)
            """, [
                changes.author.map(StoredValue.text) ?? .null,
                changes.contextName.map(StoredValue.text) ?? .null, .integer(Int64(ProcessInfo.processInfo.processIdentifier)),
                .text(originIdentifier.uuidString), .text(layout.channel),
            ], in: session).first else {
            throw StrataError(.postgres, "PostgreSQL did not number a history transaction")
        }
        let coder = HistoryValueCoder()
        var rows: [[StoredValue]] = []
        for change in HistoryRecording(schema: schema, recordsValues: options.recordsValueChanges, previous: previous).changes(of: changes) {
            guard let pk = change.objectID.primaryKey else { continue }
            rows.append([
                .integer(number), .integer(Self.code(change.changeType)), .text(change.objectID.entityName), .integer(pk),
                change.updatedProperties.isEmpty ? .null : .text(change.updatedProperties.sorted().joined(separator: ",")),
                change.tombstone.map(coder.encode) ?? .null, change.oldValues.map(coder.encode) ?? .null,
                change.newValues.map(coder.encode) ?? .null,
            ])
        }
        try insertRows(rows, sql: """
            INSERT INTO \(layout.changeTable) \
            (transaction_id, change_type, entity, pk, updated_properties, tombstone, old_values, new_values) VALUES ($1)
            """, in: session)
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
                HistoryPruning.lastBeforeDateSQL(table: layout.transactionTable, date: "$1"),
                [.real(date.timeIntervalSinceReferenceDate)], in: session
            ).first ?? 0
        }
    }

    private func prunedThrough(in session: PostgresSession?) throws(StrataError) -> Int64 {
        let sql = "SELECT value::bigint FROM \(layout.metadataTable) WHERE key = $1"
        return try integers(sql, [.text(Self.prunedThroughKey)], in: session).first ?? 0
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
                """, [.text(Self.prunedThroughKey), .text(String(pruned))])
            return deleted
        }
    }

    private func readHistory(_ request: HistoryRequest, in session: PostgresSession) throws(StrataError) -> [HistoryTransaction] {
        var arguments: [StoredValue] = []
        func bind(_ value: StoredValue) -> String {
            arguments.append(value)
            return "$\(arguments.count)"
        }
        var after: Int64 = 0
        var conditions: [String] = []
        switch request.start {
        case .beginning:
            break
        case .token(let token):
            let pruned = try prunedThrough(in: session)
            guard token.transactionNumber >= pruned else {
                throw StrataError(
                    .historyTokenExpired,
                    "History after this token was deleted (pruned through transaction \(pruned)); "
                        + "fetch from the beginning or from a date, and refresh the objects you rely on")
            }
            after = token.transactionNumber
        case .date(let date):
            conditions.append("t.timestamp > \(bind(.real(date.timeIntervalSinceReferenceDate)))")
        }
        conditions.insert("t.id > \(bind(.integer(after)))", at: 0)
        if let authors = request.authors {
            conditions.append("t.author IN (\(authors.sorted().map { bind(.text($0)) }.joined(separator: ", ")))")
        }
        if let origin = request.excludedOrigin {
            conditions.append("t.origin <> \(bind(.text(origin.uuidString)))")
        }
        let entityNames = request.entityNames?.sorted()
        if let entityNames {
            let list = entityNames.map { bind(.text($0)) }.joined(separator: ", ")
            conditions.append("EXISTS (SELECT 1 FROM \(layout.changeTable) AS c WHERE c.transaction_id = t.id AND c.entity IN (\(list)))")
        }
        var sql = """
            SELECT t.id, t.timestamp, t.author, t.context_name, t.process_id, t.origin \
            FROM \(layout.transactionTable) AS t WHERE \(conditions.joined(separator: " AND ")) ORDER BY t.id
            """
        if let limit = request.fetchLimit { sql += " LIMIT \(bind(.integer(Int64(max(limit, 0)))))" }
        var transactions: [HistoryTransaction] = []
        var positions: [Int64: Int] = [:]
        for row in try session.rows(sql, arguments) {
            let cells = try row.map { cell throws(StrataError) in try PostgresSession.value(cell) }
            guard case .integer(let id) = cells[0], case .real(let seconds) = cells[1], case .integer(let process) = cells[4],
                  case .text(let originText) = cells[5], let origin = UUID(uuidString: originText) else {
                throw StrataError(.corruptStore, "A history transaction record is damaged")
            }
            positions[id] = transactions.count
            transactions.append(HistoryTransaction(
                token: HistoryToken(storeIdentifier: identifier, transactionNumber: id),
                timestamp: Date(timeIntervalSinceReferenceDate: seconds), author: Self.text(cells[2]), contextName: Self.text(cells[3]),
                processID: Int32(truncatingIfNeeded: process), origin: origin, changes: []))
        }
        guard let first = transactions.first, let last = transactions.last else { return [] }
        var changeArguments: [StoredValue] = [.integer(first.token.transactionNumber), .integer(last.token.transactionNumber)]
        var changeSQL = """
            SELECT transaction_id, change_type, entity, pk, updated_properties, tombstone, old_values, new_values
            FROM \(layout.changeTable) WHERE transaction_id >= $1 AND transaction_id <= $2
            """
        if let entityNames {
            changeSQL += " AND entity IN (\(entityNames.enumerated().map { "$\($0.offset + 3)" }.joined(separator: ", ")))"
            changeArguments += entityNames.map(StoredValue.text)
        }
        let coder = HistoryValueCoder()
        for row in try session.rows(changeSQL + " ORDER BY id", changeArguments) {
            let cells = try row.map { cell throws(StrataError) in try PostgresSession.value(cell) }
            guard case .integer(let transaction) = cells[0], let position = positions[transaction] else { continue }
            guard case .integer(let code) = cells[1], let type = Self.changeType(code), case .text(let entity) = cells[2],
                  case .integer(let pk) = cells[3] else {
                throw StrataError(.corruptStore, "A history change record is damaged")
            }
            let properties = Self.text(cells[4]).map { Set($0.split(separator: ",").map(String.init)) } ?? []
            do {
                transactions[position].changes.append(HistoryChange(
                    changeType: type, objectID: ObjectID(entityName: entity, storeIdentifier: identifier, primaryKey: pk),
                    updatedProperties: properties, tombstone: try coder.decode(cells[5]), oldValues: try coder.decode(cells[6]),
                    newValues: try coder.decode(cells[7])))
            } catch {
                throw StrataError(.corruptStore, "A history change record is damaged: \(error)")
            }
        }
        return transactions
    }
}
