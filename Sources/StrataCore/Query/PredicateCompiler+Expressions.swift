import Foundation

// The basic `PredicateExpressions` nodes: variables, values, key paths, logic,
// comparisons, arithmetic and optionals. Each conformance is conditional on its
// children conforming, so an unsupported node anywhere makes the tree fail the
// cast in `PredicateCompiler.compile`, which then names that node.

// MARK: - Leaves

extension PredicateExpressions.Variable: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        guard let value = compilation.variables[key] else {
            throw StrataError(.unsupportedPredicate, "the predicate uses a variable outside its scope (\(Self.self))")
        }
        return value
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool { key == variable }
}

extension PredicateExpressions.Value: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        .constant(value)
    }
}

extension PredicateExpressions.NilLiteral: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        .null
    }
}

extension PredicateExpressions.KeyPath: SQLPredicateExpression where Root: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let base = try root.compileSQL(&compilation)
        switch base {
        case .object(let reference):
            return try compilation.member(keyPath, of: reference, in: Self.self)
        case .constant(let value):
            // A key path on a captured value (`limits.minimum`) is evaluated now.
            guard let root = value as? Root.Output else {
                throw StrataError(.unsupportedPredicate, "\(Self.self) has a value of an unexpected type")
            }
            return .constant(root[keyPath: keyPath])
        case .toMany(let relationship):
            let access: CollectionAccess = switch kind {
            case .collectionCount: .count
            case .collectionIsEmpty: .isEmpty
            default: .other
            }
            return try compilation.aggregate(access, of: relationship, in: Self.self)
        case .scalar(let term) where kind == .collectionIsEmpty && Root.Output.self is any StringProtocol.Type:
            return .scalar(.binary(term, "=", .atomic("''"), .equality))
        case .scalar, .null:
            throw StrataError(
                .unsupportedPredicate,
                "the key path \(keyPath) cannot be translated to SQL; only persistent properties, to-one relationships, String.isEmpty and the count and isEmpty of to-many relationships can be (in \(Self.self))")
        }
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        // Column reads and subqueries on a NULL key are NULL; counts of to-many
        // relationships are not.
        guard root.yieldsNull(whenNull: variable) else { return false }
        return kind == nil || Root.Output.self is any StringProtocol.Type
    }
}

extension PredicateCompilation {
    /// A property of an object: a column, a related object, or a to-many relationship.
    mutating func member(_ keyPath: AnyKeyPath, of reference: ObjectReference, in node: Any.Type)
        throws(StrataError) -> PredicateOperand
    {
        let entity = reference.entity
        guard let ordinal = entity.ordinal(for: keyPath) else {
            if keyPath == objectIDKeyPath(entity.modelType) {
                return .object(reference)
            }
            throw StrataError(
                .unsupportedPredicate,
                "the key path \(keyPath) is not a persistent property of \(entity.name) (in \(node))",
                entityName: entity.name)
        }
        switch entity.properties[ordinal] {
        case .attribute(let attribute):
            return .scalar(column(attribute.name, of: reference))
        case .relationship(let relationship) where !relationship.isToMany:
            let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
            return .object(ObjectReference(key: column(relationship.name, of: reference), entity: destination))
        case .relationship(let relationship):
            let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            if let join = RelationshipLayout.joinTable(of: entity, ordinal: ordinal, in: schema) {
                return .toMany(ToManyReference(
                    owner: reference, name: relationship.name, destination: destination,
                    inverseColumn: "", joinTable: join))
            }
            guard inverse >= 0, destination.properties[inverse].hasColumn else {
                throw StrataError(
                    .unsupportedPredicate,
                    "the to-many relationship \(entity.name).\(relationship.name) has no inverse to query through",
                    entityName: entity.name, propertyName: relationship.name)
            }
            return .toMany(ToManyReference(
                owner: reference, name: relationship.name, destination: destination,
                inverseColumn: destination.properties[inverse].name))
        }
    }
}

/// `\Model.objectID`, which a predicate may compare with an ``ObjectID`` or object.
private func objectIDKeyPath<M: PersistentModel>(_ type: M.Type) -> AnyKeyPath {
    \M.objectID
}

// MARK: - Logic

extension PredicateExpressions.Conjunction: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let left = try compilation.condition(lhs.compileSQL(&compilation), in: Self.self)
        let right = try compilation.condition(rhs.compileSQL(&compilation), in: Self.self)
        return .scalar(.binary(left, "AND", right, .and))
    }
}

extension PredicateExpressions.Disjunction: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let left = try compilation.condition(lhs.compileSQL(&compilation), in: Self.self)
        let right = try compilation.condition(rhs.compileSQL(&compilation), in: Self.self)
        return .scalar(.binary(left, "OR", right, .or))
    }
}

extension PredicateExpressions.Negation: SQLPredicateExpression where Wrapped: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        .scalar(.not(try compilation.condition(wrapped.compileSQL(&compilation), in: Self.self)))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        wrapped.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.Conditional: SQLPredicateExpression
where Test: SQLPredicateExpression, If: SQLPredicateExpression, Else: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let test = try compilation.condition(test.compileSQL(&compilation), in: Self.self)
        let yes = try compilation.scalar(trueBranch.compileSQL(&compilation), in: Self.self)
        let no = try compilation.scalar(falseBranch.compileSQL(&compilation), in: Self.self)
        var fragment = SQLFragment("CASE WHEN ") + test.fragment
        fragment.append(" THEN ")
        fragment.append(yes.fragment)
        fragment.append(" ELSE ")
        fragment.append(no.fragment)
        fragment.append(" END")
        return .scalar(SQLTerm(fragment, .atomic))
    }
}

// MARK: - Comparisons

extension PredicateExpressions.Equal: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let left = try lhs.compileSQL(&compilation)
        let right = try rhs.compileSQL(&compilation)
        return try compilation.equality(left, right, negated: false, in: Self.self)
    }
}

extension PredicateExpressions.NotEqual: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let left = try lhs.compileSQL(&compilation)
        let right = try rhs.compileSQL(&compilation)
        return try compilation.equality(left, right, negated: true, in: Self.self)
    }
}

extension PredicateExpressions.Comparison: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try compilation.requireOrdering(of: LHS.Output.self, in: Self.self)
        let left = try compilation.scalar(lhs.compileSQL(&compilation), in: Self.self)
        let right = try compilation.scalar(rhs.compileSQL(&compilation), in: Self.self)
        let op = switch self.op {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        }
        return .scalar(.binary(left, op, right, .relational))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        lhs.yieldsNull(whenNull: variable) || rhs.yieldsNull(whenNull: variable)
    }
}

// MARK: - Arithmetic

/// Throws for numbers SQL cannot compute with like Swift (`Decimal` is stored as text).
private func requireArithmetic(on type: Any.Type, in node: Any.Type) throws(StrataError) {
    guard predicateBaseType(type) is any PersistentValue.Type, predicateBaseType(type) != Decimal.self else {
        throw StrataError(
            .unsupportedPredicate, "\(node) cannot be translated to SQL: \(type) arithmetic is not supported")
    }
}

extension PredicateExpressions.Arithmetic: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try requireArithmetic(on: LHS.Output.self, in: Self.self)
        let left = try compilation.scalar(lhs.compileSQL(&compilation), in: Self.self)
        let right = try compilation.scalar(rhs.compileSQL(&compilation), in: Self.self)
        return switch op {
        case .add: .scalar(.binary(left, "+", right, .additive))
        case .subtract: .scalar(.binary(left, "-", right, .additive))
        case .multiply: .scalar(.binary(left, "*", right, .multiplicative))
        }
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        lhs.yieldsNull(whenNull: variable) || rhs.yieldsNull(whenNull: variable)
    }
}

/// `/` and `%`: SQLite truncates integer division toward zero, as Swift does.
/// Division by zero is NULL in SQL (the row does not match) where Swift traps.
private func division<L: SQLPredicateExpression, R: SQLPredicateExpression>(
    _ lhs: L, _ op: String, _ rhs: R, of type: Any.Type, _ compilation: inout PredicateCompilation, in node: Any.Type
) throws(StrataError) -> PredicateOperand {
    try requireArithmetic(on: type, in: node)
    let left = try compilation.scalar(lhs.compileSQL(&compilation), in: node)
    let right = try compilation.scalar(rhs.compileSQL(&compilation), in: node)
    return .scalar(.binary(left, op, right, .multiplicative))
}

extension PredicateExpressions.IntDivision: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try division(lhs, "/", rhs, of: LHS.Output.self, &compilation, in: Self.self)
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        lhs.yieldsNull(whenNull: variable) || rhs.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.IntRemainder: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try division(lhs, "%", rhs, of: LHS.Output.self, &compilation, in: Self.self)
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        lhs.yieldsNull(whenNull: variable) || rhs.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.FloatDivision: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try division(lhs, "/", rhs, of: LHS.Output.self, &compilation, in: Self.self)
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        lhs.yieldsNull(whenNull: variable) || rhs.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.UnaryMinus: SQLPredicateExpression where Wrapped: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try requireArithmetic(on: Wrapped.Output.self, in: Self.self)
        let operand = try compilation.scalar(wrapped.compileSQL(&compilation), in: Self.self)
        return .scalar(SQLTerm(SQLFragment("-") + operand.operand(atLeast: .atomic), .unary))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        wrapped.yieldsNull(whenNull: variable)
    }
}

// MARK: - Optionals

extension PredicateExpressions.NilCoalesce: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let left = try lhs.compileSQL(&compilation)
        let right = try rhs.compileSQL(&compilation)
        switch left {
        case .null:
            return right
        case .constant(let value):
            // Known now: take the left value unless it is nil.
            if let optional = value as? any PredicateOptionalValue, optional.predicateWrappedValue == nil {
                return right
            }
            return left
        case .object(let reference):
            let key = try compilation.objectKey(right, comparedWith: reference.entity, in: Self.self) ?? .null
            return .object(ObjectReference(key: .call("COALESCE", [reference.key, key]), entity: reference.entity))
        default:
            let first = try compilation.scalar(left, in: Self.self)
            let second = try compilation.scalar(right, in: Self.self)
            return .scalar(.call("COALESCE", [first, second]))
        }
    }
}

extension PredicateExpressions.OptionalFlatMap: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let base = try wrapped.compileSQL(&compilation)
        switch base {
        case .null:
            return .null
        case .constant(let value):
            // Known now: nil stays nil, anything else is the transform's input.
            guard let some = (value as? Wrapped?) ?? nil else { return .null }
            return try compilation.with(variable.key, boundTo: .constant(some), compile: transform)
        case .toMany:
            throw StrataError(.unsupportedPredicate, "\(Self.self) cannot be translated to SQL")
        case .scalar, .object:
            let result = try compilation.with(variable.key, boundTo: base, compile: transform)
            if transform.yieldsNull(whenNull: variable.key) {
                return result
            }
            // Swift skips the transform for nil; SQL must not evaluate it to non-NULL.
            let test = SQLTerm.binary(try compilation.scalar(base, in: Self.self), "IS", .null, .equality)
            func guarded(_ term: SQLTerm) -> SQLTerm {
                var fragment = SQLFragment("CASE WHEN ") + test.fragment
                fragment.append(" THEN NULL ELSE ")
                fragment.append(term.fragment)
                fragment.append(" END")
                return SQLTerm(fragment, .atomic)
            }
            if case .object(let reference) = result {
                return .object(ObjectReference(key: guarded(reference.key), entity: reference.entity))
            }
            return .scalar(guarded(try compilation.scalar(result, in: Self.self)))
        }
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        wrapped.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.ForcedUnwrap: SQLPredicateExpression where Inner: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let operand = try inner.compileSQL(&compilation)
        if case .constant(let value) = operand {
            // Mirror Swift: unwrapping a captured nil is an error, not a non-match.
            guard let some = (value as? Wrapped?) ?? nil else {
                throw StrataError(.unsupportedPredicate, "the predicate force-unwraps a nil value (\(Self.self))")
            }
            return .constant(some)
        }
        // A NULL column makes the enclosing comparison unknown: the row does not match.
        return operand
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        inner.yieldsNull(whenNull: variable)
    }
}
