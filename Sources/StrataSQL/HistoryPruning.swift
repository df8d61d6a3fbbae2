import StrataCore

/// How stores prune history by date, in SQL any of them runs.
///
/// ```swift
/// let sql = HistoryPruning.lastBeforeDateSQL(table: "history", date: "?")
/// ```
package enum HistoryPruning {
    /// The last transaction to prune for `deleteHistory(before: date)`: the
    /// one before the first stamped at or after the date (`date` is its
    /// parameter), 0 for none. A transaction stamped earlier than one before
    /// it (another clock, or one set back) is kept, rather than taking the
    /// later ones with it.
    package static func lastBeforeDateSQL(table: String, date: String) -> String {
        "SELECT COALESCE((SELECT MIN(id) FROM \(table) WHERE timestamp >= \(date)) - 1, (SELECT MAX(id) FROM \(table)), 0)"
    }
}
