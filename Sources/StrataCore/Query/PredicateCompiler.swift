import Foundation

/// Translates Foundation predicates and sort descriptors into SQL over Strata's tables.
///
/// The root entity's table has the alias `t0`; attributes and to-one relationships
/// are columns named like the property. A key path through a to-one relationship
/// (`$0.author?.name`) becomes a correlated subquery on the destination's table
/// (aliases `t1`, `t2`, …). Every value is bound, never spliced into the SQL.
///
/// Compilation walks `predicate.expression`; each supported
/// `PredicateExpressions` type adopts ``SQLPredicateExpression``. Anything else
/// throws ``StrataError/Code/unsupportedPredicate`` naming the expression:
/// nothing falls back to filtering in memory.
///
/// ```swift
/// let compiler = PredicateCompiler(schema: schema, entity: try schema.entity(for: Book.self))
/// let condition = try compiler.compile(#Predicate<Book> { $0.year >= 2000 && $0.rating == nil })
/// // condition.sql == #"t0."year" >= ? AND t0."rating" IS NULL"#, arguments [.integer(2000)]
/// let order = try compiler.compileSort([SortDescriptor(\Book.title)])
/// // order.sql == #"t0."title" COLLATE BINARY ASC"#
/// ```
///
/// Semantics worth knowing:
/// - `==` / `!=` compile to `IS` / `IS NOT`, so `nil` compares as in Swift.
/// - String comparisons, `contains` and `starts(with:)` compare code points
///   (byte-wise UTF-8), like Swift for NFC-normalized text; `starts(with:)` does not
///   respect grapheme boundaries (`"e\u{301}"` starts with `"e"` in SQL).
/// - `localizedStandardContains` (Apple platforms only) folds ASCII case only.
/// - A forced unwrap of `nil` makes the enclosing comparison unknown, so the row
///   does not match (where Swift would throw).
package struct PredicateCompiler: Sendable {
    package let schema: Schema
    package let entity: EntityDescription

    package init(schema: Schema, entity: EntityDescription) {
        self.schema = schema
        self.entity = entity
    }

    /// The WHERE-clause expression for a predicate, e.g. `t0."year" >= ?` with
    /// arguments `[.integer(2000)]`.
    package func compile<T: PersistentModel>(_ predicate: Predicate<T>) throws(StrataError) -> SQLFragment {
        try checkModelType(T.self)
        guard let expression = predicate.expression as? any SQLPredicateExpression else {
            throw Self.unsupported(expression: predicate.expression)
        }
        var compilation = PredicateCompilation(schema: schema)
        compilation.variables[predicate.variable.key] = .object(ObjectReference(row: "t0", entity: entity))
        let result = try expression.compileSQL(&compilation)
        return try compilation.condition(result, in: type(of: predicate.expression)).fragment
    }

    func checkModelType(_ type: any PersistentModel.Type) throws(StrataError) {
        guard schema.entityIndex(for: type) == entity.index else {
            throw StrataError(
                .unsupportedPredicate, "a \(type) predicate or sort cannot be used to fetch \(entity.name) objects",
                entityName: entity.name)
        }
    }

    /// The error for an expression tree that does not adopt ``SQLPredicateExpression``,
    /// naming the innermost unsupported node rather than the whole tree.
    static func unsupported(expression: Any) -> StrataError {
        var node = expression
        search: while true {
            for child in Mirror(reflecting: node).children
            where child.value is any PredicateExpression && !(child.value is any SQLPredicateExpression) {
                node = child.value
                continue search
            }
            break
        }
        return StrataError(
            .unsupportedPredicate,
            "the predicate expression \(type(of: node)) cannot be translated to SQL")
    }
}

// MARK: - The walker protocol

/// A `PredicateExpressions` node the compiler can translate; adopted through
/// conditional conformances, so a tree conforms only when all its nodes do.
protocol SQLPredicateExpression {
    /// The node's SQL, or what it denotes (an object, a constant) when that is not a value yet.
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand

    /// Whether the SQL is NULL whenever the variable is NULL, so that
    /// `OptionalFlatMap` needs no `CASE` to produce Swift's `nil`.
    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool
}

extension SQLPredicateExpression {
    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool { false }
}

/// An object a predicate refers to: a row in scope (the root `t0`, or a row of
/// an `EXISTS` subquery) or just its primary key (the value of a to-one column).
struct ObjectReference {
    /// The alias of the row when it is in scope; columns are then read directly.
    let row: String?
    let entity: EntityDescription
    /// SQL for the object's primary key; NULL when there is no object.
    let key: SQLTerm

    init(row: String, entity: EntityDescription) {
        self.row = row
        self.entity = entity
        self.key = .atomic("\(row).pk")
    }

    init(key: SQLTerm, entity: EntityDescription) {
        self.row = nil
        self.entity = entity
        self.key = key
    }
}

/// A to-many relationship: the destination rows whose inverse column holds the
/// owner's key (one-to-many), or that a join table pairs with it (many-to-many).
struct ToManyReference {
    let owner: ObjectReference
    let name: String
    let destination: EntityDescription
    /// The destination's to-one column that points back at the owner (one-to-many).
    let inverseColumn: String
    /// The join table and its owner and member columns (many-to-many).
    var joinTable: (table: String, owner: String, member: String)? = nil

    /// The `FROM` clause over the destination rows as `alias`, and the term
    /// that ties them to the owner.
    func source(alias: String) -> (from: String, link: SQLTerm) {
        let from = "\(quote(destination.name)) AS \(alias)"
        guard let joinTable else {
            return (from, .binary(.atomic("\(alias).\(quote(inverseColumn))"), "=", owner.key, .equality))
        }
        let join = "\(alias)_j"
        return (
            "\(from) JOIN \(quote(joinTable.table)) AS \(join) ON \(join).\(quote(joinTable.member)) = \(alias).pk",
            .binary(.atomic("\(join).\(quote(joinTable.owner))"), "=", owner.key, .equality))
    }
}

/// What a compiled predicate node denotes.
enum PredicateOperand {
    /// An SQL value.
    case scalar(SQLTerm)
    /// A model object (compared by primary key).
    case object(ObjectReference)
    /// A to-many relationship; usable with `contains`, `allSatisfy`, `count`, `isEmpty`.
    case toMany(ToManyReference)
    /// A value computed in Swift (a `PredicateExpressions.Value` or a key path on one),
    /// converted when its use is known: a sequence for `IN`, an object for its key.
    case constant(Any)
    /// Swift's `nil` literal.
    case null
}

/// The state of one compilation: aliases handed out and variables in scope.
struct PredicateCompilation {
    let schema: Schema
    private var nextAlias = 1
    var variables: [PredicateExpressions.VariableID: PredicateOperand] = [:]

    init(schema: Schema) {
        self.schema = schema
    }

    /// A fresh table alias (`t1`, `t2`, …) for a subquery.
    mutating func makeAlias() -> String {
        defer { nextAlias += 1 }
        return "t\(nextAlias)"
    }

    /// The operand as an SQL value.
    func scalar(_ operand: PredicateOperand, in node: Any.Type) throws(StrataError) -> SQLTerm {
        switch operand {
        case .scalar(let term): return term
        case .object(let reference): return reference.key
        case .constant(let value): return .bound(try storedValue(forPredicateValue: value))
        case .null: return .null
        case .toMany(let relationship):
            throw StrataError(
                .unsupportedPredicate,
                "the to-many relationship \(relationship.owner.entity.name).\(relationship.name) can only be used with contains, contains(where:), allSatisfy, count and isEmpty (in \(node))",
                entityName: relationship.owner.entity.name, propertyName: relationship.name)
        }
    }

    /// The operand as a condition (a Bool-valued SQL expression).
    func condition(_ operand: PredicateOperand, in node: Any.Type) throws(StrataError) -> SQLTerm {
        try scalar(operand, in: node)
    }

    /// An attribute or to-one column of an object: read directly when the row is in
    /// scope, else through a correlated subquery on the object's key.
    mutating func column(_ name: String, of reference: ObjectReference) -> SQLTerm {
        if let row = reference.row {
            return .atomic("\(row).\(quote(name))")
        }
        let alias = makeAlias()
        var fragment = SQLFragment(
            "(SELECT \(alias).\(quote(name)) FROM \(quote(reference.entity.name)) AS \(alias) WHERE \(alias).pk = ")
        fragment.append(reference.key.operand(atLeast: .additive))
        fragment.append(")")
        return SQLTerm(fragment, .atomic)
    }

    /// The key an object operand is compared with, for an operand on the other side.
    ///
    /// Returns nil when the value names an object of another entity: no row can match.
    func objectKey(_ operand: PredicateOperand, comparedWith entity: EntityDescription, in node: Any.Type)
        throws(StrataError) -> SQLTerm?
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
        return entityName == entity.name ? .bound(.integer(key)) : nil
    }

    /// `lhs IS rhs` (or `IS NOT`): `==` in Swift, where `nil == nil`.
    func equality(_ lhs: PredicateOperand, _ rhs: PredicateOperand, negated: Bool, in node: Any.Type)
        throws(StrataError) -> PredicateOperand
    {
        let op = negated ? "IS NOT" : "IS"
        var left: SQLTerm?
        var right: SQLTerm?
        switch (lhs, rhs) {
        case (.object(let a), _):
            left = a.key
            right = try objectKey(rhs, comparedWith: a.entity, in: node)
        case (_, .object(let b)):
            left = try objectKey(lhs, comparedWith: b.entity, in: node)
            right = b.key
        default:
            left = try scalar(lhs, in: node)
            right = try scalar(rhs, in: node)
        }
        guard let left, let right else {
            // An object of another entity: never equal.
            return .scalar(negated ? .trueValue : .falseValue)
        }
        return .scalar(.binary(left, op, right, .equality))
    }

    /// Throws unless SQL orders values of `type` the way Swift does.
    func requireOrdering(of type: Any.Type, in node: Any.Type) throws(StrataError) {
        if let problem = sqlOrderingProblem(for: type) {
            throw StrataError(.unsupportedPredicate, "\(node) cannot be translated to SQL: \(problem)")
        }
    }

    /// Compiles `transform` with `variable` bound to `value`, then unbinds it.
    mutating func with<E: SQLPredicateExpression>(
        _ variable: PredicateExpressions.VariableID, boundTo value: PredicateOperand, compile transform: E
    ) throws(StrataError) -> PredicateOperand {
        let previous = variables.updateValue(value, forKey: variable)
        defer { variables[variable] = previous }
        return try transform.compileSQL(&self)
    }
}
