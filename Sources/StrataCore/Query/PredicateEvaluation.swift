import Foundation

/// Evaluates a predicate for objects not yet saved with the meaning stores
/// give it for stored rows: Foundation's evaluation, except that integer
/// arithmetic that overflows its type, integer division by zero and a range
/// whose bounds are reversed fail or match as ``CheckedArithmetic`` and the
/// stores say, where Swift would stop the process.
///
/// ``StorePredicateExpression`` refines it, so every expression the compiler
/// accepts can be evaluated this way.
///
/// ```swift
/// let matches = try PredicateEvaluation.evaluate(#Predicate<Book> { $0.year * 1_000 > 0 }, for: book)
/// ```
enum PredicateEvaluation {
    /// Whether `object` meets `predicate`; throws a `StrataError` where a store
    /// would fail the query.
    static func evaluate<T>(_ predicate: Predicate<T>, for object: T) throws -> Bool {
        guard let expression = predicate.expression as? any CheckedPredicateExpression else {
            throw StrataError(.unsupportedPredicate, "The predicate cannot be evaluated for unsaved objects")
        }
        var bindings = PredicateBindings()
        bindings[predicate.variable] = object
        guard let result = try evaluate(expression, bindings) as? Bool else {
            throw StrataError(.unsupportedPredicate, "The predicate does not evaluate to a Bool")
        }
        return result
    }

    private static func evaluate<E: CheckedPredicateExpression>(_ expression: E, _ bindings: PredicateBindings) throws -> Any {
        try expression.evaluateChecked(bindings)
    }
}

/// A predicate expression that evaluates without trapping; see ``PredicateEvaluation``.
protocol CheckedPredicateExpression: PredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output
}

// MARK: - Values

extension PredicateExpressions.Variable: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output { try evaluate(bindings) }
}

extension PredicateExpressions.Value: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output { evaluate(bindings) }
}

extension PredicateExpressions.NilLiteral: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output { try evaluate(bindings) }
}

extension PredicateExpressions.KeyPath: CheckedPredicateExpression where Root: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        try root.evaluateChecked(bindings)[keyPath: keyPath]
    }
}

// MARK: - Logic and comparison

extension PredicateExpressions.Conjunction: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        try lhs.evaluateChecked(bindings) && rhs.evaluateChecked(bindings)
    }
}

extension PredicateExpressions.Disjunction: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        try lhs.evaluateChecked(bindings) || rhs.evaluateChecked(bindings)
    }
}

extension PredicateExpressions.Negation: CheckedPredicateExpression where Wrapped: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        !(try wrapped.evaluateChecked(bindings))
    }
}

extension PredicateExpressions.Conditional: CheckedPredicateExpression
where Test: CheckedPredicateExpression, If: CheckedPredicateExpression, Else: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        try test.evaluateChecked(bindings) ? trueBranch.evaluateChecked(bindings) : falseBranch.evaluateChecked(bindings)
    }
}

extension PredicateExpressions.Equal: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        try lhs.evaluateChecked(bindings) == rhs.evaluateChecked(bindings)
    }
}

extension PredicateExpressions.NotEqual: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        try lhs.evaluateChecked(bindings) != rhs.evaluateChecked(bindings)
    }
}

extension PredicateExpressions.Comparison: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        let a = try lhs.evaluateChecked(bindings), b = try rhs.evaluateChecked(bindings)
        return switch op {
        case .lessThan: a < b
        case .lessThanOrEqual: a <= b
        case .greaterThan: a > b
        case .greaterThanOrEqual: a >= b
        }
    }
}

// MARK: - Arithmetic

extension PredicateExpressions.Arithmetic: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        let a = try lhs.evaluateChecked(bindings), b = try rhs.evaluateChecked(bindings)
        let checked: ArithmeticOperator = switch op {
        case .add: .add
        case .subtract: .subtract
        case .multiply: .multiply
        }
        if let result = try SwiftIntegerArithmetic.apply(checked, a, b) { return result }
        let result: Output = switch op {
        case .add: a + b
        case .subtract: a - b
        case .multiply: a * b
        }
        return try notANumberFails(result)
    }
}

/// A real result that is not a number fails, as in every store (which cannot hold one).
private func notANumberFails<T>(_ value: T) throws -> T {
    if let real = value as? any FloatingPoint, real.isNaN { throw CheckedArithmetic.notANumber }
    return value
}

extension PredicateExpressions.IntDivision: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        let a = try lhs.evaluateChecked(bindings), b = try rhs.evaluateChecked(bindings)
        if let result = try SwiftIntegerArithmetic.apply(.divide, a, b) { return result }
        guard b != 0 else { throw CheckedArithmetic.divisionByZero }
        return a / b
    }
}

extension PredicateExpressions.IntRemainder: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        let a = try lhs.evaluateChecked(bindings), b = try rhs.evaluateChecked(bindings)
        if let result = try SwiftIntegerArithmetic.apply(.remainder, a, b) { return result }
        guard b != 0 else { throw CheckedArithmetic.divisionByZero }
        return a % b
    }
}

extension PredicateExpressions.FloatDivision: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        try notANumberFails(lhs.evaluateChecked(bindings) / rhs.evaluateChecked(bindings))
    }
}

extension PredicateExpressions.UnaryMinus: CheckedPredicateExpression where Wrapped: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        let value = try wrapped.evaluateChecked(bindings)
        if let result = try SwiftIntegerArithmetic.apply(.subtract, Output.zero, value) { return result }
        return -value
    }
}

/// Integer arithmetic on a Swift integer type, with overflow and division by
/// zero reported as the stores report them.
private enum SwiftIntegerArithmetic {
    /// The result, or nil when `T` is not a fixed-width integer.
    static func apply<T>(_ op: ArithmeticOperator, _ a: T, _ b: T) throws -> T? {
        guard let a = a as? any FixedWidthInteger else { return nil }
        return try apply(op, a, b as Any) as? T
    }

    private static func apply<I: FixedWidthInteger>(_ op: ArithmeticOperator, _ a: I, _ other: Any) throws -> I {
        guard let b = other as? I else { throw CheckedArithmetic.overflow }
        let (result, overflow): (I, Bool)
        switch op {
        case .add: (result, overflow) = a.addingReportingOverflow(b)
        case .subtract: (result, overflow) = a.subtractingReportingOverflow(b)
        case .multiply: (result, overflow) = a.multipliedReportingOverflow(by: b)
        case .divide:
            guard b != 0 else { throw CheckedArithmetic.divisionByZero }
            (result, overflow) = a.dividedReportingOverflow(by: b)
        case .remainder:
            guard b != 0 else { throw CheckedArithmetic.divisionByZero }
            (result, overflow) = a.remainderReportingOverflow(dividingBy: b)
        }
        if overflow { throw CheckedArithmetic.overflow }
        return result
    }
}

// MARK: - Optionals

extension PredicateExpressions.NilCoalesce: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        try lhs.evaluateChecked(bindings) ?? rhs.evaluateChecked(bindings)
    }
}

extension PredicateExpressions.OptionalFlatMap: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        guard let value = try wrapped.evaluateChecked(bindings) else { return nil }
        var inner = bindings
        inner[variable] = value
        // The transform gives `Result` or `Result?`.
        let result: Any = try transform.evaluateChecked(inner)
        if let some = result as? Result { return some }
        return (result as? Result?) ?? nil
    }
}

extension PredicateExpressions.ForcedUnwrap: CheckedPredicateExpression where Inner: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        guard let value = try inner.evaluateChecked(bindings) else { throw UnwrapFunction.failure }
        return value
    }
}

// MARK: - Collections and text

extension PredicateExpressions.SequenceStartsWith: CheckedPredicateExpression
where Base: CheckedPredicateExpression, Prefix: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        let sequence = try base.evaluateChecked(bindings), start = try prefix.evaluateChecked(bindings)
        // Text by code point of its composed form, as stores hold and compare it
        // (not by grapheme cluster).
        if let text = sequence as? String, let start = start as? String {
            return CanonicalText.composed(text).unicodeScalars.starts(with: CanonicalText.composed(start).unicodeScalars)
        }
        return sequence.starts(with: start)
    }
}

extension PredicateExpressions.CollectionContainsCollection: CheckedPredicateExpression
where Base: CheckedPredicateExpression, Other: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        let collection = try base.evaluateChecked(bindings), part = try other.evaluateChecked(bindings)
        if let text = collection as? String, let part = part as? String {
            return CanonicalText.composed(text).unicodeScalars.containsScalars(CanonicalText.composed(part).unicodeScalars)
        }
        return collection.contains(part)
    }
}

#if canImport(Darwin)
extension PredicateExpressions.StringLocalizedStandardContains: CheckedPredicateExpression
where Root: CheckedPredicateExpression, Other: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        try FoldedTextContains<PredicateExpressions.Value<String>, PredicateExpressions.Value<String>>.matches(
            String(root.evaluateChecked(bindings)), String(other.evaluateChecked(bindings)))
    }
}
#endif

extension FoldedTextContains: CheckedPredicateExpression
where Root: CheckedPredicateExpression, Other: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        try Self.matches(root.evaluateChecked(bindings), other.evaluateChecked(bindings))
    }
}

extension PredicateExpressions.SequenceContains: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        try sequence.evaluateChecked(bindings).contains(element.evaluateChecked(bindings))
    }
}

extension PredicateExpressions.SequenceContainsWhere: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        var inner = bindings
        return try sequence.evaluateChecked(bindings).contains { element in
            inner[variable] = element
            return try test.evaluateChecked(inner)
        }
    }
}

extension PredicateExpressions.SequenceAllSatisfy: CheckedPredicateExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        var inner = bindings
        return try sequence.evaluateChecked(bindings).allSatisfy { element in
            inner[variable] = element
            return try test.evaluateChecked(inner)
        }
    }
}

// MARK: - Ranges

/// A range node whose bounds can be tested without building the range, which
/// traps when they are reversed; stores find nothing in such a range. As in
/// the stores, the upper bound is evaluated only for a value at or above the
/// lower one.
private protocol CheckedBoundsExpression {
    func contains(_ element: Any, _ bindings: PredicateBindings) throws -> Bool?
}

extension PredicateExpressions.Range: CheckedPredicateExpression, CheckedBoundsExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        let low = try lower.evaluateChecked(bindings), high = try upper.evaluateChecked(bindings)
        guard low <= high else { throw Self.reversed }
        return low ..< high
    }

    fileprivate func contains(_ element: Any, _ bindings: PredicateBindings) throws -> Bool? {
        guard let element = element as? LHS.Output else { return nil }
        guard try lower.evaluateChecked(bindings) <= element else { return false }
        return try element < upper.evaluateChecked(bindings)
    }
}

extension PredicateExpressions.ClosedRange: CheckedPredicateExpression, CheckedBoundsExpression
where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Output {
        let low = try lower.evaluateChecked(bindings), high = try upper.evaluateChecked(bindings)
        guard low <= high else { throw PredicateExpressions.Range<LHS, RHS>.reversed }
        return low ... high
    }

    fileprivate func contains(_ element: Any, _ bindings: PredicateBindings) throws -> Bool? {
        guard let element = element as? LHS.Output else { return nil }
        guard try lower.evaluateChecked(bindings) <= element else { return false }
        return try element <= upper.evaluateChecked(bindings)
    }
}

extension PredicateExpressions.Range where LHS: CheckedPredicateExpression, RHS: CheckedPredicateExpression {
    fileprivate static var reversed: StrataError {
        StrataError(.unsupportedPredicate, "The predicate builds a range whose lower bound is above its upper bound")
    }
}

extension PredicateExpressions.RangeExpressionContains: CheckedPredicateExpression
where RangeExpression: CheckedPredicateExpression, Element: CheckedPredicateExpression {
    func evaluateChecked(_ bindings: PredicateBindings) throws -> Bool {
        let value = try element.evaluateChecked(bindings)
        if let bounds = range as? any CheckedBoundsExpression, let found = try bounds.contains(value, bindings) {
            return found
        }
        return try range.evaluateChecked(bindings).contains(value)
    }
}
