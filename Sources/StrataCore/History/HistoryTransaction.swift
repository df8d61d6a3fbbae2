import Foundation

/// One save as persistent history recorded it: who saved, when, from where, and
/// which objects were inserted, updated or deleted.
///
/// Transactions are `Sendable` values, so they can be fetched anywhere and
/// merged into a context in its own isolation domain.
///
/// ```swift
/// for transaction in try container.fetchHistory(after: lastToken) {
///     print(transaction.author ?? "-", transaction.contextName ?? "-", transaction.changes.count)
///     for change in transaction.changes where change.changeType == .delete {
///         print("deleted", change.objectID, change.tombstone ?? [:])
///     }
/// }
/// ```
public struct HistoryTransaction: Sendable, Hashable, Codable, Identifiable {
    /// The transaction's position in the store's history.
    public var token: HistoryToken
    /// When the save committed (the saving machine's clock).
    public var timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public var author: String?
    /// The saving context's ``ManagedObjectContext/name``.
    public var contextName: String?
    /// The process that saved.
    public var processID: Int32
    /// Identifies the loaded store instance (one per container and load) that
    /// saved; compare with ``PersistentContainer/historyOrigin`` to recognise a
    /// container's own transactions.
    public var origin: UUID
    /// What the save changed, inserts first, then updates, then deletions.
    public var changes: [HistoryChange]

    public var id: HistoryToken { token }

    package init(
        token: HistoryToken, timestamp: Date, author: String?, contextName: String?,
        processID: Int32, origin: UUID, changes: [HistoryChange]
    ) {
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.processID = processID
        self.origin = origin
        self.changes = changes
    }
}

/// One object's change within a ``HistoryTransaction``.
///
/// ```swift
/// if change.changeType == .update, change.updatedProperties.contains("title") {
///     reindex(change.objectID)
/// }
/// if change.changeType == .delete, case .text(let title)? = change.tombstone?["title"] {
///     print("deleted", title)
/// }
/// ```
public struct HistoryChange: Sendable, Hashable, Codable {
    /// What happened to the object.
    public enum ChangeType: String, Sendable, Hashable, Codable, CaseIterable {
        case insert
        case update
        case delete
    }

    public var changeType: ChangeType
    /// The object; its ID stays valid after deletion, for matching.
    public var objectID: ObjectID
    /// The object's entity.
    public var entityName: String { objectID.entityName }
    /// For updates, the attributes and relationships the save changed (exactly
    /// those); empty for inserts and deletions.
    public var updatedProperties: Set<String>
    /// For deletions, the last values of attributes marked
    /// `@Attribute(.preserveValueOnDeletion)`, by name; nil otherwise.
    public var tombstone: [String: StoredValue]?
    /// With `StoreDescription.historyRecordsValueChanges`: attribute values
    /// before the save — the changed ones for updates, all for deletions.
    public var oldValues: [String: StoredValue]?
    /// With `StoreDescription.historyRecordsValueChanges`: attribute values
    /// after the save — the changed ones for updates, all for inserts.
    public var newValues: [String: StoredValue]?

    package init(
        changeType: ChangeType, objectID: ObjectID, updatedProperties: Set<String> = [],
        tombstone: [String: StoredValue]? = nil, oldValues: [String: StoredValue]? = nil,
        newValues: [String: StoredValue]? = nil
    ) {
        self.changeType = changeType
        self.objectID = objectID
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
        self.oldValues = oldValues
        self.newValues = newValues
    }
}
