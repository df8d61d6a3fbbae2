import Foundation

// Strings, membership, ranges and to-many relationships.

// MARK: - Strings

/// Throws unless the collection is a string: other stored collections are JSON text.
private func requireString(_ type: Any.Type, in node: Any.Type) throws(StrataError) {
    guard type is any StringProtocol.Type else {
        throw StrataError(
            .unsupportedPredicate,
            "\(node) cannot be translated to SQL: only strings support this operation, and stored collections are JSON")
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLPredicateExpression
where Base: SQLPredicateExpression, Prefix: SQLPredicateExpression {
    /// `substr(base, 1, length(prefix)) = prefix`: case-sensitive, unlike `LIKE`,
    /// which folds ASCII case.
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try requireString(Base.Output.self, in: Self.self)
        let string = try compilation.scalar(base.compileSQL(&compilation), in: Self.self)
        let start = try compilation.scalar(prefix.compileSQL(&compilation), in: Self.self)
        let head = SQLTerm.call("substr", [string, .atomic("1"), .call("length", [start])])
        return .scalar(.binary(head, "=", start, .equality))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        base.yieldsNull(whenNull: variable) || prefix.yieldsNull(whenNull: variable)
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLPredicateExpression
where Base: SQLPredicateExpression, Other: SQLPredicateExpression {
    /// `instr(base, other) > 0`: case-sensitive substring search.
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try requireString(Base.Output.self, in: Self.self)
        let string = try compilation.scalar(base.compileSQL(&compilation), in: Self.self)
        let part = try compilation.scalar(other.compileSQL(&compilation), in: Self.self)
        return .scalar(.binary(.call("instr", [string, part]), ">", .atomic("0"), .relational))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        base.yieldsNull(whenNull: variable) || other.yieldsNull(whenNull: variable)
    }
}

#if canImport(Darwin)
// Foundation offers `localizedStandardContains` in predicates on Apple platforms only.
extension PredicateExpressions.StringLocalizedStandardContains: SQLPredicateExpression
where Root: SQLPredicateExpression, Other: SQLPredicateExpression {
    /// `instr(lower(root), lower(other)) > 0`: SQLite's `lower` folds ASCII letters
    /// only, and diacritics are not ignored.
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let string = try compilation.scalar(root.compileSQL(&compilation), in: Self.self)
        let part = try compilation.scalar(other.compileSQL(&compilation), in: Self.self)
        let search = SQLTerm.call("instr", [.call("lower", [string]), .call("lower", [part])])
        return .scalar(.binary(search, ">", .atomic("0"), .relational))
    }

    func yieldsNull(whenNull variable: PredicateExpressions.VariableID) -> Bool {
        root.yieldsNull(whenNull: variable) || other.yieldsNull(whenNull: variable)
    }
}
#endif

// MARK: - Membership

extension PredicateExpressions.SequenceContains: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        let collection = try sequence.compileSQL(&compilation)
        let member = try element.compileSQL(&compilation)
        switch collection {
        case .constant(let value):
            guard let values = value as? LHS.Output else {
                throw StrataError(.unsupportedPredicate, "\(Self.self) has a value of an unexpected type")
            }
            return try compilation.membership(
                member, in: values.map { $0 as Any }, nullable: isPredicateOptional(RHS.Output.self), in: Self.self)
        case .toMany(let relationship):
            // Whether the element's row points back at the owner.
            let key = try compilation.objectKey(member, comparedWith: relationship.destination, in: Self.self)
            guard let key else { return .scalar(.falseValue) }
            let alias = compilation.makeAlias()
            let match = SQLTerm.binary(.atomic("\(alias).pk"), "=", key, .equality)
            return .scalar(compilation.existsTerm(relationship, alias: alias, condition: match))
        case .scalar, .object, .null:
            throw StrataError(
                .unsupportedPredicate,
                "\(Self.self) cannot be translated to SQL: contains(_:) needs a captured collection or a to-many relationship; stored collections are JSON")
        }
    }
}

extension PredicateCompilation {
    /// `member IN (?, ?, …)`, matching Swift's `contains` also when `nil` is involved.
    func membership(_ member: PredicateOperand, in values: [Any], nullable: Bool, in node: Any.Type)
        throws(StrataError) -> PredicateOperand
    {
        var keys: [SQLTerm] = []
        var containsNil = false
        let subject: SQLTerm
        if case .object(let reference) = member {
            subject = reference.key
            for value in values {
                // Objects of another entity can never match; leave them out.
                guard let key = try objectKey(.constant(value), comparedWith: reference.entity, in: node) else { continue }
                if key.fragment.sql == "NULL" { containsNil = true } else { keys.append(key) }
            }
        } else {
            subject = try scalar(member, in: node)
            for value in values {
                let stored = try storedValue(forPredicateValue: value)
                if stored.isNull { containsNil = true } else { keys.append(.bound(stored)) }
            }
        }
        let isNull = SQLTerm.binary(subject, "IS", .null, .equality)
        guard !keys.isEmpty else {
            return .scalar(containsNil ? isNull : .falseValue)
        }
        let list = SQLFragment.joined(keys.map(\.fragment), separator: ", ")
        let inList = SQLTerm(
            subject.operand(atLeast: .additive) + SQLFragment(" IN (") + list + SQLFragment(")"), .equality)
        if containsNil {
            return .scalar(.binary(isNull, "OR", inList, .or))
        }
        if nullable {
            // `NULL IN (…)` is NULL, which `NOT` would keep NULL; Swift says false.
            return .scalar(.binary(.binary(subject, "IS NOT", .null, .equality), "AND", inList, .and))
        }
        return .scalar(inList)
    }

    /// `EXISTS (SELECT 1 FROM <destination> AS <alias> WHERE <alias>.<inverse> = <owner> AND <condition>)`
    /// (through the join table for many-to-many).
    func existsTerm(_ relationship: ToManyReference, alias: String, condition: SQLTerm?) -> SQLTerm {
        let (from, link) = relationship.source(alias: alias)
        let filter = condition.map { SQLTerm.binary(link, "AND", $0, .and) } ?? link
        var fragment = SQLFragment("EXISTS (SELECT 1 FROM \(from) WHERE ")
        fragment.append(filter.fragment)
        fragment.append(")")
        return SQLTerm(fragment, .atomic)
    }

    /// `count` and `isEmpty` of a to-many relationship.
    mutating func aggregate(_ access: CollectionAccess, of relationship: ToManyReference, in node: Any.Type)
        throws(StrataError) -> PredicateOperand
    {
        switch access {
        case .isEmpty:
            return .scalar(.not(existsTerm(relationship, alias: makeAlias(), condition: nil)))
        case .count:
            let (from, link) = relationship.source(alias: makeAlias())
            var fragment = SQLFragment("(SELECT COUNT(*) FROM \(from) WHERE ")
            fragment.append(link.fragment)
            fragment.append(")")
            return .scalar(SQLTerm(fragment, .atomic))
        case .other:
            throw StrataError(
                .unsupportedPredicate,
                "the to-many relationship \(relationship.owner.entity.name).\(relationship.name) can only be used with contains, contains(where:), allSatisfy, count and isEmpty (in \(node))",
                entityName: relationship.owner.entity.name, propertyName: relationship.name)
        }
    }
}

/// The collection key paths a predicate can apply to a to-many relationship.
enum CollectionAccess {
    case count, isEmpty, other
}

extension PredicateExpressions.SequenceContainsWhere: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try compilation.quantified(
            sequence.compileSQL(&compilation), variable: variable.key, test: test, all: false, in: Self.self)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: SQLPredicateExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try compilation.quantified(
            sequence.compileSQL(&compilation), variable: variable.key, test: test, all: true, in: Self.self)
    }
}

extension PredicateCompilation {
    /// `contains(where:)` (`all == false`) and `allSatisfy` (`all == true`): over a
    /// to-many relationship an `EXISTS` subquery, over a captured sequence the test
    /// repeated for each element.
    mutating func quantified<Test: SQLPredicateExpression>(
        _ collection: PredicateOperand, variable: PredicateExpressions.VariableID, test: Test, all: Bool,
        in node: Any.Type
    ) throws(StrataError) -> PredicateOperand {
        switch collection {
        case .toMany(let relationship):
            let alias = makeAlias()
            let row = PredicateOperand.object(ObjectReference(row: alias, entity: relationship.destination))
            let condition = try self.condition(with(variable, boundTo: row, compile: test), in: node)
            // allSatisfy: no related row fails the test.
            let exists = existsTerm(relationship, alias: alias, condition: all ? .not(condition) : condition)
            return .scalar(all ? .not(exists) : exists)
        case .constant(let value):
            guard let elements = value as? any Sequence else {
                throw StrataError(.unsupportedPredicate, "\(node) has a value of an unexpected type")
            }
            var terms: [SQLTerm] = []
            for element in elements.predicateElements {
                terms.append(try self.condition(with(variable, boundTo: .constant(element), compile: test), in: node))
            }
            guard var result = terms.first else { return .scalar(all ? .trueValue : .falseValue) }
            for term in terms.dropFirst() {
                result = all ? .binary(result, "AND", term, .and) : .binary(result, "OR", term, .or)
            }
            return .scalar(result)
        case .scalar, .object, .null:
            throw StrataError(
                .unsupportedPredicate,
                "\(node) cannot be translated to SQL: it needs a captured collection or a to-many relationship; stored collections are JSON")
        }
    }
}

private extension Sequence {
    var predicateElements: [Any] { map { $0 as Any } }
}

// MARK: - Ranges

/// A range node (`a..<b`, `a...b`) that `RangeExpressionContains` reads as bounds.
protocol SQLRangeExpression {
    func compileBounds(_ compilation: inout PredicateCompilation) throws(StrataError) -> SQLRangeBounds
}

/// The bounds of a range: absent for one-sided ranges.
struct SQLRangeBounds {
    var lower: SQLTerm?
    var upper: SQLTerm?
    var includesUpper: Bool
}

extension PredicateExpressions.Range: SQLPredicateExpression, SQLRangeExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        throw StrataError(.unsupportedPredicate, "a range can only be used with contains (\(Self.self))")
    }

    func compileBounds(_ compilation: inout PredicateCompilation) throws(StrataError) -> SQLRangeBounds {
        let low = try compilation.scalar(lower.compileSQL(&compilation), in: Self.self)
        let high = try compilation.scalar(upper.compileSQL(&compilation), in: Self.self)
        return SQLRangeBounds(lower: low, upper: high, includesUpper: false)
    }
}

extension PredicateExpressions.ClosedRange: SQLPredicateExpression, SQLRangeExpression
where LHS: SQLPredicateExpression, RHS: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        throw StrataError(.unsupportedPredicate, "a range can only be used with contains (\(Self.self))")
    }

    func compileBounds(_ compilation: inout PredicateCompilation) throws(StrataError) -> SQLRangeBounds {
        let low = try compilation.scalar(lower.compileSQL(&compilation), in: Self.self)
        let high = try compilation.scalar(upper.compileSQL(&compilation), in: Self.self)
        return SQLRangeBounds(lower: low, upper: high, includesUpper: true)
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

extension PredicateExpressions.RangeExpressionContains: SQLPredicateExpression
where RangeExpression: SQLPredicateExpression, Element: SQLPredicateExpression {
    func compileSQL(_ compilation: inout PredicateCompilation) throws(StrataError) -> PredicateOperand {
        try compilation.requireOrdering(of: Element.Output.self, in: Self.self)
        let bounds: SQLRangeBounds
        if let node = range as? any SQLRangeExpression {
            bounds = try node.compileBounds(&compilation)
        } else if case .constant(let value) = try range.compileSQL(&compilation),
                  let captured = value as? any PredicateRangeValue {
            let parts = captured.predicateBounds
            bounds = SQLRangeBounds(
                lower: try parts.lower.map { value throws(StrataError) in .bound(try storedValue(forPredicateValue: value)) },
                upper: try parts.upper.map { value throws(StrataError) in .bound(try storedValue(forPredicateValue: value)) },
                includesUpper: parts.includesUpper)
        } else {
            throw StrataError(.unsupportedPredicate, "\(Self.self) cannot be translated to SQL")
        }
        let subject = try compilation.scalar(element.compileSQL(&compilation), in: Self.self)
        switch (bounds.lower, bounds.upper) {
        case (let lower?, let upper?) where bounds.includesUpper:
            let fragment = subject.operand(atLeast: .additive) + SQLFragment(" BETWEEN ")
                + lower.operand(atLeast: .additive) + SQLFragment(" AND ") + upper.operand(atLeast: .additive)
            return .scalar(SQLTerm(fragment, .equality))
        case (let lower?, let upper?):
            let from = SQLTerm.binary(subject, ">=", lower, .relational)
            return .scalar(.binary(from, "AND", .binary(subject, "<", upper, .relational), .and))
        case (let lower?, nil):
            return .scalar(.binary(subject, ">=", lower, .relational))
        case (nil, let upper?):
            return .scalar(.binary(subject, bounds.includesUpper ? "<=" : "<", upper, .relational))
        case (nil, nil):
            return .scalar(.trueValue)
        }
    }
}
