import Foundation
import StrataCore
import GRDB

/// ``CheckedArithmetic`` as a SQL function, so SQLite computes a predicate's
/// arithmetic with Swift's meaning: `strata_arithmetic(op, lhs, rhs, min, max)`,
/// with NULL bounds for `Double` and `'float'` as `min` for `Float`. A failure raises an error that fails the
/// statement, and ``SQLiteStore/translate(_:whileOpening:)`` turns it back into
/// the `StrataError` the other stores throw.
///
/// ```sql
/// SELECT … WHERE strata_arithmetic('*', "year", ?, -9223372036854775808, 9223372036854775807) > ?
/// ```
enum CheckedArithmeticFunction {
    /// Not declared pure: SQLite would compute a call on constants once, before
    /// reading any row, and fail a query over no rows that Swift never fails.
    static let function = DatabaseFunction(CheckedArithmetic.functionName, argumentCount: 5, pure: false) { values in
        guard let name = String.fromDatabaseValue(values[0]), let op = ArithmeticOperator(rawValue: name) else {
            throw DatabaseError(message: "\(CheckedArithmetic.functionName) has no operator \(values[0])")
        }
        let domain: CheckedArithmetic.Domain
        if let low = Int64.fromDatabaseValue(values[3]), let high = Int64.fromDatabaseValue(values[4]), low <= high {
            domain = .integer(low ... high)
        } else if String.fromDatabaseValue(values[3]) == "float" {
            domain = .float
        } else {
            domain = .real
        }
        switch CheckedArithmetic.apply(op, StoredValue(values[1]), StoredValue(values[2]), domain: domain) {
        case .success(let result): return result.databaseValue
        case .failure(let error): throw DatabaseError(message: error.message)
        }
    }
}

extension StoredValue {
    fileprivate init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }

    fileprivate var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let data): data.databaseValue
        }
    }
}
