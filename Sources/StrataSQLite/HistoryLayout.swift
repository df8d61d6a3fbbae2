import Foundation
import StrataCore
import StrataSQL

/// The tables persistent history lives in, and how values are written there.
///
/// The tables exist only in stores loaded with history tracking on; they carry
/// the reserved `_strata_` prefix, so no entity can collide with them, and they
/// are not part of the schema fingerprint (turning history on or off never
/// makes a store incompatible).
///
/// Transaction numbers come from `AUTOINCREMENT`, so they keep growing after
/// pruning and a pruned token can be told from a live one.
enum HistoryLayout {
    private static let transactionTable = StorageNaming.historyTransactionTable
    private static let changeTable = StorageNaming.historyChangeTable
    /// The metadata key holding the highest transaction number pruned so far.
    static let prunedThroughKey = "historyPrunedThrough"

    static let createStatements = [
        """
        CREATE TABLE IF NOT EXISTS \(transactionTable) (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            timestamp REAL NOT NULL,
            author TEXT,
            context_name TEXT,
            process_id INTEGER NOT NULL,
            origin TEXT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS _strata_history_transaction_timestamp ON \(transactionTable)(timestamp)",
        """
        CREATE TABLE IF NOT EXISTS \(changeTable) (
            id INTEGER PRIMARY KEY,
            transaction_id INTEGER NOT NULL,
            change_type INTEGER NOT NULL,
            entity TEXT NOT NULL,
            pk INTEGER NOT NULL,
            updated_properties TEXT,
            tombstone TEXT,
            old_values TEXT,
            new_values TEXT)
        """,
        "CREATE INDEX IF NOT EXISTS _strata_history_change_transaction ON \(changeTable)(transaction_id, entity)",
    ]

    static let insertTransactionSQL = """
        INSERT INTO \(transactionTable) (timestamp, author, context_name, process_id, origin) VALUES (?, ?, ?, ?, ?)
        """
    static let insertChangeSQL = """
        INSERT INTO \(changeTable)
            (transaction_id, change_type, entity, pk, updated_properties, tombstone, old_values, new_values)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let selectChangesSQL = """
        SELECT transaction_id, change_type, entity, pk, updated_properties, tombstone, old_values, new_values
        FROM \(changeTable) WHERE transaction_id > ? AND transaction_id <= ?
        """
    static let prunedThroughSQL = "SELECT value FROM \(StorageNaming.metadataTable) WHERE key = '\(prunedThroughKey)'"
    static let latestSQL = "SELECT MAX(id) FROM \(transactionTable)"
    static let prunableBeforeDateSQL = HistoryPruning.lastBeforeDateSQL(table: transactionTable, date: "?")

    /// Change types as stored.
    static func code(_ type: HistoryChange.ChangeType) -> Int64 {
        switch type {
        case .insert: 1
        case .update: 2
        case .delete: 3
        }
    }

    static func changeType(_ code: Int64) -> HistoryChange.ChangeType? {
        switch code {
        case 1: .insert
        case 2: .update
        case 3: .delete
        default: nil
        }
    }

    /// Property names are validated identifiers (letters, digits, underscore),
    /// so a comma separates them unambiguously.
    static let propertySeparator: Character = ","
}
