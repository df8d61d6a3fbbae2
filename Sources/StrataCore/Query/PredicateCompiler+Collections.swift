import Foundation

// Strings, membership, ranges and to-many relationships.

// MARK: - Strings

/// Throws unless the collection is a string: other stored collections are JSON text.
private func requireString(_ type: Any.Type, in node: Any.Type) throws(StrataError) {
    guard type is any StringProtocol.Type else {
        throw StrataError(
            .unsupportedPredicate,
            "\(node) cannot be translated to a store query: only strings support this operation, and stored collections are JSON")
    }
}

extension PredicateExpressions.SequenceStartsWith: StorePredicateExpression
where Base: StorePredicateExpression, Prefix: StorePredicateExpression {
    /// Case-sensitive, by code point.
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try requireString(Base.Output.self, in: Self.self)
        let string = try compilation.scalar(base.compileStore(&compilation), in: Self.self)
        let start = try compilation.scalar(prefix.compileStore(&compilation), in: Self.self)
        return .scalar(.hasPrefix(string, start))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        base.yieldsNull(whenNull: variable) || prefix.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.CollectionContainsCollection: StorePredicateExpression
where Base: StorePredicateExpression, Other: StorePredicateExpression {
    /// Case-sensitive substring search.
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try requireString(Base.Output.self, in: Self.self)
        let string = try compilation.scalar(base.compileStore(&compilation), in: Self.self)
        let part = try compilation.scalar(other.compileStore(&compilation), in: Self.self)
        return .scalar(.containsText(string, part))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        base.yieldsNull(whenNull: variable) || other.yieldsNull(whenNull: variable)
    }
}

#if canImport(Darwin)
// Foundation offers `localizedStandardContains` in predicates on Apple platforms;
// Strata gives it the meaning it has on Linux (see `FoldedTextContains`).
extension PredicateExpressions.StringLocalizedStandardContains: StorePredicateExpression
where Root: StorePredicateExpression, Other: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try compilation.foldedContains(root, other, in: Self.self)
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        root.yieldsNull(whenNull: variable) || other.yieldsNull(whenNull: variable)
    }
}
#endif

extension FoldedTextContains: StorePredicateExpression
where Root: StorePredicateExpression, Other: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try compilation.foldedContains(root, other, in: Self.self)
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        root.yieldsNull(whenNull: variable) || other.yieldsNull(whenNull: variable)
    }
}

extension PredicateCompilation {
    /// Whether the folded form of one text contains the folded form of another.
    mutating func foldedContains(
        _ root: some StorePredicateExpression, _ other: some StorePredicateExpression, in node: Any.Type
    ) throws(StrataError) -> PredicateOperand {
        let string = try scalar(root.compileStore(&self), in: node)
        let part = try scalar(other.compileStore(&self), in: node)
        return .scalar(.containsText(.transformed(string, .folded), .transformed(part, .folded)))
    }
}

// MARK: - Membership

extension PredicateExpressions.SequenceContains: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let collection = try sequence.compileStore(&compilation)
        let member = try element.compileStore(&compilation)
        switch collection {
        case .constant(let value):
            guard let values = value as? LHS.Output else {
                throw StrataError(.unsupportedPredicate, "\(Self.self) has a value of an unexpected type")
            }
            return try compilation.membership(
                member, in: values.map { $0 as Any }, nullable: isPredicateOptional(RHS.Output.self), in: Self.self)
        case .toMany(let relationship, _):
            // Whether the element is one of the members.
            let destination = compilation.schema.entities[relationship.destinationIndex]
            let key = try compilation.objectKey(member, comparedWith: destination, in: Self.self)
            guard let key else { return .scalar(.falseValue) }
            let variable = compilation.makeRowVariable()
            let match = StoreExpression.compare(.key(.row(variable, entity: relationship.destinationIndex)), .equal, key)
            return .scalar(.exists(relationship, variable: variable, where: match))
        case .scalar, .object, .null:
            throw StrataError(
                .unsupportedPredicate,
                "\(Self.self) cannot be translated to a store query: contains(_:) needs a captured collection or a to-many relationship; stored collections are JSON")
        }
    }
}

extension PredicateCompilation {
    /// Membership in captured values, matching Swift's `contains` also when
    /// `nil` is involved.
    func membership(_ member: PredicateOperand, in values: [Any], nullable: Bool, in node: Any.Type)
        throws(StrataError) -> PredicateOperand
    {
        var keys: [StoredValue] = []
        var containsNil = false
        let subject: StoreExpression
        if case .object(let object) = member {
            subject = object.key
            let entity = schema.entities[object.entityIndex]
            for value in values {
                // Objects of another entity can never match; leave them out.
                guard let key = try objectKey(.constant(value), comparedWith: entity, in: node) else { continue }
                if case .value(let stored) = key, !stored.isNull { keys.append(stored) } else { containsNil = true }
            }
        } else {
            let encode = transformerEncoding(of: member)
            subject = try scalar(member, in: node, encode: encode)
            for value in values {
                guard case .value(let stored) = try scalar(.constant(value), in: node, encode: encode) else { continue }
                if stored.isNull { containsNil = true } else { keys.append(stored) }
            }
        }
        let isNull = StoreExpression.isNull(subject)
        guard !keys.isEmpty else {
            return .scalar(containsNil ? isNull : .falseValue)
        }
        let inList = StoreExpression.inList(subject, keys)
        if containsNil {
            return .scalar(.or(isNull, inList))
        }
        if nullable {
            // A NULL subject makes membership unknown, which `!` would keep
            // unknown; Swift says false.
            return .scalar(.and(.not(isNull), inList))
        }
        return .scalar(inList)
    }

    /// `count` and `isEmpty` of a to-many relationship.
    mutating func aggregate(_ access: CollectionAccess, of relationship: ToManyOperand, name: String, in node: Any.Type)
        throws(StrataError) -> PredicateOperand
    {
        switch access {
        case .isEmpty:
            return .scalar(.not(.exists(relationship, variable: makeRowVariable(), where: nil)))
        case .count:
            return .scalar(.count(relationship))
        case .other:
            let owner = schema.entities[relationship.owner.entityIndex].name
            throw StrataError(
                .unsupportedPredicate,
                "the to-many relationship \(owner).\(name) can only be used with contains, contains(where:), allSatisfy, count and isEmpty (in \(node))",
                entityName: owner, propertyName: name)
        }
    }
}

/// The collection key paths a predicate can apply to a to-many relationship.
enum CollectionAccess {
    case count, isEmpty, other
}

extension PredicateExpressions.SequenceContainsWhere: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try compilation.quantified(
            sequence.compileStore(&compilation), variable: variable.key, test: test, all: false, in: Self.self)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: StorePredicateExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try compilation.quantified(
            sequence.compileStore(&compilation), variable: variable.key, test: test, all: true, in: Self.self)
    }
}

extension PredicateCompilation {
    /// `contains(where:)` (`all == false`) and `allSatisfy` (`all == true`): over a
    /// to-many relationship a test of its members, over a captured sequence the
    /// test repeated for each element.
    mutating func quantified<Test: StorePredicateExpression>(
        _ collection: PredicateOperand, variable: PredicateExpressions.VariableID, test: Test, all: Bool,
        in node: Any.Type
    ) throws(StrataError) -> PredicateOperand {
        switch collection {
        case .toMany(let relationship, _):
            let rowVariable = makeRowVariable()
            let row = PredicateOperand.object(.row(rowVariable, entity: relationship.destinationIndex))
            let condition = try self.condition(with(variable, boundTo: row, compile: test), in: node)
            // allSatisfy: no member fails the test.
            let exists = StoreExpression.exists(relationship, variable: rowVariable, where: all ? .not(condition) : condition)
            return .scalar(all ? .not(exists) : exists)
        case .constant(let value):
            guard let elements = value as? any Sequence else {
                throw StrataError(.unsupportedPredicate, "\(node) has a value of an unexpected type")
            }
            var terms: [StoreExpression] = []
            for element in elements.predicateElements {
                terms.append(try self.condition(with(variable, boundTo: .constant(element), compile: test), in: node))
            }
            guard var result = terms.first else { return .scalar(all ? .trueValue : .falseValue) }
            for term in terms.dropFirst() {
                result = all ? .and(result, term) : .or(result, term)
            }
            return .scalar(result)
        case .scalar, .object, .null:
            throw StrataError(
                .unsupportedPredicate,
                "\(node) cannot be translated to a store query: it needs a captured collection or a to-many relationship; stored collections are JSON")
        }
    }
}

private extension Sequence {
    var predicateElements: [Any] { map { $0 as Any } }
}

// MARK: - Ranges

/// A range node (`a..<b`, `a...b`) that `RangeExpressionContains` reads as bounds.
protocol StoreRangeExpression {
    func compileBounds(_ compilation: inout PredicateCompilation) throws(StrataError) -> RangeBounds
}

/// The bounds of a range: absent for one-sided ranges.
struct RangeBounds {
    var lower: StoreExpression?
    var upper: StoreExpression?
    var includesUpper: Bool
}

extension PredicateExpressions.Range: StorePredicateExpression, StoreRangeExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        throw StrataError(.unsupportedPredicate, "a range can only be used with contains (\(Self.self))")
    }

    func compileBounds(_ compilation: inout PredicateCompilation) throws(StrataError) -> RangeBounds {
        let low = try compilation.scalar(lower.compileStore(&compilation), in: Self.self)
        let high = try compilation.scalar(upper.compileStore(&compilation), in: Self.self)
        return RangeBounds(lower: low, upper: high, includesUpper: false)
    }
}

extension PredicateExpressions.ClosedRange: StorePredicateExpression, StoreRangeExpression
where LHS: StorePredicateExpression, RHS: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        throw StrataError(.unsupportedPredicate, "a range can only be used with contains (\(Self.self))")
    }

    func compileBounds(_ compilation: inout PredicateCompilation) throws(StrataError) -> RangeBounds {
        let low = try compilation.scalar(lower.compileStore(&compilation), in: Self.self)
        let high = try compilation.scalar(upper.compileStore(&compilation), in: Self.self)
        return RangeBounds(lower: low, upper: high, includesUpper: true)
    }
}

/// Swift's range types captured as values.
private protocol PredicateRangeValue {
    var predicateBounds: (lower: Any?, upper: Any?, includesUpper: Bool) { get }
}

extension Range: PredicateRangeValue {
    fileprivate var predicateBounds: (lower: Any?, upper: Any?, includesUpper: Bool) { (lowerBound, upperBound, false) }
}

extension ClosedRange: PredicateRangeValue {
    fileprivate var predicateBounds: (lower: Any?, upper: Any?, includesUpper: Bool) { (lowerBound, upperBound, true) }
}

extension PartialRangeFrom: PredicateRangeValue {
    fileprivate var predicateBounds: (lower: Any?, upper: Any?, includesUpper: Bool) { (lowerBound, nil, false) }
}

extension PartialRangeThrough: PredicateRangeValue {
    fileprivate var predicateBounds: (lower: Any?, upper: Any?, includesUpper: Bool) { (nil, upperBound, true) }
}

extension PartialRangeUpTo: PredicateRangeValue {
    fileprivate var predicateBounds: (lower: Any?, upper: Any?, includesUpper: Bool) { (nil, upperBound, false) }
}

extension PredicateExpressions.RangeExpressionContains: StorePredicateExpression
where RangeExpression: StorePredicateExpression, Element: StorePredicateExpression {
    func compileStore(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let collation = try compilation.ordering(of: Element.Output.self, in: Self.self)
        let bounds: RangeBounds
        if let node = range as? any StoreRangeExpression {
            bounds = try node.compileBounds(&compilation)
        } else if case .constant(let value) = try range.compileStore(&compilation),
                  let captured = value as? any PredicateRangeValue {
            let parts = captured.predicateBounds
            bounds = RangeBounds(
                lower: try parts.lower.map { value throws(StrataError) in .value(try storedValue(forPredicateValue: value)) },
                upper: try parts.upper.map { value throws(StrataError) in .value(try storedValue(forPredicateValue: value)) },
                includesUpper: parts.includesUpper)
        } else {
            throw StrataError(.unsupportedPredicate, "\(Self.self) cannot be translated to a store query")
        }
        let subject = try compilation.scalar(element.compileStore(&compilation), in: Self.self)
        switch (bounds.lower, bounds.upper) {
        case (let lower?, let upper?) where bounds.includesUpper && collation == .binary:
            return .scalar(.between(subject, lower, upper))
        case (let lower?, let upper?):
            return .scalar(.and(
                .compare(subject, .greaterThanOrEqual, lower, collation),
                .compare(subject, bounds.includesUpper ? .lessThanOrEqual : .lessThan, upper, collation)))
        case (let lower?, nil):
            return .scalar(.compare(subject, .greaterThanOrEqual, lower, collation))
        case (nil, let upper?):
            return .scalar(.compare(subject, bounds.includesUpper ? .lessThanOrEqual : .lessThan, upper, collation))
        case (nil, nil):
            return .scalar(.trueValue)
        }
    }
}
