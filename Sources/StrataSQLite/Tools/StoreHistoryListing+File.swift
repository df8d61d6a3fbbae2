import Foundation
import StrataCore
import StrataSQL

extension StoreHistoryListing {
    /// The transactions after `token` (all when nil), by `author` when given.
    /// A store that keeps no history fails with `.invalidStoreLocation`, saying so.
    public init(url: URL, after token: Int64? = nil, author: String? = nil) throws(StrataError) {
        let inspection = StoreFileInspection(url: url)
        let columns = try inspection.requireStore().tables
        guard columns[StorageNaming.historyTransactionTable] != nil, columns[StorageNaming.historyChangeTable] != nil else {
            throw StrataError(.invalidStoreLocation, "\(url.lastPathComponent) keeps no history (history tracking was never on)")
        }
        self.init(fileName: url.lastPathComponent)
        var conditions: [String] = []
        if let token { conditions.append("id > \(token)") }
        if let author { conditions.append("author = \(sqlTextLiteral(author))") }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        transactions = try inspection.withInspectionConnection { connection throws(StrataError) in
            let rows = try inspection.strings(connection, """
                SELECT id, timestamp, ifnull(author, char(0)), ifnull(context_name, char(0))
                FROM \(StorageNaming.historyTransactionTable)\(filter) ORDER BY id
                """, columns: 4)
            var transactions: [Transaction] = []
            for row in stride(from: 0, to: rows.count - 3, by: 4) {
                guard let id = Int64(rows[row]) else { continue }
                let changes = try inspection.strings(connection, """
                    SELECT change_type, entity, pk, ifnull(updated_properties, '') FROM \(StorageNaming.historyChangeTable)
                    WHERE transaction_id = \(id) ORDER BY id
                    """, columns: 4)
                transactions.append(Transaction(
                    token: id, date: Date(timeIntervalSinceReferenceDate: Double(rows[row + 1]) ?? 0),
                    author: rows[row + 2].isEmpty ? nil : rows[row + 2],
                    contextName: rows[row + 3].isEmpty ? nil : rows[row + 3],
                    changes: stride(from: 0, to: changes.count - 3, by: 4).compactMap { index in
                        guard let code = Int64(changes[index]), let type = SQLHistory.changeType(code),
                              let key = Int64(changes[index + 2]) else { return nil }
                        let properties = changes[index + 3].split(separator: SQLHistory.propertySeparator).map(String.init)
                        return Change(
                            type: type, entityName: changes[index + 1], primaryKey: key,
                            updatedProperties: type == .update ? properties : nil)
                    }))
            }
            return transactions
        }
    }
}
