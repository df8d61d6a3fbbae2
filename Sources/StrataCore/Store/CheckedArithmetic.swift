import Foundation

/// Swift's arithmetic for store queries, without Swift's traps: integer
/// results that overflow their Swift type, and integer division or remainder
/// by zero, fail the whole query with `.unsupportedPredicate` (where Swift
/// would stop the process); real arithmetic follows IEEE 754, so dividing by
/// zero gives an infinity, but a result that is not a number (NaN), which no
/// store can hold, fails the query too. Every store and the evaluation of unsaved objects
/// apply these rules, so a predicate means the same saved or not.
///
/// ```swift
/// // #Predicate<Book> { $0.year * 1_000_000_000_000 > 0 } on a book of 2024:
/// CheckedArithmetic.apply(.multiply, .integer(2024), .integer(1_000_000_000_000), domain: .integer(.min ... .max))
/// // .failure(CheckedArithmetic.overflow)
/// ```
package enum CheckedArithmetic {
    /// The numbers an arithmetic expression computes with: the range of its
    /// Swift integer type, or real numbers.
    package enum Domain: Sendable, Hashable {
        case integer(ClosedRange<Int64>)
        /// `Double`.
        case real
        /// `Float`: computed in `Double` and rounded to `Float`, which gives
        /// exactly Swift's `Float` result for `+`, `-`, `*` and `/`.
        case float

        /// The domain of a Swift numeric type, or nil for one stores cannot compute with.
        package init?(_ type: Any.Type) {
            switch type {
            case is Int.Type, is Int64.Type: self = .integer(.min ... .max)
            case is Int32.Type: self = .integer(Int64(Int32.min) ... Int64(Int32.max))
            case is Int16.Type: self = .integer(Int64(Int16.min) ... Int64(Int16.max))
            case is Int8.Type: self = .integer(Int64(Int8.min) ... Int64(Int8.max))
            case is UInt.Type, is UInt64.Type: self = .integer(0 ... .max)
            case is UInt32.Type: self = .integer(0 ... Int64(UInt32.max))
            case is UInt16.Type: self = .integer(0 ... Int64(UInt16.max))
            case is UInt8.Type: self = .integer(0 ... Int64(UInt8.max))
            case is Double.Type: self = .real
            case is Float.Type: self = .float
            default: return nil
            }
        }
    }

    /// The name of the SQL function that computes checked arithmetic:
    /// `strata_arithmetic(op, lhs, rhs, min, max)`, with NULL bounds for
    /// `Double` and the text `'float'` as `min` for `Float`.
    package static let functionName = "strata_arithmetic"
    package static let overflowMessage = "the predicate's integer arithmetic overflows its type"
    package static let divisionByZeroMessage = "the predicate divides an integer by zero"
    package static let notANumberMessage = "the predicate's real arithmetic has no numeric result (NaN)"

    package static var overflow: StrataError {
        StrataError(.unsupportedPredicate, overflowMessage + " for a row, as it would stop a Swift program; widen the type or test the operands first")
    }

    package static var divisionByZero: StrataError {
        StrataError(.unsupportedPredicate, divisionByZeroMessage + " for a row, as it would stop a Swift program; test the divisor first")
    }

    /// A real result that is not a number: stores cannot hold one, so no
    /// evaluator goes on with it.
    package static var notANumber: StrataError {
        StrataError(.unsupportedPredicate, notANumberMessage + " for a row (such as 0.0 / 0.0 or infinity minus infinity); test the operands first")
    }

    /// The error for a failure message a store reports, if it is one of these.
    package static func failure(forMessage message: String) -> StrataError? {
        if message.contains(overflowMessage) { return overflow }
        if message.contains(divisionByZeroMessage) { return divisionByZero }
        if message.contains(notANumberMessage) { return notANumber }
        return nil
    }

    /// `lhs op rhs` in `domain`. NULL when either side is NULL.
    package static func apply(
        _ op: ArithmeticOperator, _ lhs: StoredValue, _ rhs: StoredValue, domain: Domain
    ) -> Result<StoredValue, StrataError> {
        if lhs.isNull || rhs.isNull { return .success(.null) }
        if case .integer(let range) = domain, case .integer(let a) = lhs, case .integer(let b) = rhs {
            return integer(op, a, b, range: range)
        }
        // Reals, or integers another program stored as something else: IEEE 754.
        guard let a = number(lhs), let b = number(rhs) else { return .success(.null) }
        var result: Double = switch op {
        case .add: a + b
        case .subtract: a - b
        case .multiply: a * b
        case .divide: a / b
        case .remainder: a.truncatingRemainder(dividingBy: b)
        }
        if domain == .float { result = Double(Float(result)) }
        return result.isNaN ? .failure(notANumber) : .success(.real(result))
    }

    private static func integer(_ op: ArithmeticOperator, _ a: Int64, _ b: Int64, range: ClosedRange<Int64>) -> Result<StoredValue, StrataError> {
        let (result, overflow): (Int64, Bool)
        switch op {
        case .add: (result, overflow) = a.addingReportingOverflow(b)
        case .subtract: (result, overflow) = a.subtractingReportingOverflow(b)
        case .multiply: (result, overflow) = a.multipliedReportingOverflow(by: b)
        case .divide:
            guard b != 0 else { return .failure(divisionByZero) }
            (result, overflow) = a.dividedReportingOverflow(by: b)
        case .remainder:
            guard b != 0 else { return .failure(divisionByZero) }
            (result, overflow) = a.remainderReportingOverflow(dividingBy: b)
        }
        guard !overflow, range.contains(result) else { return .failure(Self.overflow) }
        return .success(.integer(result))
    }

    /// A stored value as a number, as SQLite reads one in arithmetic; nil for NULL and blobs.
    package static func number(_ value: StoredValue) -> Double? {
        switch value {
        case .integer(let number): Double(number)
        case .real(let number): number
        case .text(let text): Double(text) ?? 0
        case .null, .blob: nil
        }
    }
}
