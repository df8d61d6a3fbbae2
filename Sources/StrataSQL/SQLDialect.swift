import StrataCore

/// What differs between the SQL databases Strata stores in, where the shared
/// SQL layer writes statements for them.
///
/// ```swift
/// SQLDialect.sqlite.placeholder(2)     // ?
/// SQLDialect.postgres.placeholder(2)   // $2
/// ```
package enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The placeholder of the bound value at `position` (1 for the first).
    package func placeholder(_ position: Int) -> String {
        switch self {
        case .sqlite: "?"
        case .postgres: "$\(position)"
        }
    }
}

extension StoredValue {
    /// The text of a `.text` value; nil otherwise.
    package var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }
}
