import Foundation

// The basic `PredicateExpressions` nodes: variables, values, key paths, logic,
// comparisons, arithmetic and optionals. Each conformance is conditional on its
// children conforming, so an unsupported node anywhere makes the tree fail the
// cast in `PredicateCompiler.compile`, which then names that node.

// MARK: - Leaves

extension PredicateExpressions.Variable: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        guard let value = compilation.variables[key] else {
            throw StrataError(.unsupportedPredicate, "the predicate uses a variable outside its scope (\(Self.self))")
        }
        return value
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool { key == variable }
}

extension PredicateExpressions.Value: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        .constant(value)
    }
}

extension PredicateExpressions.NilLiteral: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        .null
    }
}

extension PredicateExpressions.KeyPath: StorePredicateExpression where Root: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let base = try root.compileStore(&compilation)
        switch base {
        case .object(let object):
            return try compilation.member(keyPath, of: object, in: Self.self)
        case .constant(let value):
            // A key path on a captured value (`limits.minimum`) is evaluated now.
            guard let root = value as? Root.Output else {
                throw StrataError(.unsupportedPredicate, "\(Self.self) has a value of an unexpected type")
            }
            return .constant(root[keyPath: keyPath])
        case .toMany(let relationship, let name):
            let access: CollectionAccess = switch kind {
            case .collectionCount: .count
            case .collectionIsEmpty: .isEmpty
            default: .other
            }
            return try compilation.aggregate(access, of: relationship, name: name, in: Self.self)
        case .scalar where keyPath as AnyKeyPath == \String.folded as AnyKeyPath:
            return .scalar(.transformed(try compilation.scalar(base, in: Self.self), .folded))
        case .scalar where keyPath as AnyKeyPath == \String.backwards as AnyKeyPath:
            return .scalar(.transformed(try compilation.scalar(base, in: Self.self), .backwards))
        case .scalar where kind == .collectionIsEmpty && Root.Output.self is any StringProtocol.Type:
            // Unknown for nil, as the other properties of a missing value.
            return .scalar(.compare(try compilation.scalar(base, in: Self.self), .equal, .value(.text(""))))
        case .scalar, .null:
            throw StrataError(
                .unsupportedPredicate,
                "the key path \(keyPath) cannot be translated to a store query; only persistent properties, to-one relationships, String.isEmpty, String.folded, String.backwards and the count and isEmpty of to-many relationships can be (in \(Self.self))")
        }
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        // Properties of a missing object are NULL; counts of to-many
        // relationships are not.
        guard root.yieldsNull(whenNull: variable) else { return false }
        return kind == nil || Root.Output.self is any StringProtocol.Type
    }
}

extension PredicateCompilation {
    /// A property of an object: a stored value, a related object, or a to-many relationship.
    mutating func member(_ keyPath: AnyKeyPath, of object: ObjectOperand, in node: Any.Type)
        throws(StrataError) -> PredicateOperand
    {
        let entity = schema.entities[object.entityIndex]
        guard let ordinal = entity.ordinal(for: keyPath) else {
            if keyPath == objectIDKeyPath(entity.modelType) {
                return .object(object)
            }
            throw StrataError(
                .unsupportedPredicate,
                "the key path \(keyPath) is not a persistent property of \(entity.name) (in \(node))",
                entityName: entity.name)
        }
        switch entity.properties[ordinal] {
        case .attribute:
            return .scalar(.property(object, ordinal))
        case .relationship(let relationship) where !relationship.isToMany:
            let destination = entity.destinationIndexByOrdinal[ordinal]
            return .object(.keyed(.property(object, ordinal), entity: destination))
        case .relationship(let relationship):
            let destination = entity.destinationIndexByOrdinal[ordinal]
            return .toMany(ToManyOperand(owner: object, ordinal: ordinal, destinationIndex: destination), name: relationship.name)
        }
    }
}

/// `\Model.objectID`, which a predicate may compare with an ``ObjectID`` or object.
private func objectIDKeyPath<M: PersistentModel>(_ type: M.Type) -> AnyKeyPath {
    \M.objectID
}

// MARK: - Logic

extension PredicateExpressions.Conjunction: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let left = try compilation.condition(lhs.compileStore(&compilation), in: Self.self)
        let right = try compilation.condition(rhs.compileStore(&compilation), in: Self.self)
        return .scalar(.and(left, right))
    }
}

extension PredicateExpressions.Disjunction: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let left = try compilation.condition(lhs.compileStore(&compilation), in: Self.self)
        let right = try compilation.condition(rhs.compileStore(&compilation), in: Self.self)
        return .scalar(.or(left, right))
    }
}

extension PredicateExpressions.Negation: StorePredicateExpression where Wrapped: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        .scalar(.not(try compilation.condition(wrapped.compileStore(&compilation), in: Self.self)))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        wrapped.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.Conditional: StorePredicateExpression
where Test: StorePredicateExpression, If: StorePredicateExpression, Else: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let test = try compilation.condition(test.compileStore(&compilation), in: Self.self)
        let yes = try compilation.scalar(trueBranch.compileStore(&compilation), in: Self.self)
        let no = try compilation.scalar(falseBranch.compileStore(&compilation), in: Self.self)
        return .scalar(.conditional(test, yes, no))
    }
}

// MARK: - Comparisons

extension PredicateExpressions.Equal: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let left = try lhs.compileStore(&compilation)
        let right = try rhs.compileStore(&compilation)
        return try compilation.equality(left, right, negated: false, in: Self.self)
    }
}

extension PredicateExpressions.NotEqual: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let left = try lhs.compileStore(&compilation)
        let right = try rhs.compileStore(&compilation)
        return try compilation.equality(left, right, negated: true, in: Self.self)
    }
}

extension PredicateExpressions.Comparison: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let collation = try compilation.ordering(of: LHS.Output.self, in: Self.self)
        let left = try compilation.scalar(lhs.compileStore(&compilation), in: Self.self)
        let right = try compilation.scalar(rhs.compileStore(&compilation), in: Self.self)
        let op: ComparisonOperator = switch self.op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqual
        }
        return .scalar(.compare(left, op, right, collation))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        lhs.yieldsNull(whenNull: variable) || rhs.yieldsNull(whenNull: variable)
    }
}

// MARK: - Arithmetic

/// The domain stores compute `type`'s arithmetic in; throws for numbers they
/// cannot compute with like Swift (`Decimal` is stored as text).
private func arithmeticDomain(of type: Any.Type, in node: Any.Type) throws(StrataError) -> CheckedArithmetic.Domain {
    guard let domain = CheckedArithmetic.Domain(predicateBaseType(type)) else {
        throw StrataError(
            .unsupportedPredicate, "\(node) cannot be translated to a store query: \(type) arithmetic is not supported")
    }
    return domain
}

extension PredicateExpressions.Arithmetic: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let domain = try arithmeticDomain(of: LHS.Output.self, in: Self.self)
        let left = try compilation.scalar(lhs.compileStore(&compilation), in: Self.self)
        let right = try compilation.scalar(rhs.compileStore(&compilation), in: Self.self)
        return switch op {
        case .add: .scalar(.arithmetic(left, .add, right, domain))
        case .subtract: .scalar(.arithmetic(left, .subtract, right, domain))
        case .multiply: .scalar(.arithmetic(left, .multiply, right, domain))
        }
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        lhs.yieldsNull(whenNull: variable) || rhs.yieldsNull(whenNull: variable)
    }
}

/// `/` and `%`: integer division truncates toward zero, as Swift does, and
/// fails the query when the divisor is zero, where Swift traps.
private func division<L: StorePredicateExpression, R: StorePredicateExpression>(
    _ lhs: L, _ op: ArithmeticOperator, _ rhs: R, of type: Any.Type, _ compilation: inout PredicateCompilation, in node: Any.Type
) throws(StrataError) -> PredicateOperand {
    let domain = try arithmeticDomain(of: type, in: node)
    let left = try compilation.scalar(lhs.compileStore(&compilation), in: node)
    let right = try compilation.scalar(rhs.compileStore(&compilation), in: node)
    return .scalar(.arithmetic(left, op, right, domain))
}

extension PredicateExpressions.IntDivision: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try division(lhs, .divide, rhs, of: LHS.Output.self, &compilation, in: Self.self)
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        lhs.yieldsNull(whenNull: variable) || rhs.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.IntRemainder: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try division(lhs, .remainder, rhs, of: LHS.Output.self, &compilation, in: Self.self)
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        lhs.yieldsNull(whenNull: variable) || rhs.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.FloatDivision: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try division(lhs, .divide, rhs, of: LHS.Output.self, &compilation, in: Self.self)
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        lhs.yieldsNull(whenNull: variable) || rhs.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.UnaryMinus: StorePredicateExpression where Wrapped: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let domain = try arithmeticDomain(of: Wrapped.Output.self, in: Self.self)
        let operand = try compilation.scalar(wrapped.compileStore(&compilation), in: Self.self)
        return .scalar(.negate(operand, domain))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        wrapped.yieldsNull(whenNull: variable)
    }
}

// MARK: - Optionals

extension PredicateExpressions.NilCoalesce: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let left = try lhs.compileStore(&compilation)
        let right = try rhs.compileStore(&compilation)
        switch left {
        case .null:
            return right
        case .constant(let value):
            // Known now: take the left value unless it is nil.
            if let optional = value as? any PredicateOptionalValue, optional.predicateWrappedValue == nil {
                return right
            }
            return left
        case .object(let object):
            let entity = compilation.schema.entities[object.entityIndex]
            let key = try compilation.objectKey(right, comparedWith: entity, in: Self.self) ?? .null
            return .object(.keyed(.coalesce(object.key, key), entity: object.entityIndex))
        default:
            let first = try compilation.scalar(left, in: Self.self)
            let second = try compilation.scalar(right, in: Self.self)
            return .scalar(.coalesce(first, second))
        }
    }
}

extension PredicateExpressions.OptionalFlatMap: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let base = try wrapped.compileStore(&compilation)
        switch base {
        case .null:
            return .null
        case .constant(let value):
            // Known now: nil stays nil, anything else is the transform's input.
            guard let some = (value as? Wrapped?) ?? nil else { return .null }
            return try compilation.with(variable.key, boundTo: .constant(some), compile: transform)
        case .toMany:
            throw StrataError(.unsupportedPredicate, "\(Self.self) cannot be translated to a store query")
        case .scalar, .object:
            let result = try compilation.with(variable.key, boundTo: base, compile: transform)
            if transform.yieldsNull(whenNull: variable.key) {
                return result
            }
            // Swift skips the transform for nil; the store must not make it non-NULL.
            let test = StoreExpression.isNull(try compilation.scalar(base, in: Self.self))
            func guarded(_ value: StoreExpression) -> StoreExpression {
                .conditional(test, .null, value)
            }
            if case .object(let object) = result {
                return .object(.keyed(guarded(object.key), entity: object.entityIndex))
            }
            return .scalar(guarded(try compilation.scalar(result, in: Self.self)))
        }
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        wrapped.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.ForcedUnwrap: StorePredicateExpression where Inner: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let operand = try inner.compileStore(&compilation)
        if case .constant(let value) = operand {
            // Mirror Swift: unwrapping a captured nil is an error, not a non-match.
            guard let some = (value as? Wrapped?) ?? nil else {
                throw StrataError(.unsupportedPredicate, "the predicate force-unwraps a nil value (\(Self.self))")
            }
            return .constant(some)
        }
        // As in Swift, unwrapping nil fails the evaluation: the store fails the query.
        switch operand {
        case .scalar(let value):
            return .scalar(.unwrapped(value))
        case .object(let object):
            return .object(.keyed(.unwrapped(object.key), entity: object.entityIndex))
        default:
            return operand
        }
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        inner.yieldsNull(whenNull: variable)
    }
}
