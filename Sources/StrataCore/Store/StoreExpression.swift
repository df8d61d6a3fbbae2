/// A condition or value over stored rows, in Strata's own terms: what the query
/// compiler makes of a Foundation `Predicate` and what every store evaluates,
/// SQLite by rendering it as SQL, the in-memory store by walking it.
///
/// Values are ``StoredValue``s; booleans are `.integer(1)` and `.integer(0)`,
/// and an unknown truth value (a comparison with `nil`) is `.null`, as in SQL.
/// A row matches a condition when it evaluates to a non-zero number.
///
/// Rows are named by variables: 0 is the row being fetched, and each
/// ``exists(_:variable:where:)`` binds the next number to a member row.
///
/// ```swift
/// // #Predicate<Book> { $0.year >= 2000 && $0.author?.name == "Le Guin" }
/// let condition = StoreExpression.and(
///     .compare(.property(.row(0, entity: book), year), .greaterThanOrEqual, .value(.integer(2000))),
///     .equal(.property(.keyed(.property(.row(0, entity: book), author), entity: author), name),
///            .value(.text("Le Guin"))))
/// ```
package indirect enum StoreExpression: Sendable, Hashable {
    /// A constant.
    case value(StoredValue)
    /// A truth value known when the query was compiled.
    case boolean(Bool)
    /// The primary key of an object (NULL when there is none).
    case key(ObjectOperand)
    /// A stored property of an object: an attribute, or a to-one relationship's
    /// destination key. NULL when there is no object.
    case property(ObjectOperand, Int)

    /// `==` with Swift's meaning of `nil`: two NULLs are equal, NULL and a value are not.
    case equal(StoreExpression, StoreExpression)
    /// `!=` with Swift's meaning of `nil`.
    case notEqual(StoreExpression, StoreExpression)
    /// An ordering comparison; unknown when either side is NULL. Text compares
    /// by `collation` (`.decimal`: decimal text by numeric value).
    case compare(StoreExpression, ComparisonOperator, StoreExpression, Collation = .binary)
    case and(StoreExpression, StoreExpression)
    case or(StoreExpression, StoreExpression)
    case not(StoreExpression)

    /// Arithmetic in a Swift type's domain (``CheckedArithmetic``): an integer
    /// result outside it, or an integer division by zero, fails the query.
    case arithmetic(StoreExpression, ArithmeticOperator, StoreExpression, CheckedArithmetic.Domain)
    /// `-value`, checked as `0 - value` for integers.
    case negate(StoreExpression, CheckedArithmetic.Domain)
    /// The first value that is not NULL.
    case coalesce(StoreExpression, StoreExpression)
    /// `test ? then : else` (the test is a condition).
    case conditional(StoreExpression, StoreExpression, StoreExpression)
    case isNull(StoreExpression)
    /// A value that must not be NULL (Swift's `x!`): a NULL fails the whole
    /// query with `.unsupportedPredicate`, as unwrapping `nil` fails a
    /// predicate's evaluation in Swift.
    case unwrapped(StoreExpression)

    /// Whether the value is one of `values` (none of them NULL); unknown for a NULL subject.
    case inList(StoreExpression, [StoredValue])
    /// `low <= value <= high`.
    case between(StoreExpression, StoreExpression, StoreExpression)
    /// Whether text starts with other text, by code point.
    case hasPrefix(StoreExpression, StoreExpression)
    /// Whether text contains other text, by code point.
    case containsText(StoreExpression, StoreExpression)
    /// Text transformed for matching (see ``TextTransform``); other values
    /// are left as they are.
    case transformed(StoreExpression, TextTransform)

    /// Whether a member of a to-many relationship (bound to `variable`) meets
    /// the condition (any member, when nil).
    case exists(ToManyOperand, variable: Int, where: StoreExpression?)
    /// The number of members of a to-many relationship.
    case count(ToManyOperand)

    /// Whether evaluating the expression can fail the query (a force unwrap,
    /// checked integer arithmetic), so that stores evaluate it only where
    /// Swift would: after `&&` and `||` have looked at their left side.
    package var canFail: Bool {
        switch self {
        case .value, .boolean: false
        case .unwrapped: true
        case .key(let object): object.canFail
        case .count(let relationship): relationship.owner.canFail
        case .arithmetic(let lhs, let op, let rhs, let domain):
            if case .integer = domain { true } else { op == .divide || lhs.canFail || rhs.canFail }
        case .negate(let value, let domain):
            if case .integer = domain { true } else { value.canFail }
        case .property(let object, _): object.canFail
        case .equal(let a, let b), .notEqual(let a, let b), .compare(let a, _, let b, _), .and(let a, let b),
             .or(let a, let b), .coalesce(let a, let b), .hasPrefix(let a, let b), .containsText(let a, let b):
            a.canFail || b.canFail
        case .not(let value), .isNull(let value), .transformed(let value, _): value.canFail
        case .conditional(let test, let yes, let no): test.canFail || yes.canFail || no.canFail
        case .inList(let value, _): value.canFail
        case .between(let value, let low, let high): value.canFail || low.canFail || high.canFail
        case .exists(let relationship, _, let condition): relationship.owner.canFail || (condition?.canFail ?? false)
        }
    }

    package static let trueValue = StoreExpression.boolean(true)
    package static let falseValue = StoreExpression.boolean(false)
    package static let null = StoreExpression.value(.null)
}

/// `=` (unknown with `nil`, unlike ``StoreExpression/equal(_:_:)``), `<`, `<=`, `>`, `>=`.
package enum ComparisonOperator: String, Sendable, Hashable {
    case equal = "=", lessThan = "<", lessThanOrEqual = "<=", greaterThan = ">", greaterThanOrEqual = ">="
}

/// How ``StoreExpression/transformed(_:_:)`` changes text, by the functions
/// of ``TextFolding`` in every store.
package enum TextTransform: String, Sendable, Hashable {
    /// Case and diacritics folded away (`String.folded`).
    case folded
    /// Characters in reverse order (`String.backwards`).
    case backwards

    /// Applies the transform.
    package func apply(_ text: String) -> String {
        switch self {
        case .folded: TextFolding.fold(text)
        case .backwards: TextFolding.backwards(text)
        }
    }
}

/// `+`, `-`, `*`, integer `/` and `%` (truncating, as Swift), real `/`.
package enum ArithmeticOperator: String, Sendable, Hashable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
}

/// An object an expression refers to: a row variable in scope, or the row of
/// an entity whose primary key an expression gives (a to-one relationship).
package struct ObjectOperand: Sendable, Hashable {
    package indirect enum Source: Sendable, Hashable {
        /// Row variable `n` (0: the fetched row).
        case variable(Int)
        /// The row whose key this is; none when it is NULL or no row has it.
        case keyed(StoreExpression)
    }

    package var source: Source
    package var entityIndex: Int

    package static func row(_ variable: Int, entity: Int) -> ObjectOperand {
        ObjectOperand(source: .variable(variable), entityIndex: entity)
    }

    package static func keyed(_ key: StoreExpression, entity: Int) -> ObjectOperand {
        ObjectOperand(source: .keyed(key), entityIndex: entity)
    }

    /// Whether finding the object can fail the query.
    package var canFail: Bool {
        if case .keyed(let key) = source { return key.canFail }
        return false
    }

    /// The object's primary key as an expression.
    package var key: StoreExpression {
        if case .keyed(let key) = source { return key }
        return .key(self)
    }
}

/// A to-many relationship of an object: the owner and the relationship's ordinal
/// on the owner's entity.
package struct ToManyOperand: Sendable, Hashable {
    package var owner: ObjectOperand
    package var ordinal: Int
    /// The entity of the members.
    package var destinationIndex: Int
}

/// A fetch in Strata's terms: an entity, a condition, an order, a page.
///
/// ```swift
/// let plan = FetchPlan(entityIndex: book.index, predicate: condition,
///                      sort: [SortTerm(.property(.row(0, entity: book.index), year), ascending: false)])
/// ```
package struct FetchPlan: Sendable, Hashable {
    package var entityIndex: Int
    package var predicate: StoreExpression?
    package var sort: [SortTerm]
    package var limit: Int?
    package var offset: Int

    package init(entityIndex: Int, predicate: StoreExpression? = nil, sort: [SortTerm] = [], limit: Int? = nil, offset: Int = 0) {
        self.entityIndex = entityIndex
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
        self.offset = max(0, offset)
    }

    /// Whether the plan pages its results.
    package var isLimited: Bool { limit != nil || offset > 0 }
}

/// One key of an order: a value of the row, a direction and a collation.
/// Ties are broken by primary key, so every order is total.
package struct SortTerm: Sendable, Hashable {
    package var value: StoreExpression
    package var ascending: Bool
    package var collation: Collation?

    package init(_ value: StoreExpression, ascending: Bool, collation: Collation? = nil) {
        self.value = value
        self.ascending = ascending
        self.collation = collation
    }
}

/// How two stored values compare beyond the storage-class order of
/// ``StoredValueOrder``.
package enum Collation: Sendable, Hashable {
    /// Numbers numerically, text by code point, blobs byte-wise.
    case binary
    /// Text by its folded form (``TextFolding``: case and diacritics ignored),
    /// then by code point.
    case folded
    /// Decimal text by numeric value (see ``DecimalCollation``).
    case decimal
}
