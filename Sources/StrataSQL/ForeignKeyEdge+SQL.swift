import StrataCore

extension ForeignKeyEdge {
    /// The column, quoted for SQL.
    ///
    /// ```swift
    /// "UPDATE \(table) SET \(edge.column) = NULL WHERE …"
    /// ```
    package var column: String { quote(columnName) }
}

extension DeleteRule {
    /// The SQL foreign-key action that carries the rule out (`ON DELETE …`),
    /// or nil for `.noAction`, which declares none.
    package var foreignKeyAction: String? {
        switch self {
        case .nullify: "SET NULL"
        case .cascade: "CASCADE"
        case .deny: "RESTRICT"
        case .noAction: nil
        }
    }
}
