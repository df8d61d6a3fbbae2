/// A position in a store's persistent history: the transaction a save recorded.
///
/// Tokens are `Codable`, so an app can keep the last one it processed (in user
/// defaults, a file, or the store itself) and later ask only for what came after it.
/// They are ordered by transaction number within one store; a token is only
/// meaningful for the store that issued it.
///
/// ```swift
/// let transactions = try container.fetchHistory(after: lastToken)
/// if let newest = transactions.last?.token {
///     let data = try JSONEncoder().encode(newest)
///     UserDefaults.standard.set(data, forKey: "historyToken")
/// }
/// ```
public struct HistoryToken: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The identifier of the store whose history this token points into.
    public let storeIdentifier: String
    /// The transaction's number; numbers only grow, and are never reused after pruning.
    public let transactionNumber: Int64

    package init(storeIdentifier: String, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    /// Orders tokens of one store by transaction number. Tokens of different
    /// stores get an arbitrary but stable order (by store identifier).
    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        if lhs.storeIdentifier != rhs.storeIdentifier { return lhs.storeIdentifier < rhs.storeIdentifier }
        return lhs.transactionNumber < rhs.transactionNumber
    }

    /// The position before a store's first transaction: history read after
    /// it is all of it, and fails with `.historyTokenExpired` once any was pruned.
    package static func start(of storeIdentifier: String) -> HistoryToken {
        HistoryToken(storeIdentifier: storeIdentifier, transactionNumber: 0)
    }

    /// The number of the transaction before this one, 0 for none: where
    /// deleting history before this token stops. A token decoded with a
    /// number below 1 stands before all history.
    package var numberBefore: Int64 { max(transactionNumber, 1) - 1 }

    public var description: String { "HistoryToken(\(transactionNumber) in \(storeIdentifier))" }
}
