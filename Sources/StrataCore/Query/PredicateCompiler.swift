import Foundation

/// Translates Foundation predicates and sort descriptors into Strata's
/// store-neutral form, ``StoreExpression`` and ``SortTerm``; each store renders
/// or evaluates that form itself (SQLite as SQL, the in-memory store in Swift).
///
/// Compilation walks `predicate.expression`; each supported
/// `PredicateExpressions` type adopts ``StorePredicateExpression``. Anything else
/// throws ``StrataError/Code/unsupportedPredicate`` naming the expression, before
/// any store is touched: nothing falls back to filtering in memory.
///
/// ```swift
/// let compiler = PredicateCompiler(schema: schema, entity: try schema.entity(for: Book.self))
/// let condition = try compiler.compile(#Predicate<Book> { $0.year >= 2000 && $0.rating == nil })
/// let order = try compiler.compileSort([SortDescriptor(\Book.title)])
/// ```
///
/// Semantics worth knowing:
/// - `==` / `!=` treat `nil` as Swift does (`nil == nil`).
/// - String comparisons, `contains` and `starts(with:)` compare code points, like
///   Swift for NFC-normalized text; `starts(with:)` does not respect grapheme
///   boundaries (`"e\u{301}"` starts with `"e"`).
/// - `localizedStandardContains` (Apple platforms only) folds ASCII case only.
/// - A forced unwrap of `nil`, integer arithmetic that overflows its Swift type
///   and integer division by zero fail the whole query (where Swift would throw
///   or trap); see ``CheckedArithmetic``.
package struct PredicateCompiler: Sendable {
    package let schema: Schema
    package let entity: EntityDescription

    package init(schema: Schema, entity: EntityDescription) {
        self.schema = schema
        self.entity = entity
    }

    /// The condition a predicate stands for.
    package func compile<T: PersistentModel>(_ predicate: Predicate<T>) throws(StrataError) -> StoreExpression {
        try checkModelType(T.self)
        guard let expression = predicate.expression as? any StorePredicateExpression else {
            throw Self.unsupported(expression: predicate.expression)
        }
        var compilation = PredicateCompilation(schema: schema)
        compilation.variables[predicate.variable.key] = .object(.row(0, entity: entity.index))
        let result = try expression.compileStore(&compilation)
        return try compilation.condition(result, in: type(of: predicate.expression))
    }

    /// A request's predicate, order and page as a plan for the store.
    package func plan<T: PersistentModel>(for request: FetchRequest<T>) throws(StrataError) -> FetchPlan {
        try checkModelType(T.self)
        return FetchPlan(
            entityIndex: entity.index,
            predicate: try request.predicate.map { predicate throws(StrataError) in try compile(predicate) },
            sort: try compileSort(request.sortBy),
            limit: request.fetchLimit.flatMap { $0 >= 0 ? $0 : nil },
            offset: request.fetchOffset)
    }

    func checkModelType(_ type: any PersistentModel.Type) throws(StrataError) {
        guard schema.entityIndex(for: type) == entity.index else {
            throw StrataError(
                .unsupportedPredicate, "\(withArticle("\(type)")) predicate or sort cannot be used to fetch \(entity.name) objects",
                entityName: entity.name)
        }
    }

    /// The error for an expression tree that does not adopt ``StorePredicateExpression``,
    /// naming the innermost unsupported node rather than the whole tree.
    static func unsupported(expression: Any) -> StrataError {
        var node = expression
        search: while true {
            for child in Mirror(reflecting: node).children
            where child.value is any PredicateExpression && !(child.value is any StorePredicateExpression) {
                node = child.value
                continue search
            }
            break
        }
        return StrataError(
            .unsupportedPredicate,
            "the predicate expression \(type(of: node)) cannot be translated to a store query")
    }
}

// MARK: - The walker protocol

/// A `PredicateExpressions` node the compiler can translate; adopted through
/// conditional conformances, so a tree conforms only when all its nodes do.
protocol StorePredicateExpression: CheckedPredicateExpression {
    /// What the node denotes: a value, an object, a to-many relationship, or a
    /// constant known now.
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand

    /// Whether the value is NULL whenever the variable is NULL, so that
    /// `OptionalFlatMap` needs no conditional to produce Swift's `nil`.
    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool
}

extension StorePredicateExpression {
    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool { false }
}

/// What a compiled predicate node denotes.
enum PredicateOperand {
    /// A stored value or condition.
    case scalar(StoreExpression)
    /// A model object (compared by primary key).
    case object(ObjectOperand)
    /// A to-many relationship (named for messages); usable with `contains`,
    /// `allSatisfy`, `count`, `isEmpty`.
    case toMany(ToManyOperand, name: String)
    /// A value computed in Swift (a `PredicateExpressions.Value` or a key path on one),
    /// converted when its use is known: a sequence for membership, an object for its key.
    case constant(Any)
    /// Swift's `nil` literal.
    case null
}

/// The state of one compilation: row variables handed out and predicate
/// variables in scope.
struct PredicateCompilation {
    let schema: Schema
    private var nextRowVariable = 1
    var variables: [PredicateExpressions.VariableID: PredicateOperand] = [:]

    init(schema: Schema) {
        self.schema = schema
    }

    /// A fresh row variable for the members of a quantifier.
    mutating func makeRowVariable() -> Int {
        defer { nextRowVariable += 1 }
        return nextRowVariable
    }

    /// The operand as a stored value. An attribute stored through a
    /// transformer is refused: only ``equality(_:_:negated:in:)`` and
    /// membership compare it, with constants in its stored form.
    func scalar(_ operand: PredicateOperand, in node: Any.Type) throws(StrataError) -> StoreExpression {
        try refuseTransformed(operand, in: node)
        return try storeValue(operand, in: node)
    }

    private func storeValue(_ operand: PredicateOperand, in node: Any.Type) throws(StrataError) -> StoreExpression {
        switch operand {
        case .scalar(let expression): return expression
        case .object(let object): return object.key
        case .constant(let value): return .value(try storedValue(forPredicateValue: value))
        case .null: return .null
        case .toMany(let relationship, let name):
            let owner = schema.entities[relationship.owner.entityIndex].name
            throw StrataError(
                .unsupportedPredicate,
                "the to-many relationship \(owner).\(name) can only be used with contains, contains(where:), allSatisfy, count and isEmpty (in \(node))",
                entityName: owner, propertyName: name)
        }
    }

    /// The operand as a stored value, a constant in the stored form of the
    /// transformer of the property it is compared with (`encode`), if any.
    func scalar(_ operand: PredicateOperand, in node: Any.Type, encode: ((Any) -> StoredValue?)?) throws(StrataError) -> StoreExpression {
        guard let encode, case .constant(let value) = operand else { return try storeValue(operand, in: node) }
        guard let stored = encode(value) else {
            throw StrataError(
                .unsupportedPredicate, "a value of type \(type(of: value)) is not of the type its transformer reads (in \(node))")
        }
        return .value(stored)
    }

    /// The transformer's conversion, when `operand` is an attribute stored
    /// through one: constants compared with it take its stored form.
    func transformerEncoding(of operand: PredicateOperand) -> ((Any) -> StoredValue?)? {
        guard case .scalar(.property(let object, let ordinal)) = operand else { return nil }
        let entity = schema.entities[object.entityIndex]
        guard entity.attribute(at: ordinal) != nil else { return nil }
        return entity.valueReaders[ordinal]?.encode
    }

    /// Throws when `operand` is an attribute stored through a transformer:
    /// its stored form's order and text are not its values'.
    private func refuseTransformed(_ operand: PredicateOperand, in node: Any.Type) throws(StrataError) {
        guard transformerEncoding(of: operand) != nil, case .scalar(.property(let object, let ordinal)) = operand else { return }
        let entity = schema.entities[object.entityIndex]
        throw StrataError(
            .unsupportedPredicate,
            "\(entity.name).\(entity.properties[ordinal].name) is stored through a transformer, whose stored form has no order of its values; compare it with == or nil only (in \(node))",
            entityName: entity.name, propertyName: entity.properties[ordinal].name)
    }

    /// The operand as a condition.
    func condition(_ operand: PredicateOperand, in node: Any.Type) throws(StrataError) -> StoreExpression {
        try scalar(operand, in: node)
    }

    /// The key an object operand is compared with, for an operand on the other side.
    ///
    /// Returns nil when the value names an object of another entity: no row can match.
    func objectKey(_ operand: PredicateOperand, comparedWith entity: EntityDescription, in node: Any.Type)
        throws(StrataError) -> StoreExpression?
    {
        guard case .constant(let value) = operand else { return try scalar(operand, in: node) }
        var unwrapped: Any = value
        while let optional = unwrapped as? any PredicateOptionalValue {
            guard let wrapped = optional.predicateWrappedValue else { return .null }
            unwrapped = wrapped
        }
        let key: Int64
        let entityName: String
        if let model = unwrapped as? any PersistentModel {
            entityName = type(of: model).entityName
            key = try primaryKey(of: model.objectID, entityName: entityName)
        } else if let id = unwrapped as? ObjectID {
            entityName = id.entityName
            key = try primaryKey(of: id, entityName: entityName)
        } else {
            return try scalar(operand, in: node)
        }
        return entityName == entity.name ? .value(.integer(key)) : nil
    }

    /// `==` (or `!=`) with Swift's meaning of `nil`; objects compare by key.
    func equality(_ lhs: PredicateOperand, _ rhs: PredicateOperand, negated: Bool, in node: Any.Type)
        throws(StrataError) -> PredicateOperand
    {
        var left: StoreExpression?
        var right: StoreExpression?
        switch (lhs, rhs) {
        case (.object(let a), _):
            left = a.key
            right = try objectKey(rhs, comparedWith: schema.entities[a.entityIndex], in: node)
        case (_, .object(let b)):
            left = try objectKey(lhs, comparedWith: schema.entities[b.entityIndex], in: node)
            right = b.key
        default:
            let (leftEncoding, rightEncoding) = (transformerEncoding(of: lhs), transformerEncoding(of: rhs))
            // A stored form equals only a constant converted the same way, or
            // an attribute stored the same way: refuse any other value.
            if case .scalar = lhs, leftEncoding == nil, rightEncoding != nil { try refuseTransformed(rhs, in: node) }
            if case .scalar = rhs, rightEncoding == nil, leftEncoding != nil { try refuseTransformed(lhs, in: node) }
            left = try scalar(lhs, in: node, encode: rightEncoding)
            right = try scalar(rhs, in: node, encode: leftEncoding)
        }
        guard let left, let right else {
            // An object of another entity: never equal.
            return .scalar(negated ? .trueValue : .falseValue)
        }
        return .scalar(negated ? .notEqual(left, right) : .equal(left, right))
    }

    /// Throws unless stores order values of `type` the way Swift does.
    /// How stores order values of `type` as Swift does; throws for a type they cannot.
    func ordering(of type: Any.Type, in node: Any.Type) throws(StrataError) -> Collation {
        if predicateBaseType(type) == Decimal.self { return .decimal }
        if let problem = storeOrderingProblem(for: type) {
            throw StrataError(.unsupportedPredicate, "\(node) cannot be translated to a store query: \(problem)")
        }
        return .binary
    }

    /// Compiles `transform` with `variable` bound to `value`, then unbinds it.
    mutating func with<E: StorePredicateExpression>(
        _ variable: PredicateExpressions.VariableID, boundTo value: PredicateOperand, compile transform: E
    ) throws(StrataError) -> PredicateOperand {
        let previous = variables.updateValue(value, forKey: variable)
        defer { variables[variable] = previous }
        return try transform.compileStore(&self)
    }
}
