/// Quotes an identifier for SQL. Identifiers come from a validated schema;
/// quoting also keeps SQL keywords usable as names.
package func quote(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
