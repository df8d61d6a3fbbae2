import StrataCore
import StrataSQL

/// How PostgreSQL spells Strata's queries, every value bound as `$n`.
///
/// SQL conditions are booleans in PostgreSQL, where Strata's are numbers, so
/// the renderer converts a condition used as a value and a value used as a
/// condition. Folded text comes from the hidden `_folded_…` columns and from
/// Swift's folding of constants; what PostgreSQL cannot compute with Swift's
/// meaning fails with `.unsupportedPredicate` before the query runs.
///
/// ```swift
/// var renderer = PostgresQueryRenderer(layout: layout)
/// try renderer.condition(predicate).sql   // t0."year" >= $1
/// renderer.arguments                      // [.integer(2000)]
/// ```
struct PostgresExpressionDialect: SQLExpressionDialect {
    typealias Renderer = SQLExpressionRenderer<Self>

    let layout: PostgresLayout
    var schema: Schema { layout.schema }

    static let placeholders = SQLDialect.postgres
    static let trueValue = SQLTerm.atomic("TRUE")
    static let falseValue = SQLTerm.atomic("FALSE")
    static let nullSafeEqual = "IS NOT DISTINCT FROM"
    static let nullSafeNotEqual = "IS DISTINCT FROM"
    static let textPosition = "strpos"

    func value(ofCondition term: SQLTerm) -> SQLTerm { Self.cast(term, to: "int4::int8") }
    func condition(ofValue term: SQLTerm) -> SQLTerm { .binary(term, "<>", .atomic("0"), .equality) }
    func table(of entityIndex: Int) -> String { layout.entities[entityIndex].table }

    func members(of entityIndex: Int, ordinal: Int) throws(StrataError) -> SQLToManyStorage {
        switch layout.toMany[entityIndex][ordinal] {
        case .joinTable(_, _, let join)?: return .joinTable(table: join.table, owner: join.owner, member: join.member)
        case .foreignKey(_, let foreignKey, _)?: return .foreignKey(column: foreignKey)
        case nil:
            let entity = schema.entities[entityIndex]
            throw StrataError(
                .unsupportedPredicate, "\(entity.name).\(entity.properties[ordinal].name) has no stored members", entityName: entity.name)
        }
    }

    /// `(term)::type`.
    static func cast(_ term: SQLTerm, to type: String) -> SQLTerm {
        SQLTerm(SQLFragment("(") + term.fragment + SQLFragment(")::\(type)"), .atomic)
    }

    static func compare(
        _ lhs: StoreExpression, _ op: ComparisonOperator, _ rhs: StoreExpression, _ collation: Collation, in renderer: inout Renderer
    ) throws(StrataError) -> SQLTerm {
        switch collation {
        case .binary:
            return Renderer.comparison(try renderer.value(lhs), op, try renderer.value(rhs))
        case .decimal:
            return Renderer.comparison(cast(try renderer.value(lhs), to: "numeric"), op, cast(try renderer.value(rhs), to: "numeric"))
        case .folded:
            // By folded form, then by code point: a row comparison.
            let left = SQLTerm.call("ROW", [try renderer.folded(lhs), try renderer.value(lhs)])
            let right = SQLTerm.call("ROW", [try renderer.folded(rhs), try renderer.value(rhs)])
            return Renderer.comparison(left, op, right)
        }
    }

    static func arithmetic(
        _ op: ArithmeticOperator, _ lhs: SQLTerm, _ rhs: SQLTerm, _ domain: CheckedArithmetic.Domain, in renderer: inout Renderer
    ) -> SQLTerm {
        let namespace = renderer.dialect.layout.namespace
        let name = SQLTerm.atomic("'\(op.rawValue)'")
        switch domain {
        case .integer(let range):
            return .call(PostgresFunctions.integer(namespace: namespace), [
                name, cast(lhs, to: "int8"), cast(rhs, to: "int8"), .atomic("\(range.lowerBound)"), .atomic("\(range.upperBound)"),
            ])
        case .real, .float:
            return .call(PostgresFunctions.real(namespace: namespace), [
                name, cast(lhs, to: "float8"), cast(rhs, to: "float8"), domain == .float ? trueValue : falseValue,
            ])
        }
    }

    static func unwrap(_ value: StoreExpression, in renderer: inout Renderer) throws(StrataError) -> SQLTerm {
        if case .value(.null) = value { throw UnwrapFunction.failure }
        return .call(PostgresFunctions.unwrap(namespace: renderer.dialect.layout.namespace), [try renderer.value(value)])
    }

    static func hasPrefix(_ text: StoreExpression, _ prefix: StoreExpression, in renderer: inout Renderer) throws(StrataError) -> SQLTerm {
        .call("starts_with", [try renderer.value(text), try renderer.value(prefix)])
    }

    static func transformed(_ text: StoreExpression, _ transform: TextTransform, in renderer: inout Renderer) throws(StrataError) -> SQLTerm {
        switch transform {
        case .folded: try renderer.folded(text)
        case .backwards: .call("reverse", [try renderer.value(text)])
        }
    }

    /// NULLs first in ascending order, as in every store.
    static func order(_ term: SortTerm, in renderer: inout Renderer) throws(StrataError) -> [SQLFragment] {
        // A column that cannot be NULL needs no NULLS clause, and without
        // one an ordinary index serves the order.
        let direction = renderer.dialect.isNeverNull(term.value) ? (term.ascending ? " ASC" : " DESC")
            : (term.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
        switch term.collation {
        case .folded?:
            return [try renderer.folded(term.value).fragment + SQLFragment(direction), try renderer.value(term.value).fragment + SQLFragment(direction)]
        case .decimal?:
            return [cast(try renderer.value(term.value), to: "numeric").fragment + SQLFragment(direction)]
        case .binary?, nil:
            return [try renderer.value(term.value).fragment + SQLFragment(direction)]
        }
    }

    static func isIn(_ subject: SQLTerm, _ list: [SQLTerm]) -> SQLTerm {
        guard list.isEmpty else { return Renderer.inList(subject, list) }
        // `IN ()` is not PostgreSQL: no member, and unknown for NULL as `IN` would be.
        return Renderer.caseTerm(.binary(subject, "IS", .null, .equality), then: .null, else: falseValue)
    }

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

/// The renderer of PostgreSQL queries.
typealias PostgresQueryRenderer = SQLExpressionRenderer<PostgresExpressionDialect>

extension SQLExpressionRenderer where Dialect == PostgresExpressionDialect {
    /// `arguments`: values bound before the rendered ones (`$1` first).
    init(layout: PostgresLayout, arguments: [StoredValue] = []) {
        self.init(PostgresExpressionDialect(layout: layout), arguments: arguments)
    }

    /// The folded form of text: a property's hidden column, or a constant folded here.
    mutating func folded(_ expression: StoreExpression) throws(StrataError) -> SQLTerm {
        switch expression {
        case .value(let value):
            return bind(PostgresLayout.folded(value))
        case .property(let object, let ordinal):
            let entity = schema.entities[object.entityIndex]
            let index = entity.columnIndexByOrdinal[ordinal]
            guard index >= 0, let hidden = dialect.layout.entities[entity.index].foldedColumns[index] else {
                throw StrataError(
                    .unsupportedPredicate, "\(entity.name).\(entity.properties[ordinal].name) is not String text; it cannot be folded",
                    entityName: entity.name, propertyName: entity.properties[ordinal].name)
            }
            return try column(hidden, of: object)
        case .transformed(let inner, .folded):
            return try folded(inner)
        case .coalesce(let first, let second):
            return .call("COALESCE", [try folded(first), try folded(second)])
        default:
            throw StrataError(
                .unsupportedPredicate,
                "The PostgreSQL store folds stored String properties and constants only, not a computed value; "
                    + "fold a property or compare without case folding")
        }
    }
}

extension PostgresStore {
    /// The SQL of a fetch plan over this store's tables; `leading`: values bound before the plan's own.
    func select(_ plan: FetchPlan, leading: [StoredValue] = []) throws(StrataError) -> SQLSelect {
        try SQLSelect(plan, dialect: PostgresExpressionDialect(layout: layout), leading: leading)
    }
}
