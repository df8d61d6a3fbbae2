import StrataCore
import StrataSQL
/// Renders Strata's store-neutral query form as SQLite SQL over the store's
/// tables, every value bound.
///
/// The fetched row has the alias `t0`. A property of an object reached through
/// a to-one relationship is a correlated subquery on the destination's table,
/// and each to-many test an `EXISTS` or `COUNT` subquery (through the join table
/// for many-to-many and inverse-less to-many relationships); those subqueries
/// get aliases `t1`, `t2`, … in the order they appear.
///
/// ```swift
/// var renderer = SQLiteQueryRenderer(schema: schema, layout: layout)
/// renderer.render(.compare(.property(.row(0, entity: 1), 2), .greaterThanOrEqual, .value(.integer(2000)))).fragment
/// // t0."year" >= ?   [.integer(2000)]
/// ```
struct SQLiteQueryRenderer {
    let schema: Schema
    let layout: StoreLayout
    private var nextAlias = 1
    private var aliases: [Int: String] = [0: "t0"]

    init(schema: Schema, layout: StoreLayout) {
        self.schema = schema
        self.layout = layout
    }

    private mutating func makeAlias() -> String {
        defer { nextAlias += 1 }
        return "t\(nextAlias)"
    }

    /// The SQL of an expression.
    mutating func render(_ expression: StoreExpression) -> SQLTerm {
        switch expression {
        case .value(let value):
            return .bound(value)
        case .boolean(let value):
            return value ? .trueValue : .falseValue
        case .key(let object):
            return key(of: object)
        case .property(let object, let ordinal):
            return property(ordinal, of: object)
        case .equal(let lhs, let rhs):
            return .binary(render(lhs), "IS", render(rhs), .equality)
        case .notEqual(let lhs, let rhs):
            return .binary(render(lhs), "IS NOT", render(rhs), .equality)
        case .compare(let lhs, let op, let rhs, let collation):
            var left = render(lhs)
            if collation != .binary {
                left = SQLTerm(left.operand(atLeast: .atomic) + SQLFragment(" COLLATE \(collation.sqlName)"), .unary)
            }
            return .binary(left, op.rawValue, render(rhs), op == .equal ? .equality : .relational)
        case .and(let lhs, let rhs):
            if lhs.canFail { return inOrder(lhs, thenWhenTrue: rhs, otherwise: "0") }
            if rhs.canFail {
                // The left side also stays a term of its own, which an index
                // may serve: rows it rules out are rows Swift never divides in.
                return .binary(render(lhs), "AND", inOrder(lhs, thenWhenTrue: rhs, otherwise: "0"), .and)
            }
            return .binary(render(lhs), "AND", render(rhs), .and)
        case .or(let lhs, let rhs):
            if lhs.canFail || rhs.canFail { return inOrder(lhs, thenWhenFalse: rhs, otherwise: "1") }
            return .binary(render(lhs), "OR", render(rhs), .or)
        case .not(.isNull(let value)):
            return .binary(render(value), "IS NOT", .null, .equality)
        case .not(let condition):
            return .not(render(condition))
        case .arithmetic(let lhs, let op, let rhs, let domain):
            return checkedArithmetic(op, render(lhs), render(rhs), domain)
        case .negate(let value, let domain):
            if case .integer = domain { return checkedArithmetic(.subtract, .atomic("0"), render(value), domain) }
            return SQLTerm(SQLFragment("-") + render(value).operand(atLeast: .atomic), .unary)
        case .coalesce(let first, let second):
            return .call("COALESCE", [render(first), render(second)])
        case .conditional(let test, let yes, let no):
            var fragment = SQLFragment("CASE WHEN ") + render(test).fragment
            fragment.append(" THEN ")
            fragment.append(render(yes).fragment)
            fragment.append(" ELSE ")
            fragment.append(render(no).fragment)
            fragment.append(" END")
            return SQLTerm(fragment, .atomic)
        case .isNull(let value):
            return .binary(render(value), "IS", .null, .equality)
        case .unwrapped(let value):
            return .call(UnwrapFunction.name, [render(value)])
        case .inList(let subject, let values):
            let list = SQLFragment.joined(values.map { SQLTerm.bound($0).fragment }, separator: ", ")
            return SQLTerm(render(subject).operand(atLeast: .additive) + SQLFragment(" IN (") + list + SQLFragment(")"), .equality)
        case .between(let subject, let low, let high):
            if subject.canFail || low.canFail || high.canFail {
                // The upper bound only for a value at or above the lower one, as everywhere.
                return render(.and(.compare(subject, .greaterThanOrEqual, low), .compare(subject, .lessThanOrEqual, high)))
            }
            let fragment = render(subject).operand(atLeast: .additive) + SQLFragment(" BETWEEN ")
                + render(low).operand(atLeast: .additive) + SQLFragment(" AND ") + render(high).operand(atLeast: .additive)
            return SQLTerm(fragment, .equality)
        case .hasPrefix(let string, let prefix):
            // `substr` by code point: case-sensitive, unlike `LIKE`.
            let start = render(prefix)
            let head = SQLTerm.call("substr", [render(string), .atomic("1"), .call("length", [start])])
            let test = SQLTerm.binary(head, "=", start, .equality)
            guard hasIndex(leadingWith: string) else { return test }
            // Text starts with `start` exactly when it lies in [start, start || 0xF5)
            // byte-wise (no UTF-8 byte is 0xF5): a range an index serves alone.
            // Values that are not text (another program's) fall outside it, as
            // they cannot be read as a String attribute anyway.
            let upper = SQLTerm.binary(start, "||", .atomic("CAST(X'F5' AS TEXT)"), .unary)
            return .binary(
                .binary(render(string), ">=", start, .relational), "AND", .binary(render(string), "<", upper, .relational), .and)
        case .containsText(let string, let part):
            return .binary(.call("instr", [render(string), render(part)]), ">", .atomic("0"), .relational)
        case .transformed(let text, let transform):
            return .call(TextMatchingFunctions.name(of: transform), [render(text)])
        case .exists(let relationship, let variable, let condition):
            let alias = makeAlias()
            aliases[variable] = alias
            let (from, link) = source(of: relationship, alias: alias)
            let filter = condition.map { condition in
                let rendered = render(condition)
                return SQLTerm.binary(link, "AND", condition.canFail ? Self.guarded(rendered, after: link, skipWhenLeftIs: false) : rendered, .and)
            } ?? link
            var fragment = SQLFragment("EXISTS (SELECT 1 FROM \(from) WHERE ")
            fragment.append(filter.fragment)
            fragment.append(")")
            return SQLTerm(fragment, .atomic)
        case .count(let relationship):
            let (from, link) = source(of: relationship, alias: makeAlias())
            var fragment = SQLFragment("(SELECT COUNT(*) FROM \(from) WHERE ")
            fragment.append(link.fragment)
            fragment.append(")")
            return SQLTerm(fragment, .atomic)
        }
    }

    /// `&&` (`||`) whose sides can fail the query, as Swift evaluates it: the
    /// left side on every row, the right side only where it decides the
    /// result. SQLite may otherwise evaluate `AND` and `OR` terms in any order,
    /// or skip rows by an index on one of them; a `CASE` fixes the order and
    /// keeps every row. Conditions are two-valued where Swift's are `Bool`.
    private mutating func inOrder(_ left: StoreExpression, thenWhenTrue right: StoreExpression, otherwise: String) -> SQLTerm {
        caseTerm(render(left), then: render(right), else: .atomic(otherwise))
    }

    private mutating func inOrder(_ left: StoreExpression, thenWhenFalse right: StoreExpression, otherwise: String) -> SQLTerm {
        caseTerm(render(left), then: .atomic(otherwise), else: render(right))
    }

    private func caseTerm(_ test: SQLTerm, then yes: SQLTerm, else no: SQLTerm) -> SQLTerm {
        var fragment = SQLFragment("CASE WHEN ") + test.fragment
        fragment.append(" THEN ")
        fragment.append(yes.fragment)
        fragment.append(" ELSE ")
        fragment.append(no.fragment)
        fragment.append(" END")
        return SQLTerm(fragment, .atomic)
    }

    /// `CASE WHEN NOT left THEN NULL ELSE right END` (`skip` false): the
    /// right side of a member row's condition runs only for members, while
    /// the left side stays a term SQLite can use an index for.
    private static func guarded(_ right: SQLTerm, after left: SQLTerm, skipWhenLeftIs skip: Bool) -> SQLTerm {
        var fragment = SQLFragment(skip ? "CASE WHEN " : "CASE WHEN NOT ")
        fragment.append(left.operand(atLeast: .not))
        fragment.append(" THEN NULL ELSE ")
        fragment.append(right.fragment)
        fragment.append(" END")
        return SQLTerm(fragment, .atomic)
    }

    /// `strata_arithmetic(op, lhs, rhs, min, max)`; see ``CheckedArithmetic``.
    private func checkedArithmetic(_ op: ArithmeticOperator, _ lhs: SQLTerm, _ rhs: SQLTerm, _ domain: CheckedArithmetic.Domain) -> SQLTerm {
        let bounds: [SQLTerm] = switch domain {
        case .integer(let range): [.bound(.integer(range.lowerBound)), .bound(.integer(range.upperBound))]
        case .real: [.null, .null]
        case .float: [.atomic("'float'"), .null]
        }
        return .call(CheckedArithmetic.functionName, [.atomic("'\(op.rawValue)'"), lhs, rhs] + bounds)
    }

    private mutating func key(of object: ObjectOperand) -> SQLTerm {
        switch object.source {
        case .variable(let variable): .atomic("\(aliases[variable] ?? "t0").pk")
        case .keyed(let key): render(key)
        }
    }

    /// A column of a row in scope, or a correlated subquery on the key of one that is not.
    private mutating func property(_ ordinal: Int, of object: ObjectOperand) -> SQLTerm {
        let entity = schema.entities[object.entityIndex]
        let column = quote(entity.properties[ordinal].name)
        switch object.source {
        case .variable(let variable):
            return .atomic("\(aliases[variable] ?? "t0").\(column)")
        case .keyed(let keyExpression):
            let key = render(keyExpression)
            let alias = makeAlias()
            var fragment = SQLFragment("(SELECT \(alias).\(column) FROM \(quote(entity.name)) AS \(alias) WHERE \(alias).pk = ")
            fragment.append(key.operand(atLeast: .additive))
            fragment.append(")")
            return SQLTerm(fragment, .atomic)
        }
    }

    /// The `FROM` clause over a relationship's member rows as `alias`, and the
    /// term that ties them to their owner.
    private mutating func source(of relationship: ToManyOperand, alias: String) -> (from: String, link: SQLTerm) {
        let owner = key(of: relationship.owner)
        let destination = schema.entities[relationship.destinationIndex]
        let from = "\(quote(destination.name)) AS \(alias)"
        let ownerEntity = schema.entities[relationship.owner.entityIndex]
        switch layout.relationships.toMany[ownerEntity.index][relationship.ordinal] {
        case .joinTable?:
            let join = StorageNaming.joinTable(of: ownerEntity, ordinal: relationship.ordinal, in: schema)!
            let joinAlias = "\(alias)_j"
            return (
                "\(from) JOIN \(quote(join.table)) AS \(joinAlias) ON \(joinAlias).\(quote(join.member)) = \(alias).pk",
                .binary(.atomic("\(joinAlias).\(quote(join.owner))"), "=", owner, .equality))
        case .foreignKey?, nil:
            let inverse = ownerEntity.inverseOrdinalByOrdinal[relationship.ordinal]
            let column = quote(destination.properties[inverse].name)
            return (from, .binary(.atomic("\(alias).\(column)"), "=", owner, .equality))
        }
    }

    /// The `ORDER BY` list of sort terms, without the keywords.
    mutating func render(_ sort: [SortTerm]) -> SQLFragment {
        SQLFragment.joined(sort.map { term in
            var fragment = render(term.value).fragment
            if let collation = term.collation { fragment.append(" COLLATE \(collation.sqlName)") }
            fragment.append(term.ascending ? " ASC" : " DESC")
            return fragment
        }, separator: ", ")
    }
}

extension SQLiteQueryRenderer {
    /// Whether an index of the fetched row's entity starts with this value: a
    /// column (`#Index([\.title])`) or its folded form (`#Index([\.title.folded])`).
    func hasIndex(leadingWith value: StoreExpression) -> Bool {
        let (object, ordinal, folded): (ObjectOperand, Int, Bool)
        switch value {
        case .property(let found, let at): (object, ordinal, folded) = (found, at, false)
        case .transformed(.property(let found, let at), .folded): (object, ordinal, folded) = (found, at, true)
        default: return false
        }
        guard case .variable(0) = object.source else { return false }
        let entity = schema.entities[object.entityIndex]
        let name = entity.properties[ordinal].name + (folded ? ".folded" : "")
        return entity.indexes.contains { $0.first == name }
    }
}

extension Collation {
    /// The collation's SQLite name.
    var sqlName: String {
        switch self {
        case .binary: "BINARY"
        case .folded: TextMatchingFunctions.collationName
        case .decimal: DecimalCollation.name
        }
    }
}

/// The SQL of one fetch plan: `SELECT … FROM … WHERE … ORDER BY … LIMIT … OFFSET …`.
struct SQLiteSelect {
    let table: String
    let selectList: String
    let whereClause: String?
    let orderClause: String?
    /// Values bound by the WHERE and ORDER BY clauses.
    let arguments: [StoredValue]
    let whereArguments: [StoredValue]
    let limit: Int?
    let offset: Int
    /// Whether a page must first evaluate the condition on every row: when it
    /// can fail the query, a page fails as the whole result would, though
    /// `LIMIT` lets SQLite stop early.
    let checksEveryRow: Bool

    init(_ plan: FetchPlan, schema: Schema, layout: StoreLayout) {
        var arguments: [StoredValue] = []
        if let predicate = plan.predicate {
            var renderer = SQLiteQueryRenderer(schema: schema, layout: layout)
            let fragment = renderer.render(predicate).fragment
            whereClause = fragment.sql
            arguments += fragment.arguments
        } else {
            whereClause = nil
        }
        whereArguments = arguments
        var renderer = SQLiteQueryRenderer(schema: schema, layout: layout)
        let sort = renderer.render(plan.sort)
        orderClause = sort.sql.isEmpty ? nil : sort.sql
        arguments += sort.arguments
        self.arguments = arguments
        table = layout.entities[plan.entityIndex].table
        selectList = layout.entities[plan.entityIndex].selectList
        limit = plan.limit
        offset = plan.offset
        checksEveryRow = plan.isLimited && plan.predicate?.canFail == true
    }

    /// `SELECT count(*) … WHERE …` over every row, when ``checksEveryRow``.
    var checkSQL: String? {
        guard checksEveryRow, let whereClause else { return nil }
        return "SELECT count(*) FROM \(table) AS t0 WHERE \(whereClause)"
    }

    private func sql(columns: String) -> String {
        var sql = "SELECT \(columns) FROM \(table) AS t0"
        if let whereClause { sql += " WHERE \(whereClause)" }
        // A stable order: the requested one, then the primary key.
        sql += " ORDER BY " + (orderClause.map { "\($0), t0.pk" } ?? "t0.pk")
        if limit != nil || offset > 0 { sql += " LIMIT ? OFFSET ?" }
        return sql
    }

    /// `SELECT columns FROM … WHERE …`, over the plan's page when it has one
    /// (ordered, then limited), to read as a subquery: its arguments follow the
    /// columns' own.
    func pageSubquery(columns: String) -> (sql: String, arguments: [StoredValue]) {
        var sql = "SELECT \(columns) FROM \(table) AS t0"
        if let whereClause { sql += " WHERE \(whereClause)" }
        var arguments = whereArguments
        guard limit != nil || offset > 0 else { return (sql, arguments) }
        if let orderClause {
            sql += " ORDER BY \(orderClause), t0.pk"
            arguments += self.arguments.dropFirst(whereArguments.count)
        } else {
            sql += " ORDER BY t0.pk"
        }
        sql += " LIMIT ? OFFSET ?"
        arguments += [.integer(Int64(limit ?? -1)), .integer(Int64(offset))]
        return (sql, arguments)
    }

    var selectSQL: String { sql(columns: selectList) }
    /// The select of other columns than the row's, in the same order and page.
    func selectSQL(columns: String) -> String { sql(columns: columns) }
    var keysSQL: String { sql(columns: "t0.pk") }

    var countSQL: String {
        var sql = "SELECT count(*) FROM \(table) AS t0"
        if let whereClause { sql += " WHERE \(whereClause)" }
        if limit != nil || offset > 0 {
            sql = "SELECT count(*) FROM (SELECT 1 FROM \(table) AS t0"
                + (whereClause.map { " WHERE \($0)" } ?? "") + " LIMIT ? OFFSET ?)"
        }
        return sql
    }

    var selectArguments: [StoredValue] {
        guard limit != nil || offset > 0 else { return arguments }
        return arguments + [.integer(Int64(limit ?? -1)), .integer(Int64(offset))]
    }

    var countArguments: [StoredValue] {
        guard limit != nil || offset > 0 else { return whereArguments }
        return whereArguments + [.integer(Int64(limit ?? -1)), .integer(Int64(offset))]
    }
}
