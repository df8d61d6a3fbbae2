/// The batch operations of a store in its own terms: rows, conditions, results.

/// Who a batch operation is recorded for, and which context ran it.
package struct BatchTransaction: Sendable {
    package var author: String?
    package var contextName: String?
    /// The running context's origin token: its own inbox skips the broadcast,
    /// because that context merges the result itself.
    package var origin: ObjectIdentifier?

    package init(author: String? = nil, contextName: String? = nil, origin: ObjectIdentifier? = nil) {
        self.author = author
        self.contextName = contextName
        self.origin = origin
    }
}

/// What one batch operation committed.
package struct BatchWriteResult: Sendable {
    /// Everything the transaction changed, cascades and nullified foreign keys included.
    package var changes: ChangeSet
    /// The rows the request itself inserted, updated or deleted, in key order.
    package var primaryKeys: [Int64] = []
}

/// The rows of a batch insert in column order, and which columns each row set.
package struct BatchRows: Sendable {
    /// Full rows in the entity's column order (unset optional columns are NULL).
    package var values: [[StoredValue]] = []
    /// For each row, its index in ``columnSets`` (empty unless tracked).
    package var columnSetOfRow: [Int] = []
    /// The distinct sets of column indices rows set, ascending.
    package var columnSets: [[Int]] = []

    package init() {}
}

/// What a batch insert does with a row whose unique key a stored row holds.
package enum UpsertAction: Sendable, Equatable {
    /// Update the stored row: every column (`allColumns`), or those the row sets.
    case update(allColumns: Bool)
    /// Keep the stored row as it is.
    case keep
}

/// Which rows a batch delete starts from.
package enum BatchDeleteSelection: Sendable {
    /// Rows matching a condition (nil: every row).
    case matching(StoreExpression?)
    /// Rows with these primary keys; keys without a row are ignored.
    case keys([Int64])
}
