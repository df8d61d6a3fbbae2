import StrataCore
import StrataSQL
/// How SQLite spells Strata's queries: conditions are numbers, text compares
/// by the store's collations and functions, arithmetic is checked by
/// `strata_arithmetic`, and `hasPrefix` on an indexed column becomes a range
/// the index serves.
///
/// ```swift
/// var renderer = SQLiteQueryRenderer(schema: schema, layout: layout)
/// renderer.condition(.compare(.property(.row(0, entity: 1), 2), .greaterThanOrEqual, .value(.integer(2000)))).fragment
/// // t0."year" >= ?   [.integer(2000)]
/// ```
struct SQLiteExpressionDialect: SQLExpressionDialect {
    typealias Failure = Never
    typealias Renderer = SQLExpressionRenderer<Self>

    let schema: Schema
    let layout: StoreLayout

    static let placeholders = SQLDialect.sqlite
    static let trueValue = SQLTerm.atomic("1")
    static let falseValue = SQLTerm.atomic("0")
    static let nullSafeEqual = "IS"
    static let nullSafeNotEqual = "IS NOT"
    static let textPosition = "instr"

    func value(ofCondition term: SQLTerm) -> SQLTerm { term }
    func condition(ofValue term: SQLTerm) -> SQLTerm { term }
    func table(of entityIndex: Int) -> String { quote(schema.entities[entityIndex].name) }

    func members(of entityIndex: Int, ordinal: Int) -> SQLToManyStorage {
        let owner = schema.entities[entityIndex]
        if case .joinTable? = layout.relationships.toMany[entityIndex][ordinal],
           let join = StorageNaming.joinTable(of: owner, ordinal: ordinal, in: schema) {
            return .joinTable(table: quote(join.table), owner: quote(join.owner), member: quote(join.member))
        }
        let destination = schema.entities[owner.destinationIndexByOrdinal[ordinal]]
        return .foreignKey(column: quote(destination.properties[owner.inverseOrdinalByOrdinal[ordinal]].name))
    }

    static func compare(
        _ lhs: StoreExpression, _ op: ComparisonOperator, _ rhs: StoreExpression, _ collation: Collation, in renderer: inout Renderer
    ) -> SQLTerm {
        var left = renderer.value(lhs)
        if collation != .binary {
            left = SQLTerm(left.operand(atLeast: .atomic) + SQLFragment(" COLLATE \(collation.sqlName)"), .unary)
        }
        return Renderer.comparison(left, op, renderer.value(rhs))
    }

    /// `strata_arithmetic(op, lhs, rhs, min, max)`; see ``CheckedArithmetic``.
    static func arithmetic(
        _ op: ArithmeticOperator, _ lhs: SQLTerm, _ rhs: SQLTerm, _ domain: CheckedArithmetic.Domain, in renderer: inout Renderer
    ) -> SQLTerm {
        let bounds: [SQLTerm] = switch domain {
        case .integer(let range): [renderer.bind(.integer(range.lowerBound)), renderer.bind(.integer(range.upperBound))]
        case .real: [.null, .null]
        case .float: [.atomic("'float'"), .null]
        }
        return .call(CheckedArithmetic.functionName, [.atomic("'\(op.rawValue)'"), lhs, rhs] + bounds)
    }

    static func unwrap(_ value: StoreExpression, in renderer: inout Renderer) -> SQLTerm {
        .call(UnwrapFunction.name, [renderer.value(value)])
    }

    static func hasPrefix(_ text: StoreExpression, _ prefix: StoreExpression, in renderer: inout Renderer) -> SQLTerm {
        // `substr` by code point: case-sensitive, unlike `LIKE`.
        let start = renderer.value(prefix)
        let head = SQLTerm.call("substr", [renderer.value(text), .atomic("1"), .call("length", [start])])
        let test = SQLTerm.binary(head, "=", start, .equality)
        guard renderer.dialect.hasIndex(leadingWith: text) else { return test }
        // Text starts with `start` exactly when it lies in [start, start || 0xF5)
        // byte-wise (no UTF-8 byte is 0xF5): a range an index serves alone.
        // Values that are not text (another program's) fall outside it, as
        // they cannot be read as a String attribute anyway.
        let upper = SQLTerm.binary(start, "||", .atomic("CAST(X'F5' AS TEXT)"), .unary)
        return .binary(
            .binary(renderer.value(text), ">=", start, .relational), "AND", .binary(renderer.value(text), "<", upper, .relational), .and)
    }

    static func transformed(_ text: StoreExpression, _ transform: TextTransform, in renderer: inout Renderer) -> SQLTerm {
        .call(TextMatchingFunctions.name(of: transform), [renderer.value(text)])
    }

    static func order(_ term: SortTerm, in renderer: inout Renderer) -> [SQLFragment] {
        var fragment = renderer.value(term.value).fragment
        if let collation = term.collation { fragment.append(" COLLATE \(collation.sqlName)") }
        fragment.append(term.ascending ? " ASC" : " DESC")
        return [fragment]
    }
}

/// The renderer of SQLite queries.
typealias SQLiteQueryRenderer = SQLExpressionRenderer<SQLiteExpressionDialect>

extension SQLExpressionRenderer where Dialect == SQLiteExpressionDialect {
    init(schema: Schema, layout: StoreLayout) {
        self.init(SQLiteExpressionDialect(schema: schema, layout: layout))
    }
}

extension SQLiteExpressionDialect {
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

extension SQLiteStore {
    /// The SQL of a fetch plan over this store's tables.
    func select(_ plan: FetchPlan) -> SQLSelect {
        SQLSelect(plan, dialect: SQLiteExpressionDialect(schema: schema, layout: layout))
    }
}
