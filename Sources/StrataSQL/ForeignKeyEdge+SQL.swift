import StrataCore

extension ForeignKeyEdge {
    /// The column, quoted for SQL.
    ///
    /// ```swift
    /// "UPDATE \(table) SET \(edge.column) = NULL WHERE …"
    /// ```
    package var column: String { quote(columnName) }
}
