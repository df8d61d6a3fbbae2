import StrataCore

/// Renders Strata's store-neutral query form as SQL over a store's tables,
/// every value bound; the dialect says what its database spells differently.
///
/// The fetched row has the alias `t0`. A property of an object reached through
/// a to-one relationship is a correlated subquery on the destination's table,
/// and each to-many test an `EXISTS` or `COUNT` subquery (through the join
/// table where there is one); those subqueries get aliases `t1`, `t2`, … in
/// the order they appear. Each rendered term knows whether it is a condition
/// or a value, and a dialect whose conditions are booleans converts one to
/// the other where needed.
///
/// With `?` placeholders each fragment carries its values; with `$n` ones the
/// renderer numbers them and keeps them in ``arguments``, after any it was
/// given.
///
/// ```swift
/// var renderer = SQLExpressionRenderer(SQLiteExpressionDialect(schema: schema, layout: layout))
/// renderer.condition(.compare(.property(.row(0, entity: 1), 2), .greaterThanOrEqual, .value(.integer(2000)))).fragment
/// // t0."year" >= ?   [.integer(2000)]
/// ```
package struct SQLExpressionRenderer<Dialect: SQLExpressionDialect> {
    package let dialect: Dialect
    /// The values bound as `$n` so far, `$1` first (unused with `?` placeholders).
    package private(set) var arguments: [StoredValue]
    private var nextAlias = 1
    private var aliases: [Int: String] = [0: "t0"]

    package init(_ dialect: Dialect, arguments: [StoredValue] = []) {
        self.dialect = dialect
        self.arguments = arguments
    }

    package var schema: Schema { dialect.schema }

    private enum Term {
        case condition(SQLTerm)
        case value(SQLTerm)
    }

    /// A value bound to a placeholder, or the keyword `NULL`.
    package mutating func bind(_ value: StoredValue) -> SQLTerm {
        if value.isNull { return .null }
        switch Dialect.placeholders {
        case .sqlite:
            return .atomic("?", [value])
        case .postgres:
            arguments.append(value)
            // A real beyond every `bigint` (a `UInt64` constant above `Int64.max`)
            // compares with one exactly as `numeric`; as `float8`, `Int64.max` rounds up to equal 2^63.
            if case .real(let real) = value, real.isFinite, real.magnitude >= 0x1p63 {
                return .atomic("$\(arguments.count)::numeric")
            }
            return .atomic("$\(arguments.count)")
        }
    }

    /// An expression used as a condition.
    package mutating func condition(_ expression: StoreExpression) throws(Dialect.Failure) -> SQLTerm {
        switch try render(expression) {
        case .condition(let term): term
        case .value(let term): dialect.condition(ofValue: term)
        }
    }

    /// An expression used as a value.
    package mutating func value(_ expression: StoreExpression) throws(Dialect.Failure) -> SQLTerm {
        switch try render(expression) {
        case .condition(let term): dialect.value(ofCondition: term)
        case .value(let term): term
        }
    }

    /// The `ORDER BY` list of sort terms, without the keywords.
    package mutating func order(_ sort: [SortTerm]) throws(Dialect.Failure) -> SQLFragment {
        var items: [SQLFragment] = []
        for term in sort { items += try Dialect.order(term, in: &self) }
        return SQLFragment.joined(items, separator: ", ")
    }

    /// `lhs op rhs` for a comparison operator.
    package static func comparison(_ lhs: SQLTerm, _ op: ComparisonOperator, _ rhs: SQLTerm) -> SQLTerm {
        .binary(lhs, op.rawValue, rhs, op == .equal ? .equality : .relational)
    }

    /// `subject IN (list)`.
    package static func inList(_ subject: SQLTerm, _ list: [SQLTerm]) -> SQLTerm {
        let items = SQLFragment.joined(list.map(\.fragment), separator: ", ")
        return SQLTerm(subject.operand(atLeast: .additive) + SQLFragment(" IN (") + items + SQLFragment(")"), .equality)
    }

    private mutating func render(_ expression: StoreExpression) throws(Dialect.Failure) -> Term {
        switch expression {
        case .value(let value):
            return .value(bind(value))
        case .boolean(let value):
            return .condition(value ? Dialect.trueValue : Dialect.falseValue)
        case .key(let object):
            return .value(try key(of: object))
        case .property(let object, let ordinal):
            let entity = schema.entities[object.entityIndex]
            return .value(try column(quote(entity.properties[ordinal].name), of: object))
        case .equal(let lhs, let rhs):
            return .condition(.binary(try value(lhs), Dialect.nullSafeEqual, try value(rhs), .equality))
        case .notEqual(let lhs, let rhs):
            return .condition(.binary(try value(lhs), Dialect.nullSafeNotEqual, try value(rhs), .equality))
        case .compare(let lhs, let op, let rhs, let collation):
            return .condition(try Dialect.compare(lhs, op, rhs, collation, in: &self))
        case .and(let lhs, let rhs):
            if lhs.canFail { return .condition(try inOrder(lhs, then: rhs, otherwise: Dialect.falseValue)) }
            if rhs.canFail {
                // The left side also stays a term of its own, which an index
                // may serve: rows it rules out are rows Swift never divides in.
                return .condition(.binary(
                    try condition(lhs), "AND", try inOrder(lhs, then: rhs, otherwise: Dialect.falseValue), .and))
            }
            return .condition(.binary(try condition(lhs), "AND", try condition(rhs), .and))
        case .or(let lhs, let rhs):
            if lhs.canFail || rhs.canFail {
                return .condition(Self.caseTerm(try condition(lhs), then: Dialect.trueValue, else: try condition(rhs)))
            }
            return .condition(.binary(try condition(lhs), "OR", try condition(rhs), .or))
        case .not(.isNull(let value)):
            return .condition(.binary(try self.value(value), "IS NOT", .null, .equality))
        case .not(let inner):
            return .condition(.not(try condition(inner)))
        case .arithmetic(let lhs, let op, let rhs, let domain):
            return .value(Dialect.arithmetic(op, try value(lhs), try value(rhs), domain, in: &self))
        case .negate(let inner, let domain):
            if case .integer = domain { return .value(Dialect.arithmetic(.subtract, .atomic("0"), try value(inner), domain, in: &self)) }
            return .value(SQLTerm(SQLFragment("-") + (try value(inner)).operand(atLeast: .atomic), .unary))
        case .coalesce(let first, let second):
            return .value(.call("COALESCE", [try value(first), try value(second)]))
        case .conditional(let test, let yes, let no):
            return .value(Self.caseTerm(try condition(test), then: try value(yes), else: try value(no)))
        case .isNull(let inner):
            return .condition(.binary(try value(inner), "IS", .null, .equality))
        case .unwrapped(let inner):
            return .value(try Dialect.unwrap(inner, in: &self))
        case .inList(let subject, let values):
            let subject = try value(subject)
            return .condition(Dialect.isIn(subject, values.map { bind($0) }))
        case .between(let subject, let low, let high):
            if subject.canFail || low.canFail || high.canFail {
                // The upper bound only for a value at or above the lower one, as everywhere.
                return try render(.and(.compare(subject, .greaterThanOrEqual, low), .compare(subject, .lessThanOrEqual, high)))
            }
            let fragment = (try value(subject)).operand(atLeast: .additive) + SQLFragment(" BETWEEN ")
                + (try value(low)).operand(atLeast: .additive) + SQLFragment(" AND ") + (try value(high)).operand(atLeast: .additive)
            return .condition(SQLTerm(fragment, .equality))
        case .hasPrefix(let text, let prefix):
            return .condition(try Dialect.hasPrefix(text, prefix, in: &self))
        case .containsText(let text, let part):
            return .condition(.binary(.call(Dialect.textPosition, [try value(text), try value(part)]), ">", .atomic("0"), .relational))
        case .transformed(let text, let transform):
            return .value(try Dialect.transformed(text, transform, in: &self))
        case .exists(let relationship, let variable, let memberCondition):
            let alias = makeAlias()
            aliases[variable] = alias
            let (from, link) = try source(of: relationship, alias: alias)
            var filter = link
            if let memberCondition {
                let test = try condition(memberCondition)
                // A condition that can fail runs only for members, while the
                // link stays a term an index can serve.
                filter = .binary(link, "AND", memberCondition.canFail ? Self.onlyWhere(link, test) : test, .and)
            }
            return .condition(SQLTerm(SQLFragment("EXISTS (SELECT 1 FROM \(from) WHERE ") + filter.fragment + SQLFragment(")"), .atomic))
        case .count(let relationship):
            let (from, link) = try source(of: relationship, alias: makeAlias())
            return .value(SQLTerm(SQLFragment("(SELECT COUNT(*) FROM \(from) WHERE ") + link.fragment + SQLFragment(")"), .atomic))
        }
    }

    private mutating func makeAlias() -> String {
        defer { nextAlias += 1 }
        return "t\(nextAlias)"
    }

    /// `&&` whose sides can fail the query, as Swift evaluates it: the left
    /// side on every row, the right side only where the left is true. A
    /// database may otherwise evaluate `AND` terms in any order, or skip rows
    /// by an index on one of them; a `CASE` fixes the order and keeps every
    /// row. (`||` is the same with the branches swapped.)
    private mutating func inOrder(_ left: StoreExpression, then right: StoreExpression, otherwise: SQLTerm) throws(Dialect.Failure) -> SQLTerm {
        Self.caseTerm(try condition(left), then: try condition(right), else: otherwise)
    }

    /// `CASE WHEN test THEN yes ELSE no END`.
    package static func caseTerm(_ test: SQLTerm, then yes: SQLTerm, else no: SQLTerm) -> SQLTerm {
        var fragment = SQLFragment("CASE WHEN ") + test.fragment
        fragment.append(" THEN ")
        fragment.append(yes.fragment)
        fragment.append(" ELSE ")
        fragment.append(no.fragment)
        fragment.append(" END")
        return SQLTerm(fragment, .atomic)
    }

    /// `CASE WHEN NOT link THEN NULL ELSE test END`.
    private static func onlyWhere(_ link: SQLTerm, _ test: SQLTerm) -> SQLTerm {
        var fragment = SQLFragment("CASE WHEN NOT ") + link.operand(atLeast: .not)
        fragment.append(" THEN NULL ELSE ")
        fragment.append(test.fragment)
        fragment.append(" END")
        return SQLTerm(fragment, .atomic)
    }

    private mutating func key(of object: ObjectOperand) throws(Dialect.Failure) -> SQLTerm {
        switch object.source {
        case .variable(let variable): .atomic("\(aliases[variable] ?? "t0").pk")
        case .keyed(let key): try value(key)
        }
    }

    /// A column of a row in scope, or a correlated subquery on the key of one that is not.
    package mutating func column(_ column: String, of object: ObjectOperand) throws(Dialect.Failure) -> SQLTerm {
        switch object.source {
        case .variable(let variable):
            return .atomic("\(aliases[variable] ?? "t0").\(column)")
        case .keyed(let keyExpression):
            let key = try value(keyExpression)
            let alias = makeAlias()
            let table = dialect.table(of: object.entityIndex)
            var fragment = SQLFragment("(SELECT \(alias).\(column) FROM \(table) AS \(alias) WHERE \(alias).pk = ")
            fragment.append(key.operand(atLeast: .additive))
            fragment.append(")")
            return SQLTerm(fragment, .atomic)
        }
    }

    /// The `FROM` clause over a relationship's member rows as `alias`, and the
    /// condition that ties them to their owner.
    private mutating func source(of relationship: ToManyOperand, alias: String) throws(Dialect.Failure) -> (from: String, link: SQLTerm) {
        let owner = try key(of: relationship.owner)
        let from = "\(dialect.table(of: relationship.destinationIndex)) AS \(alias)"
        switch try dialect.members(of: relationship.owner.entityIndex, ordinal: relationship.ordinal) {
        case .joinTable(let table, let ownerColumn, let member):
            let joinAlias = "\(alias)_j"
            return (
                "\(from) JOIN \(table) AS \(joinAlias) ON \(joinAlias).\(member) = \(alias).pk",
                .binary(.atomic("\(joinAlias).\(ownerColumn)"), "=", owner, .equality))
        case .foreignKey(let column):
            return (from, .binary(.atomic("\(alias).\(column)"), "=", owner, .equality))
        }
    }
}
