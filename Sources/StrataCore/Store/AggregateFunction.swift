import Foundation

/// A function that reduces the values of a fetch's matches to one: what
/// ``PersistentStore/aggregate(_:_:of:collation:)`` computes in one statement,
/// with SQL's meaning (NULLs are skipped; an empty sum, minimum or average is
/// NULL) and Swift's checks (an integer sum that overflows fails the query).
///
/// ```swift
/// let total = try store.aggregate(plan, .sum, of: .property(.row(0, entity: book), pages), collation: .binary)
/// ```
package enum AggregateFunction: String, Sendable, Hashable {
    case count, countDistinct, sum, minimum, maximum, average

    /// The function over values already read, as a store without SQL computes it.
    package func compute(_ values: [StoredValue], collation: Collation) -> Result<StoredValue, StrataError> {
        let present = values.filter { !$0.isNull }
        switch self {
        case .count:
            return .success(.integer(Int64(values.count)))
        case .countDistinct:
            var distinct: [StoredValue] = []
            for value in present where !distinct.contains(where: {
                StoredValueOrder.compare($0, value, collation: collation) == .orderedSame
            }) {
                distinct.append(value)
            }
            return .success(.integer(Int64(distinct.count)))
        case .minimum, .maximum:
            let wanted: ComparisonResult = self == .minimum ? .orderedAscending : .orderedDescending
            let best = present.reduce(nil as StoredValue?) { best, value in
                guard let best else { return value }
                return StoredValueOrder.compare(value, best, collation: collation) == wanted ? value : best
            }
            return .success(best ?? .null)
        case .sum:
            guard !present.isEmpty else { return .success(.null) }
            if present.allSatisfy({ if case .integer = $0 { true } else { false } }) {
                var total: Int64 = 0
                for case .integer(let value) in present {
                    let (sum, overflow) = total.addingReportingOverflow(value)
                    if overflow { return .failure(CheckedArithmetic.overflow) }
                    total = sum
                }
                return .success(.integer(total))
            }
            return .success(.real(present.reduce(0) { $0 + (CheckedArithmetic.number($1) ?? 0) }))
        case .average:
            guard !present.isEmpty else { return .success(.null) }
            return .success(.real(present.reduce(0) { $0 + (CheckedArithmetic.number($1) ?? 0) } / Double(present.count)))
        }
    }
}
