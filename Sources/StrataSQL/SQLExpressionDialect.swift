import StrataCore

/// What a SQL database says differently when ``SQLExpressionRenderer``
/// renders a `StoreExpression`: its literals, its text functions, how it
/// compares text by a collation, its checked arithmetic and where it finds a
/// to-many relationship's members.
///
/// The hooks that render sub-expressions are static and take the renderer,
/// so they reach the dialect's tables through `renderer.dialect` while the
/// renderer keeps its aliases and bound values.
///
/// ```swift
/// var renderer = SQLExpressionRenderer(SQLiteExpressionDialect(schema: schema, layout: layout))
/// renderer.condition(predicate).fragment   // t0."year" >= ?
/// ```
package protocol SQLExpressionDialect {
    /// What rendering can fail with: `Never` where every expression renders.
    associatedtype Failure: Error

    /// How values are bound: `?` carried by each fragment, or `$n` numbered by the renderer.
    static var placeholders: SQLDialect { get }
    /// The literals of a condition known while rendering.
    static var trueValue: SQLTerm { get }
    static var falseValue: SQLTerm { get }
    /// `IS` / `IS NOT`: equality that treats two NULLs as equal.
    static var nullSafeEqual: String { get }
    static var nullSafeNotEqual: String { get }
    /// The function that finds text in text, 1-based, 0 when absent.
    static var textPosition: String { get }

    var schema: Schema { get }

    /// A condition used as a value: 1, 0 or NULL.
    func value(ofCondition term: SQLTerm) -> SQLTerm
    /// A value used as a condition: true when non-zero.
    func condition(ofValue term: SQLTerm) -> SQLTerm
    /// The table an entity's rows live in, quoted (and qualified).
    func table(of entityIndex: Int) -> String
    /// Where the members of an entity's to-many relationship are stored.
    func members(of entityIndex: Int, ordinal: Int) throws(Failure) -> SQLToManyStorage

    /// `lhs op rhs` by a collation.
    static func compare(
        _ lhs: StoreExpression, _ op: ComparisonOperator, _ rhs: StoreExpression, _ collation: Collation,
        in renderer: inout SQLExpressionRenderer<Self>
    ) throws(Failure) -> SQLTerm
    /// `lhs op rhs` in a checked domain, failing the query as Swift would trap.
    static func arithmetic(
        _ op: ArithmeticOperator, _ lhs: SQLTerm, _ rhs: SQLTerm, _ domain: CheckedArithmetic.Domain,
        in renderer: inout SQLExpressionRenderer<Self>
    ) -> SQLTerm
    /// A force-unwrapped value, failing the query where it is NULL.
    static func unwrap(_ value: StoreExpression, in renderer: inout SQLExpressionRenderer<Self>) throws(Failure) -> SQLTerm
    /// Whether text starts with a prefix, by code point.
    static func hasPrefix(
        _ text: StoreExpression, _ prefix: StoreExpression, in renderer: inout SQLExpressionRenderer<Self>
    ) throws(Failure) -> SQLTerm
    /// Text folded or reversed.
    static func transformed(
        _ text: StoreExpression, _ transform: TextTransform, in renderer: inout SQLExpressionRenderer<Self>
    ) throws(Failure) -> SQLTerm
    /// The `ORDER BY` items of one sort term.
    static func order(_ term: SortTerm, in renderer: inout SQLExpressionRenderer<Self>) throws(Failure) -> [SQLFragment]
    /// `subject IN (list)`; the list may be empty.
    static func isIn(_ subject: SQLTerm, _ list: [SQLTerm]) -> SQLTerm
}

extension SQLExpressionDialect {
    package static func isIn(_ subject: SQLTerm, _ list: [SQLTerm]) -> SQLTerm {
        SQLExpressionRenderer<Self>.inList(subject, list)
    }
}

/// Where a to-many relationship's members are found, every name quoted.
package enum SQLToManyStorage {
    /// A join table: the owner's key in `owner`, the member's in `member`.
    case joinTable(table: String, owner: String, member: String)
    /// The members' own column holding their owner's key.
    case foreignKey(column: String)
}
