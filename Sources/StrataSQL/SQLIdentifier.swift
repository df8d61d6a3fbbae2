import StrataCore

/// Quotes an identifier for SQL. Identifiers come from a validated schema;
/// quoting also keeps SQL keywords usable as names.
package func quote(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// A text literal for SQL, for the few statements that cannot bind a value
/// (`DEFAULT` clauses, table-valued pragmas).
package func sqlTextLiteral(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
}
