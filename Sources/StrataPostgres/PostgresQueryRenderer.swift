import StrataCore
import StrataSQL

/// Renders Strata's store-neutral query form as PostgreSQL SQL over the
/// store's tables, every value bound as `$n`.
///
/// SQL conditions are booleans in PostgreSQL, where Strata's are numbers, so
/// each rendered term knows whether it is a condition or a value and is
/// converted where the other is needed. The fetched row is `t0`; to-one
/// objects not in scope are correlated subqueries, to-many tests `EXISTS` and
/// `COUNT` subqueries, as in the SQLite store. Folded text comes from the
/// hidden `_folded_…` columns and from Swift's folding of constants; what
/// PostgreSQL cannot compute with Swift's meaning fails with
/// `.unsupportedPredicate` before the query runs.
///
/// ```swift
/// var renderer = PostgresQueryRenderer(layout: layout)
/// let condition = try renderer.condition(predicate)   // (t0."year" >= $1)
/// renderer.arguments                                 // [.integer(2000)]
/// ```
struct PostgresQueryRenderer {
    let layout: PostgresLayout
    var schema: Schema { layout.schema }
    /// The values bound so far, `$1` first.
    private(set) var arguments: [StoredValue] = []
    private var nextAlias = 1
    private var aliases: [Int: String] = [0: "t0"]

    init(layout: PostgresLayout, arguments: [StoredValue] = []) {
        self.layout = layout
        self.arguments = arguments
    }

    private enum Term {
        case condition(String)
        case value(String)
    }

    /// Binds a value; returns its placeholder.
    mutating func bind(_ value: StoredValue) -> String {
        if value.isNull { return "NULL" }
        arguments.append(value)
        return "$\(arguments.count)"
    }

    /// An expression used as a condition (a number is true when non-zero).
    mutating func condition(_ expression: StoreExpression) throws(StrataError) -> String {
        switch try render(expression) {
        case .condition(let sql): sql
        case .value(let sql): "(\(sql) <> 0)"
        }
    }

    /// An expression used as a value (a condition is 1, 0 or NULL).
    mutating func value(_ expression: StoreExpression) throws(StrataError) -> String {
        switch try render(expression) {
        case .condition(let sql): "(\(sql))::int4::int8"
        case .value(let sql): sql
        }
    }

    private mutating func makeAlias() -> String {
        defer { nextAlias += 1 }
        return "t\(nextAlias)"
    }

    private mutating func render(_ expression: StoreExpression) throws(StrataError) -> Term {
        switch expression {
        case .value(let value):
            return .value(bind(value))
        case .boolean(let value):
            return .condition(value ? "TRUE" : "FALSE")
        case .key(let object):
            return .value(try key(of: object))
        case .property(let object, let ordinal):
            return .value(try property(ordinal, of: object, folded: false))
        case .equal(let lhs, let rhs):
            return .condition("(\(try value(lhs)) IS NOT DISTINCT FROM \(try value(rhs)))")
        case .notEqual(let lhs, let rhs):
            return .condition("(\(try value(lhs)) IS DISTINCT FROM \(try value(rhs)))")
        case .compare(let lhs, let op, let rhs, let collation):
            switch collation {
            case .binary:
                return .condition("(\(try value(lhs)) \(op.rawValue) \(try value(rhs)))")
            case .decimal:
                return .condition("((\(try value(lhs)))::numeric \(op.rawValue) (\(try value(rhs)))::numeric)")
            case .folded:
                // By folded form, then by code point: a row comparison.
                let left = "ROW(\(try folded(lhs)), \(try value(lhs)))"
                let right = "ROW(\(try folded(rhs)), \(try value(rhs)))"
                return .condition("(\(left) \(op.rawValue) \(right))")
            }
        case .and(let lhs, let rhs):
            if lhs.canFail || rhs.canFail {
                // Swift's order: the right side only where the left is true.
                return .condition("(CASE WHEN \(try condition(lhs)) THEN \(try condition(rhs)) ELSE FALSE END)")
            }
            return .condition("(\(try condition(lhs)) AND \(try condition(rhs)))")
        case .or(let lhs, let rhs):
            if lhs.canFail || rhs.canFail {
                return .condition("(CASE WHEN \(try condition(lhs)) THEN TRUE ELSE \(try condition(rhs)) END)")
            }
            return .condition("(\(try condition(lhs)) OR \(try condition(rhs)))")
        case .not(let inner):
            return .condition("(NOT \(try condition(inner)))")
        case .arithmetic(let lhs, let op, let rhs, let domain):
            return .value(try arithmetic(op, try value(lhs), try value(rhs), domain))
        case .negate(let inner, let domain):
            if case .integer = domain { return .value(try arithmetic(.subtract, "0", try value(inner), domain)) }
            return .value("(-\(try value(inner)))")
        case .coalesce(let first, let second):
            return .value("COALESCE(\(try value(first)), \(try value(second)))")
        case .conditional(let test, let yes, let no):
            return .value("(CASE WHEN \(try condition(test)) THEN \(try value(yes)) ELSE \(try value(no)) END)")
        case .isNull(let inner):
            return .condition("(\(try value(inner)) IS NULL)")
        case .unwrapped(let inner):
            if case .value(.null) = inner { throw UnwrapFunction.failure }
            return .value("\(PostgresFunctions.unwrap(namespace: layout.namespace))(\(try value(inner)))")
        case .inList(let subject, let values):
            let list = values.map { bind($0) }
            guard !list.isEmpty else { return .condition("(CASE WHEN \(try value(subject)) IS NULL THEN NULL ELSE FALSE END)") }
            return .condition("(\(try value(subject)) IN (\(list.joined(separator: ", "))))")
        case .between(let subject, let low, let high):
            if subject.canFail || low.canFail || high.canFail {
                return try render(.and(.compare(subject, .greaterThanOrEqual, low), .compare(subject, .lessThanOrEqual, high)))
            }
            return .condition("(\(try value(subject)) BETWEEN \(try value(low)) AND \(try value(high)))")
        case .hasPrefix(let text, let prefix):
            return .condition("starts_with(\(try value(text)), \(try value(prefix)))")
        case .containsText(let text, let part):
            return .condition("(strpos(\(try value(text)), \(try value(part))) > 0)")
        case .transformed(let text, .folded):
            return .value(try folded(text))
        case .transformed(let text, .backwards):
            return .value("reverse(\(try value(text)))")
        case .exists(let relationship, let variable, let memberCondition):
            let alias = makeAlias()
            aliases[variable] = alias
            let (from, link) = try source(of: relationship, alias: alias)
            guard let memberCondition else { return .condition("EXISTS (SELECT 1 FROM \(from) WHERE \(link))") }
            let test = try condition(memberCondition)
            let filter = memberCondition.canFail ? "(CASE WHEN \(link) THEN \(test) ELSE NULL END)" : "\(link) AND \(test)"
            return .condition("EXISTS (SELECT 1 FROM \(from) WHERE \(filter))")
        case .count(let relationship):
            let (from, link) = try source(of: relationship, alias: makeAlias())
            return .value("(SELECT COUNT(*) FROM \(from) WHERE \(link))")
        }
    }

    /// The folded form of text: a property's hidden column, or a constant folded here.
    mutating func folded(_ expression: StoreExpression) throws(StrataError) -> String {
        switch expression {
        case .value(let value):
            return bind(PostgresLayout.folded(value))
        case .property(let object, let ordinal):
            return try property(ordinal, of: object, folded: true)
        case .transformed(let inner, .folded):
            return try folded(inner)
        case .coalesce(let first, let second):
            return "COALESCE(\(try folded(first)), \(try folded(second)))"
        default:
            throw StrataError(
                .unsupportedPredicate,
                "The PostgreSQL store folds stored String properties and constants only, not a computed value; "
                    + "fold a property or compare without case folding")
        }
    }

    private mutating func arithmetic(
        _ op: ArithmeticOperator, _ lhs: String, _ rhs: String, _ domain: CheckedArithmetic.Domain
    ) throws(StrataError) -> String {
        switch domain {
        case .integer(let range):
            return "\(PostgresFunctions.integer(namespace: layout.namespace))('\(op.rawValue)', (\(lhs))::int8, (\(rhs))::int8, "
                + "\(range.lowerBound), \(range.upperBound))"
        case .real, .float:
            return "\(PostgresFunctions.real(namespace: layout.namespace))('\(op.rawValue)', (\(lhs))::float8, (\(rhs))::float8, "
                + (domain == .float ? "TRUE)" : "FALSE)")
        }
    }

    private mutating func key(of object: ObjectOperand) throws(StrataError) -> String {
        switch object.source {
        case .variable(let variable): "\(aliases[variable] ?? "t0").pk"
        case .keyed(let key): try value(key)
        }
    }

    /// A column of a row in scope, or a correlated subquery on the key of one that is not.
    private mutating func property(_ ordinal: Int, of object: ObjectOperand, folded: Bool) throws(StrataError) -> String {
        let entity = schema.entities[object.entityIndex]
        var column = quote(entity.properties[ordinal].name)
        if folded {
            let index = entity.columnIndexByOrdinal[ordinal]
            guard index >= 0, let hidden = layout.entities[entity.index].foldedColumns[index] else {
                throw StrataError(
                    .unsupportedPredicate, "\(entity.name).\(entity.properties[ordinal].name) is not String text; it cannot be folded",
                    entityName: entity.name, propertyName: entity.properties[ordinal].name)
            }
            column = hidden
        }
        switch object.source {
        case .variable(let variable):
            return "\(aliases[variable] ?? "t0").\(column)"
        case .keyed(let keyExpression):
            let key = try value(keyExpression)
            let alias = makeAlias()
            return "(SELECT \(alias).\(column) FROM \(layout.entities[entity.index].table) AS \(alias) WHERE \(alias).pk = \(key))"
        }
    }

    /// The `FROM` clause over a relationship's member rows as `alias`, and the
    /// condition that ties them to their owner.
    private mutating func source(of relationship: ToManyOperand, alias: String) throws(StrataError) -> (from: String, link: String) {
        let owner = try key(of: relationship.owner)
        let from = "\(layout.entities[relationship.destinationIndex].table) AS \(alias)"
        switch layout.toMany[relationship.owner.entityIndex][relationship.ordinal] {
        case .joinTable(_, _, let join)?:
            let joinAlias = "\(alias)_j"
            return ("\(from) JOIN \(join.table) AS \(joinAlias) ON \(joinAlias).\(join.member) = \(alias).pk",
                    "\(joinAlias).\(join.owner) = \(owner)")
        case .foreignKey(_, let foreignKey, _)?:
            return (from, "\(alias).\(foreignKey) = \(owner)")
        case nil:
            let entity = schema.entities[relationship.owner.entityIndex]
            throw StrataError(
                .unsupportedPredicate, "\(entity.name).\(entity.properties[relationship.ordinal].name) has no stored members",
                entityName: entity.name)
        }
    }

    /// The `ORDER BY` list of sort terms, without the keywords; NULLs first
    /// in ascending order, as in every store.
    mutating func order(_ sort: [SortTerm]) throws(StrataError) -> [String] {
        var terms: [String] = []
        for term in sort {
            // A column that cannot be NULL needs no NULLS clause, and without
            // one an ordinary index serves the order.
            let direction = isNeverNull(term.value) ? (term.ascending ? "ASC" : "DESC")
                : (term.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")
            switch term.collation {
            case .folded?:
                terms.append("\(try folded(term.value)) \(direction)")
                terms.append("\(try value(term.value)) \(direction)")
            case .decimal?:
                terms.append("(\(try value(term.value)))::numeric \(direction)")
            case .binary?, nil:
                terms.append("\(try value(term.value)) \(direction)")
            }
        }
        return terms
    }
}

extension PostgresQueryRenderer {
    /// Whether a value is a required attribute or the key of a row in scope.
    func isNeverNull(_ value: StoreExpression) -> Bool {
        switch value {
        case .key(let object), .transformed(.key(let object), _):
            if case .variable = object.source { return true }
            return false
        case .property(let object, let ordinal), .transformed(.property(let object, let ordinal), _):
            guard case .variable = object.source, let attribute = schema.entities[object.entityIndex].attribute(at: ordinal) else {
                return false
            }
            return !attribute.isOptional
        default:
            return false
        }
    }
}

/// The SQL of one fetch plan: `SELECT … FROM … WHERE … ORDER BY … LIMIT … OFFSET …`.
///
/// ```swift
/// let select = try PostgresSelect(plan, layout: layout)
/// let rows = try session.rows(select.sql(columns: layout.entities[plan.entityIndex].selectList), select.arguments)
/// ```
struct PostgresSelect {
    let table: String
    let whereClause: String?
    let orderClause: String
    /// Values of the WHERE and ORDER BY clauses and the page.
    let arguments: [StoredValue]
    /// Values of the WHERE clause alone (they come first).
    let whereArguments: [StoredValue]
    let limit: Int?
    let offset: Int
    /// A page must first evaluate a condition that can fail on every row, as
    /// the whole result would.
    let checksEveryRow: Bool
    private let pageClause: String

    /// `leading`: values bound before the plan's own (a select list's).
    init(_ plan: FetchPlan, layout: PostgresLayout, leading: [StoredValue] = []) throws(StrataError) {
        var renderer = PostgresQueryRenderer(layout: layout, arguments: leading)
        whereClause = try plan.predicate.map { predicate throws(StrataError) in try renderer.condition(predicate) }
        whereArguments = renderer.arguments
        orderClause = (try renderer.order(plan.sort) + ["t0.pk"]).joined(separator: ", ")
        var page = ""
        if let limit = plan.limit, limit >= 0 { page += " LIMIT \(renderer.bind(.integer(Int64(limit))))" }
        if plan.offset > 0 { page += " OFFSET \(renderer.bind(.integer(Int64(plan.offset))))" }
        pageClause = page
        arguments = renderer.arguments
        table = layout.entities[plan.entityIndex].table
        limit = plan.limit
        offset = plan.offset
        checksEveryRow = plan.isLimited && plan.predicate?.canFail == true
    }

    /// The selected columns of the plan's rows, in its order and page.
    func sql(columns: String) -> String {
        "SELECT \(columns) FROM \(table) AS t0" + (whereClause.map { " WHERE \($0)" } ?? "") + " ORDER BY \(orderClause)" + pageClause
    }

    /// The selected columns of the plan's rows, in no order when the plan has
    /// no page (for aggregates and groups), with the values it binds.
    func unorderedSQL(columns: String) -> (sql: String, arguments: [StoredValue]) {
        guard pageClause.isEmpty else { return (sql(columns: columns), arguments) }
        return ("SELECT \(columns) FROM \(table) AS t0" + (whereClause.map { " WHERE \($0)" } ?? ""), whereArguments)
    }

    /// `SELECT count(*)` of the plan's rows (its page, when it has one), and its values.
    var count: (sql: String, arguments: [StoredValue]) {
        guard !pageClause.isEmpty else {
            return ("SELECT count(*) FROM \(table) AS t0" + (whereClause.map { " WHERE \($0)" } ?? ""), whereArguments)
        }
        return ("SELECT count(*) FROM (\(sql(columns: "1"))) AS page", arguments)
    }

    /// Every row's condition, evaluated (for pages of conditions that can
    /// fail); its values are ``whereArguments``.
    var checkSQL: String? {
        guard checksEveryRow, let whereClause else { return nil }
        return "SELECT count(*) FROM \(table) AS t0 WHERE \(whereClause)"
    }
}
