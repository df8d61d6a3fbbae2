import StrataCore
/// A piece of SQL together with the values bound to its `?` placeholders, in order.
///
/// The query compiler never splices values into SQL text: every value from a
/// predicate becomes a `?` here and an entry of ``arguments``.
///
/// ```swift
/// let fragment = try PredicateCompiler(schema: schema, entity: book)
///     .compile(#Predicate<Book> { $0.year >= 2000 })
/// fragment.sql        // t0."year" >= ?
/// fragment.arguments  // [.integer(2000)]
/// ```
package struct SQLFragment: Sendable, Hashable, CustomStringConvertible {
    /// The SQL text, with one `?` per argument.
    package var sql: String
    /// The values bound to the placeholders, in the order they appear in ``sql``.
    package var arguments: [StoredValue]

    package init(_ sql: String = "", arguments: [StoredValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    /// Whether the fragment holds no SQL.
    package var isEmpty: Bool { sql.isEmpty }

    /// Appends another fragment's text and arguments.
    package mutating func append(_ other: SQLFragment) {
        sql += other.sql
        arguments += other.arguments
    }

    /// Appends SQL text that binds nothing.
    package mutating func append(_ sql: String) {
        self.sql += sql
    }

    /// Concatenates fragments, keeping the arguments in textual order.
    package static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        var result = lhs
        result.append(rhs)
        return result
    }

    /// Joins fragments with a separator, keeping the arguments in textual order.
    package static func joined(_ fragments: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment()
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { result.append(separator) }
            result.append(fragment)
        }
        return result
    }

    package var description: String {
        arguments.isEmpty ? sql : "\(sql) \(arguments)"
    }
}

/// How tightly an SQL operator binds, lowest first (SQLite's order, coarsened).
///
/// Compiled expressions carry the precedence of their outermost operator so an
/// enclosing operator adds parentheses only where SQLite would otherwise group
/// differently (or where the SQL would be hard to read).
package enum SQLPrecedence: Int, Comparable {
    case or = 1, and, not, equality, relational, additive, multiplicative, unary, atomic

    package static func < (lhs: SQLPrecedence, rhs: SQLPrecedence) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A compiled SQL expression: its fragment and the precedence of its outermost operator.
package struct SQLTerm {
    package var fragment: SQLFragment
    package var precedence: SQLPrecedence

    package init(_ fragment: SQLFragment, _ precedence: SQLPrecedence) {
        self.fragment = fragment
        self.precedence = precedence
    }

    /// A term that needs no parentheses: a column, a placeholder, a call, a subquery.
    package static func atomic(_ sql: String, _ arguments: [StoredValue] = []) -> SQLTerm {
        SQLTerm(SQLFragment(sql, arguments: arguments), .atomic)
    }

    /// A bound value, or the keyword `NULL` for a null value.
    package static func bound(_ value: StoredValue) -> SQLTerm {
        value.isNull ? .atomic("NULL") : .atomic("?", [value])
    }

    /// The SQL `NULL`.
    package static let null = SQLTerm.atomic("NULL")
    /// SQL false / true, for results known at compile time.
    package static let falseValue = SQLTerm.atomic("0")
    package static let trueValue = SQLTerm.atomic("1")

    /// The term's SQL text.
    package var sql: String { fragment.sql }

    /// The fragment, parenthesized when it binds less tightly than `minimum`.
    package func operand(atLeast minimum: SQLPrecedence) -> SQLFragment {
        precedence >= minimum ? fragment : SQLFragment("(") + fragment + SQLFragment(")")
    }

    /// The fragment wrapped in parentheses unless it is atomic.
    package var parenthesized: SQLFragment { operand(atLeast: .atomic) }

    /// `lhs op rhs` for a binary operator of precedence `precedence`.
    ///
    /// Left operands of the same precedence need no parentheses (SQLite groups
    /// left to right); right ones do, except for the associative `AND` / `OR`.
    /// Operands of comparisons are parenthesized unless they are arithmetic or
    /// atomic, which keeps `(a < b) IS ?` readable.
    package static func binary(_ lhs: SQLTerm, _ op: String, _ rhs: SQLTerm, _ precedence: SQLPrecedence) -> SQLTerm {
        let left: SQLPrecedence
        let right: SQLPrecedence
        switch precedence {
        case .or, .and:
            left = precedence
            right = precedence
        case .equality, .relational:
            left = .additive
            right = .additive
        default:
            left = precedence
            right = SQLPrecedence(rawValue: precedence.rawValue + 1) ?? .atomic
        }
        let fragment = lhs.operand(atLeast: left) + SQLFragment(" \(op) ") + rhs.operand(atLeast: right)
        return SQLTerm(fragment, precedence)
    }

    /// `NOT term`.
    package static func not(_ term: SQLTerm) -> SQLTerm {
        SQLTerm(SQLFragment("NOT ") + term.operand(atLeast: .unary), .not)
    }

    /// A function call `name(arg, …)`.
    package static func call(_ name: String, _ arguments: [SQLTerm]) -> SQLTerm {
        let list = SQLFragment.joined(arguments.map(\.fragment), separator: ", ")
        return SQLTerm(SQLFragment("\(name)(") + list + SQLFragment(")"), .atomic)
    }
}
