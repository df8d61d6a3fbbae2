import Foundation

/// The transactions a store's history records, read without the app's models
/// and without changing the file: `strata history` prints them.
///
/// ```swift
/// let listing = try StoreHistoryListing(url: url, after: 40, author: "importer")
/// for transaction in listing.transactions { print(transaction.token, transaction.changes.count) }
/// ```
public struct StoreHistoryListing: Sendable, Codable {
    /// One transaction and what it changed.
    public struct Transaction: Sendable, Codable {
        /// The transaction's number: the token that names it.
        public var token: Int64
        public var date: Date
        public var author: String?
        public var contextName: String?
        public var changes: [Change]

        package init(token: Int64, date: Date, author: String?, contextName: String?, changes: [Change]) {
            self.token = token
            self.date = date
            self.author = author
            self.contextName = contextName
            self.changes = changes
        }
    }

    /// One object a transaction inserted, updated or deleted.
    public struct Change: Sendable, Codable {
        public var type: HistoryChange.ChangeType
        public var entityName: String
        public var primaryKey: Int64
        /// The properties an update wrote.
        public var updatedProperties: [String]?

        package init(type: HistoryChange.ChangeType, entityName: String, primaryKey: Int64, updatedProperties: [String]?) {
            self.type = type
            self.entityName = entityName
            self.primaryKey = primaryKey
            self.updatedProperties = updatedProperties
        }
    }

    public var fileName: String
    public var transactions: [Transaction]

    package init(fileName: String, transactions: [Transaction] = []) {
        self.fileName = fileName
        self.transactions = transactions
    }

}
