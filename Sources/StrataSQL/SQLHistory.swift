import Foundation
import StrataCore

/// How SQL stores keep persistent history: a table of transactions and one
/// of their changes, the statements that read them, and changes as rows.
///
/// Transaction numbers keep growing after pruning (SQLite's `AUTOINCREMENT`,
/// PostgreSQL's identity column), so a pruned token can be told from a live
/// one; the highest pruned number is kept in the store's metadata under
/// ``prunedThroughKey``. Property names are validated identifiers (letters,
/// digits, underscore), so a comma separates them unambiguously.
///
/// ```swift
/// let history = SQLHistory(dialect: .postgres, transactionTable: layout.transactionTable, changeTable: layout.changeTable)
/// let (sql, arguments) = history.transactionsQuery(request, after: 0)
/// ```
package struct SQLHistory: Sendable {
    package let dialect: SQLDialect
    /// The tables as the store names them in SQL (quoted, and qualified where it needs).
    package let transactionTable: String
    package let changeTable: String

    package init(dialect: SQLDialect, transactionTable: String, changeTable: String) {
        self.dialect = dialect
        self.transactionTable = transactionTable
        self.changeTable = changeTable
    }

    /// The metadata key holding the highest transaction number pruned so far.
    package static let prunedThroughKey = "historyPrunedThrough"
    package static let propertySeparator: Character = ","

    /// The transactions' and changes' columns, in the order the reads select and inserts write them.
    package static let transactionColumns = "timestamp, author, context_name, process_id, origin"
    package static let changeColumns = "transaction_id, change_type, entity, pk, updated_properties, tombstone, old_values, new_values"

    /// The last transaction to prune for `deleteHistory(before: date)`: the
    /// one before the first stamped at or after the date (the statement's one
    /// parameter), 0 for none. A transaction stamped earlier than one before
    /// it (another clock, or one set back) is kept, rather than taking the
    /// later ones with it.
    package var lastBeforeDateSQL: String {
        let date = dialect.placeholder(1)
        return "SELECT COALESCE((SELECT MIN(id) FROM \(transactionTable) WHERE timestamp >= \(date)) - 1, "
            + "(SELECT MAX(id) FROM \(transactionTable)), 0)"
    }

    /// The error of a read after a token whose history was pruned.
    package static func expired(prunedThrough pruned: Int64) -> StrataError {
        StrataError(
            .historyTokenExpired,
            "History after this token was deleted (pruned through transaction \(pruned)); "
                + "fetch from the beginning or from a date, and refresh the objects you rely on")
    }

    // MARK: Reading

    /// `SELECT` of the transactions a request selects after transaction `after`, oldest first.
    package func transactionsQuery(_ request: HistoryRequest, after: Int64) -> (sql: String, arguments: [StoredValue]) {
        var arguments: [StoredValue] = []
        func bind(_ value: StoredValue) -> String {
            arguments.append(value)
            return dialect.placeholder(arguments.count)
        }
        var conditions = ["t.id > \(bind(.integer(after)))"]
        if case .date(let date) = request.start {
            conditions.append("t.timestamp > \(bind(.real(date.timeIntervalSinceReferenceDate)))")
        }
        if let authors = request.authors {
            conditions.append("t.author IN (\(authors.sorted().map { bind(.text($0)) }.joined(separator: ", ")))")
        }
        if let origin = request.excludedOrigin {
            conditions.append("t.origin <> \(bind(.text(origin.uuidString)))")
        }
        if let entityNames = request.entityNames?.sorted() {
            let list = entityNames.map { bind(.text($0)) }.joined(separator: ", ")
            conditions.append("EXISTS (SELECT 1 FROM \(changeTable) AS c WHERE c.transaction_id = t.id AND c.entity IN (\(list)))")
        }
        var sql = "SELECT t.id, t.\(Self.transactionColumns.replacingOccurrences(of: ", ", with: ", t.")) FROM \(transactionTable) AS t "
            + "WHERE \(conditions.joined(separator: " AND ")) ORDER BY t.id"
        if let limit = request.fetchLimit { sql += " LIMIT \(bind(.integer(Int64(max(limit, 0)))))" }
        return (sql, arguments)
    }

    /// `SELECT` of the changes of transactions numbered in `(after, through]`,
    /// of the request's entities, in the order they were recorded.
    package func changesQuery(after: Int64, through: Int64, entityNames: Set<String>?) -> (sql: String, arguments: [StoredValue]) {
        var arguments: [StoredValue] = [.integer(after), .integer(through)]
        var sql = "SELECT \(Self.changeColumns) FROM \(changeTable) "
            + "WHERE transaction_id > \(dialect.placeholder(1)) AND transaction_id <= \(dialect.placeholder(2))"
        if let entityNames = entityNames?.sorted() {
            sql += " AND entity IN (\(entityNames.indices.map { dialect.placeholder($0 + 3) }.joined(separator: ", ")))"
            arguments += entityNames.map(StoredValue.text)
        }
        return (sql + " ORDER BY id", arguments)
    }

    /// A transaction read by ``transactionsQuery(_:after:)``, without its changes.
    package static func transaction(_ cells: [StoredValue], storeIdentifier: String) throws(StrataError) -> HistoryTransaction {
        guard cells.count == 6, case .integer(let id) = cells[0], case .real(let seconds) = cells[1],
              case .integer(let process) = cells[4], let origin = cells[5].text.flatMap(UUID.init(uuidString:)) else {
            throw StrataError(.corruptStore, "A history transaction record is damaged")
        }
        return HistoryTransaction(
            token: HistoryToken(storeIdentifier: storeIdentifier, transactionNumber: id),
            timestamp: Date(timeIntervalSinceReferenceDate: seconds), author: cells[2].text, contextName: cells[3].text,
            processID: Int32(truncatingIfNeeded: process), origin: origin, changes: [])
    }

    /// Reads the changes of `transactions` (read in order) from the rows of
    /// ``changesQuery(after:through:entityNames:)``; changes of transactions
    /// not among them are skipped.
    package static func addChanges(
        _ rows: some Sequence<[StoredValue]>, to transactions: inout [HistoryTransaction], storeIdentifier: String
    ) throws(StrataError) {
        var positions: [Int64: Int] = [:]
        for (position, transaction) in transactions.enumerated() { positions[transaction.token.transactionNumber] = position }
        let coder = HistoryValueCoder()
        for cells in rows {
            guard cells.count == 8, case .integer(let number) = cells[0], let position = positions[number] else { continue }
            guard case .integer(let code) = cells[1], let type = changeType(code), let entity = cells[2].text,
                  case .integer(let key) = cells[3] else {
                throw StrataError(.corruptStore, "A history change record is damaged")
            }
            let properties = cells[4].text.map { Set($0.split(separator: propertySeparator).map(String.init)) } ?? []
            do {
                transactions[position].changes.append(HistoryChange(
                    changeType: type, objectID: ObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: key),
                    updatedProperties: properties, tombstone: try coder.decode(cells[5]), oldValues: try coder.decode(cells[6]),
                    newValues: try coder.decode(cells[7])))
            } catch let error as StrataError {
                throw error
            } catch {
                throw StrataError(.corruptStore, "A history change record is damaged: \(error)")
            }
        }
    }

    // MARK: Recording

    /// A transaction's values for `INSERT INTO … (transactionColumns)`, stamped `timestamp`.
    package static func transactionValues(of changes: ChangeSet, timestamp: StoredValue, origin: UUID) -> [StoredValue] {
        [
            timestamp, changes.author.map(StoredValue.text) ?? .null, changes.contextName.map(StoredValue.text) ?? .null,
            .integer(Int64(ProcessInfo.processInfo.processIdentifier)), .text(origin.uuidString),
        ]
    }

    /// The rows of `changeColumns` that record a committed change set as transaction `number`.
    package static func changeRows(
        of changes: ChangeSet, number: Int64, schema: Schema, options: StoreOptions, previous: PreviousValues
    ) -> [[StoredValue]] {
        let coder = HistoryValueCoder()
        return HistoryRecording(schema: schema, recordsValues: options.recordsValueChanges, previous: previous)
            .changes(of: changes).compactMap { change in
                guard let key = change.objectID.primaryKey else { return nil }
                return [
                    .integer(number), .integer(code(change.changeType)), .text(change.objectID.entityName), .integer(key),
                    change.updatedProperties.isEmpty ? .null : .text(change.updatedProperties.sorted().joined(separator: String(propertySeparator))),
                    change.tombstone.map(coder.encode) ?? .null, change.oldValues.map(coder.encode) ?? .null,
                    change.newValues.map(coder.encode) ?? .null,
                ]
            }
    }

    /// Change types as stored.
    private static func code(_ type: HistoryChange.ChangeType) -> Int64 {
        switch type {
        case .insert: 1
        case .update: 2
        case .delete: 3
        }
    }

    package static func changeType(_ code: Int64) -> HistoryChange.ChangeType? {
        switch code {
        case 1: .insert
        case 2: .update
        case 3: .delete
        default: nil
        }
    }
}
