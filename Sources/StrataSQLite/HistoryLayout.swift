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

    /// The shared statements over these tables.
    static let sql = SQLHistory(dialect: .sqlite, transactionTable: transactionTable, changeTable: changeTable)
    static let insertTransactionSQL = "INSERT INTO \(transactionTable) (\(SQLHistory.transactionColumns)) VALUES (?, ?, ?, ?, ?)"
    static let insertChangeSQL = "INSERT INTO \(changeTable) (\(SQLHistory.changeColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    static let prunedThroughSQL = "SELECT value FROM \(StorageNaming.metadataTable) WHERE key = '\(SQLHistory.prunedThroughKey)'"
    static let latestSQL = "SELECT MAX(id) FROM \(transactionTable)"
}
