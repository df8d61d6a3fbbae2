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

    package init(changes: ChangeSet, primaryKeys: [Int64] = []) {
        self.changes = changes
        self.primaryKeys = primaryKeys
    }
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

extension BatchRows {
    /// The positions of the rows to write: rows linked by any shared unique key
    /// (directly or through other rows) are one group, of which the last (or
    /// first) is kept. Keys with a NULL never clash.
    package static func deduplicated(_ rows: [[StoredValue]], keys: [[Int]], keepLast: Bool) -> [Int] {
        guard !keys.isEmpty, rows.count > 1 else { return Array(rows.indices) }
        var parent = Array(rows.indices)
        func root(_ row: Int) -> Int {
            var row = row
            while parent[row] != row {
                parent[row] = parent[parent[row]]
                row = parent[row]
            }
            return row
        }
        func link(_ row: Int, _ other: Int) {
            let (a, b) = (root(other), root(row))
            if a != b { parent[max(a, b)] = min(a, b) }
        }
        var linked = false
        for key in keys {
            if key.count == 1 {
                // One column (the usual key): its values, without an array per row.
                let column = key[0]
                var first: [StoredValue: Int] = [:]
                first.reserveCapacity(rows.count)
                for row in rows.indices where !rows[row][column].isNull {
                    if let other = first.updateValue(row, forKey: rows[row][column]) {
                        first[rows[row][column]] = other
                        link(row, other)
                        linked = true
                    }
                }
                continue
            }
            var first: [[StoredValue]: Int] = [:]
            for row in rows.indices {
                let values = key.map { rows[row][$0] }
                if values.contains(where: \.isNull) { continue }
                if let other = first[values] {
                    link(row, other)
                    linked = true
                } else {
                    first[values] = row
                }
            }
        }
        guard linked else { return Array(rows.indices) }
        // The row kept for each group, at the group's root.
        var chosen = [Int](repeating: -1, count: rows.count)
        for row in rows.indices {
            let group = root(row)
            if keepLast || chosen[group] < 0 { chosen[group] = row }
        }
        return chosen.filter { $0 >= 0 }.sorted()
    }
}
