import Foundation

/// Rows of one entity of a store file, read without the app's models and
/// without changing the file: `strata fetch` prints them.
///
/// Conditions compare one stored column with a value (`year >= 1970`,
/// `title contains Dune`, `author = 3`, `isbn = nil`); values are read by the
/// column's type, dates also in ISO 8601. Text compares by code point, as
/// every Strata store orders text. A to-one relationship's column holds the
/// related row's key.
///
/// ```swift
/// let rows = try StoreRows(url: url, entity: "Book",
///                          conditions: [try StoreRows.Condition(parsing: "year >= 1970")],
///                          sort: [try StoreRows.SortKey(parsing: "-year")], limit: 10)
/// for row in rows.rows { print(row) }
/// ```
public struct StoreRows: Sendable {
    /// A comparison of one column with a value.
    public struct Condition: Sendable, Hashable {
        public enum Comparison: String, Sendable, CaseIterable {
            case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
            case contains, beginsWith = "beginswith", endsWith = "endswith"
        }

        public var column: String
        public var comparison: Comparison
        /// The value as written; nil compares with NULL (`= nil`, `!= nil`).
        public var value: String?

        public init(column: String, comparison: Comparison, value: String?) {
            self.column = column
            self.comparison = comparison
            self.value = value
        }

        /// Reads `column comparison value`, as in `year >= 1970` or
        /// `title contains "The Left Hand"` (quotes are optional around a value
        /// without spaces). Throws `.unsupportedPredicate` for anything else.
        public init(parsing text: String) throws(StrataError) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let nameEnd = trimmed.firstIndex(where: { !($0.isLetter || $0.isNumber || $0 == "_") }),
                  nameEnd > trimmed.startIndex else {
                throw StrataError(.unsupportedPredicate, "'\(text)' is not a condition: write it as 'attribute = value'")
            }
            column = String(trimmed[..<nameEnd])
            let rest = trimmed[nameEnd...].trimmingCharacters(in: .whitespaces)
            let byLength = Comparison.allCases.sorted { $0.rawValue.count > $1.rawValue.count }
            guard let found = byLength.first(where: { rest.lowercased().hasPrefix($0.rawValue) }) ?? (rest.hasPrefix("==") ? .equal : nil)
            else {
                throw StrataError(
                    .unsupportedPredicate,
                    "'\(text)' has no comparison; use one of \(Comparison.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            comparison = found
            var literal = rest.dropFirst(rest.hasPrefix("==") ? 2 : found.rawValue.count).trimmingCharacters(in: .whitespaces)
            if literal.count >= 2, let first = literal.first, first == "\"" || first == "'", literal.last == first {
                literal = String(literal.dropFirst().dropLast())
                value = literal
            } else {
                value = literal == "nil" || literal == "null" ? nil : literal
            }
        }

        /// Reads conditions joined by `and`, as in `year >= 1970 and year < 2000`
        /// (an `and` inside quotes is part of a value).
        public static func all(parsing text: String) throws(StrataError) -> [Condition] {
            var parts: [String] = []
            var current = ""
            var quote: Character?
            var rest = Substring(text)
            while let character = rest.first {
                if let open = quote {
                    if character == open { quote = nil }
                } else if character == "\"" || character == "'", current.last?.isWhitespace ?? true {
                    // A quote opens a value only where one starts (`O'Brien` holds none).
                    quote = character
                } else if character == " ", rest.lowercased().hasPrefix(" and ") {
                    parts.append(current)
                    current = ""
                    rest = rest.dropFirst(5)
                    continue
                }
                current.append(character)
                rest = rest.dropFirst()
            }
            parts.append(current)
            return try parts.map { part throws(StrataError) in try Condition(parsing: part) }
        }
    }

    /// A column to sort by; `-name` or `name desc` sorts in descending order.
    public struct SortKey: Sendable, Hashable {
        public var column: String
        public var ascending: Bool

        public init(column: String, ascending: Bool = true) {
            self.column = column
            self.ascending = ascending
        }

        public init(parsing text: String) throws(StrataError) {
            var words = text.split(separator: " ").map(String.init)
            ascending = true
            if words.count == 2, ["desc", "asc"].contains(words[1].lowercased()) {
                ascending = words.removeLast().lowercased() == "asc"
            }
            guard words.count == 1 else {
                throw StrataError(.unsupportedPredicate, "'\(text)' is not a sort key: write 'name', 'name desc' or '-name'")
            }
            column = words[0]
            if column.hasPrefix("-") {
                ascending = false
                column.removeFirst()
            }
        }
    }

    public var fileName: String
    public var entityName: String
    /// `_pk`, then each stored attribute and to-one relationship.
    public var columns: [String]
    /// Each column's attribute type; nil for the key and for relationships.
    public var types: [AttributeType?]
    /// The rows' values, in `columns` order.
    public var rows: [[StoredValue]]

    package init(fileName: String, entityName: String, columns: [String], types: [AttributeType?]) {
        self.fileName = fileName
        self.entityName = entityName
        self.columns = columns
        self.types = types
        rows = []
    }

}
