/// One row of one entity, as a set member or dictionary key.
///
/// ```swift
/// var doomed = Set<RowKey>()
/// doomed.insert(RowKey(book.index, 42))
/// ```
package struct RowKey: Hashable, Sendable, Comparable {
    package var entityIndex: Int
    package var primaryKey: Int64

    package init(_ entityIndex: Int, _ primaryKey: Int64) {
        self.entityIndex = entityIndex
        self.primaryKey = primaryKey
    }

    /// By entity, then key: the order stores write and report rows in.
    package static func < (lhs: RowKey, rhs: RowKey) -> Bool {
        (lhs.entityIndex, lhs.primaryKey) < (rhs.entityIndex, rhs.primaryKey)
    }
}
