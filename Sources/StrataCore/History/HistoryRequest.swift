import Foundation

/// Which history transactions to fetch: a starting point and optional filters.
///
/// ```swift
/// var request = HistoryRequest(after: lastToken)
/// request.authors = ["extension"]
/// request.entityNames = ["Book"]
/// let transactions = try container.fetchHistory(request)
/// ```
public struct HistoryRequest: Sendable, Hashable {
    /// Where fetching starts.
    public enum Start: Sendable, Hashable {
        /// Every transaction still kept.
        case beginning
        /// Transactions after this one; throws `.historyTokenExpired` when
        /// transactions after it were pruned.
        case token(HistoryToken)
        /// Transactions whose timestamp is later than this date.
        case date(Date)
    }

    public var start: Start
    /// Only transactions saved by these authors; nil for any author.
    public var authors: Set<String>?
    /// Leave out transactions saved through this origin (for example
    /// ``PersistentContainer/historyOrigin``, to skip a container's own saves).
    public var excludedOrigin: UUID?
    /// Only changes to these entities; transactions left without changes are
    /// skipped. Nil for every entity.
    public var entityNames: Set<String>?
    /// At most this many transactions, oldest first; nil for no limit.
    public var fetchLimit: Int?

    /// Transactions after `token`, or all of them when `token` is nil.
    public init(after token: HistoryToken? = nil) {
        start = token.map(Start.token) ?? .beginning
    }

    /// Transactions whose timestamp is later than `date`.
    public init(after date: Date) {
        start = .date(date)
    }
}
