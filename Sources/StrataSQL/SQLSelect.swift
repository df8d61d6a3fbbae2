import StrataCore

/// The SQL of one fetch plan: `SELECT … FROM … WHERE … ORDER BY … LIMIT … OFFSET …`,
/// in a dialect.
///
/// The order is the requested one, then the primary key, so pages are stable.
/// A page is `LIMIT ? OFFSET ?` in SQLite and `LIMIT $n` / `OFFSET $n` (each
/// when needed) in PostgreSQL; values bound before the plan's own (a select
/// list's `$n`) are given as `leading`.
///
/// ```swift
/// let select = try SQLSelect(plan, dialect: SQLiteExpressionDialect(schema: schema, layout: layout))
/// select.sql(columns: "t0.pk")   // SELECT t0.pk FROM "Book" AS t0 WHERE t0."year" >= ? ORDER BY t0.pk
/// select.arguments               // [.integer(2000)]
/// ```
package struct SQLSelect: Sendable {
    package let table: String
    package let whereClause: String?
    /// The requested order, then the primary key.
    package let orderClause: String
    /// `LIMIT … OFFSET …`, or empty.
    package let pageClause: String
    /// Values of the WHERE clause (after the leading ones).
    package let whereArguments: [StoredValue]
    /// Values of the WHERE and ORDER BY clauses and the page.
    package let arguments: [StoredValue]
    /// The page's `?` values, which follow the WHERE clause's in a count.
    private let pageArguments: [StoredValue]
    private let placeholders: SQLDialect
    /// Whether a page must first evaluate the condition on every row: when it
    /// can fail the query, a page fails as the whole result would, though
    /// `LIMIT` lets the database stop early.
    package let checksEveryRow: Bool

    package init<Dialect: SQLExpressionDialect>(
        _ plan: FetchPlan, dialect: Dialect, leading: [StoredValue] = []
    ) throws(Dialect.Failure) {
        var renderer = SQLExpressionRenderer(dialect, arguments: leading)
        let condition = try plan.predicate.map { predicate throws(Dialect.Failure) in try renderer.condition(predicate).fragment }
        whereClause = condition?.sql
        whereArguments = renderer.arguments + (condition?.arguments ?? [])
        // The order's subqueries number their aliases afresh.
        var sortRenderer = SQLExpressionRenderer(dialect, arguments: renderer.arguments)
        let order = try sortRenderer.order(plan.sort)
        orderClause = order.isEmpty ? "t0.pk" : order.sql + ", t0.pk"
        var page = SQLFragment()
        switch Dialect.placeholders {
        case .sqlite:
            if plan.limit != nil || plan.offset > 0 {
                page = SQLFragment(" LIMIT ? OFFSET ?", arguments: [.integer(Int64(plan.limit ?? -1)), .integer(Int64(plan.offset))])
            }
        case .postgres:
            if let limit = plan.limit, limit >= 0 { page.append(" LIMIT " + sortRenderer.bind(.integer(Int64(limit))).sql) }
            if plan.offset > 0 { page.append(" OFFSET " + sortRenderer.bind(.integer(Int64(plan.offset))).sql) }
        }
        pageClause = page.sql
        pageArguments = page.arguments
        arguments = sortRenderer.arguments + (condition?.arguments ?? []) + order.arguments + page.arguments
        table = dialect.table(of: plan.entityIndex)
        placeholders = Dialect.placeholders
        checksEveryRow = plan.isLimited && plan.predicate?.canFail == true
    }

    private var fromWhere: String { "FROM \(table) AS t0" + (whereClause.map { " WHERE \($0)" } ?? "") }

    /// The selected columns of the plan's rows, in its order and page.
    package func sql(columns: String) -> String {
        "SELECT \(columns) \(fromWhere) ORDER BY \(orderClause)" + pageClause
    }

    /// The selected columns of the plan's rows, in no order when the plan has
    /// no page (for aggregates and groups), with the values it binds.
    package func unorderedSQL(columns: String) -> (sql: String, arguments: [StoredValue]) {
        guard pageClause.isEmpty else { return (sql(columns: columns), arguments) }
        return ("SELECT \(columns) \(fromWhere)", whereArguments)
    }

    /// `SELECT count(*)` of the plan's rows (its page, when it has one), and its values.
    package var count: (sql: String, arguments: [StoredValue]) {
        guard !pageClause.isEmpty else { return ("SELECT count(*) \(fromWhere)", whereArguments) }
        switch placeholders {
        case .sqlite: return ("SELECT count(*) FROM (SELECT 1 \(fromWhere)\(pageClause))", whereArguments + pageArguments)
        case .postgres: return ("SELECT count(*) FROM (\(sql(columns: "1"))) AS page", arguments)
        }
    }

    /// Every row's condition, evaluated (for pages of conditions that can
    /// fail); its values are ``whereArguments``.
    package var checkSQL: String? {
        guard checksEveryRow, let whereClause else { return nil }
        return "SELECT count(*) FROM \(table) AS t0 WHERE \(whereClause)"
    }
}
