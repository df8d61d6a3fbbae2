import Foundation

/// A grouped read in a store's terms: the values rows are grouped by, the
/// functions computed per group, a condition on them (SQL's `HAVING`), the
/// groups' order and page.
///
/// A store selects, for each group, the key values followed by the
/// aggregates' results, in this order. ``compute(_:)`` is the meaning every
/// store shares: a store without SQL, and a context over unsaved objects,
/// call it with the values of each matching row.
///
/// ```swift
/// let query = GroupQuery(
///     keys: [GroupQuery.Key(value: .property(.row(0, entity: book), year), collation: .binary)],
///     aggregates: [GroupQuery.Function(function: .count, value: nil, collation: .binary)],
///     having: .compare(.aggregate(0), .greaterThan, .integer(1)), order: [], limit: nil, offset: 0)
/// let rows = try store.fetchGroups(plan, query)   // [[year, count]]
/// ```
package struct GroupQuery: Sendable, Hashable {
    /// A value rows are grouped by; values are equal when they compare same by `collation`.
    package struct Key: Sendable, Hashable {
        package var value: StoreExpression
        package var collation: Collation
    }

    /// One function computed for each group (`value` is nil for `.count`).
    package struct Function: Sendable, Hashable {
        package var function: AggregateFunction
        package var value: StoreExpression?
        package var collation: Collation
    }

    /// A key or a function's result of one group.
    package enum Term: Sendable, Hashable {
        case key(Int)
        case aggregate(Int)
    }

    /// How a group's term compares with a value.
    package enum Comparison: String, Sendable, Hashable {
        case equal = "=", notEqual = "<>", lessThan = "<", lessThanOrEqual = "<=", greaterThan = ">", greaterThanOrEqual = ">="
    }

    /// A condition on a group's terms. A comparison with a `nil` term is
    /// unknown, as in SQL, and an unknown condition keeps no group.
    package indirect enum Condition: Sendable, Hashable {
        case compare(Term, Comparison, StoredValue)
        case and(Condition, Condition)
        case or(Condition, Condition)
        case not(Condition)
    }

    /// One key of the groups' order.
    package struct SortTerm: Sendable, Hashable {
        package var term: Term
        package var ascending: Bool
    }

    package var keys: [Key]
    package var aggregates: [Function]
    package var having: Condition?
    /// The groups' order; ties fall back to the keys, ascending.
    package var order: [SortTerm]
    package var limit: Int?
    package var offset: Int

    /// The collation a term compares by.
    package func collation(of term: Term) -> Collation {
        switch term {
        case .key(let index): keys[index].collation
        case .aggregate(let index): aggregates[index].collation
        }
    }

    /// The order every store gives: the requested terms, then each key ascending.
    package var completeOrder: [SortTerm] {
        order + keys.indices.map { SortTerm(term: .key($0), ascending: true) }
    }

    /// The groups of rows, each row given as its key values followed by the
    /// values its aggregates read (anything for `.count`): the keys and
    /// results of the groups the condition keeps, in order and paged.
    package func compute(_ rows: [[StoredValue]]) -> Result<[[StoredValue]], StrataError> {
        let keyCount = keys.count
        func compareKeys(_ a: [StoredValue], _ b: [StoredValue]) -> ComparisonResult {
            for (index, key) in keys.enumerated() {
                let order = StoredValueOrder.compare(a[index], b[index], collation: key.collation)
                if order != .orderedSame { return order }
            }
            return .orderedSame
        }
        // Sorting by the keys brings each group's rows together.
        let sorted = rows.sorted { compareKeys($0, $1) == .orderedAscending }
        // Without keys, all rows (even none) are one group, as in SQL.
        var ranges: [Range<Int>] = keyCount == 0 ? [sorted.indices] : []
        var start = sorted.startIndex
        while keyCount > 0, start < sorted.endIndex {
            var end = start + 1
            while end < sorted.endIndex, compareKeys(sorted[start], sorted[end]) == .orderedSame { end += 1 }
            ranges.append(start..<end)
            start = end
        }
        var groups: [[StoredValue]] = []
        for range in ranges {
            var group = keyCount == 0 ? [] : Array(sorted[range.lowerBound].prefix(keyCount))
            for (index, aggregate) in aggregates.enumerated() {
                let values = sorted[range].map { $0[keyCount + index] }
                switch aggregate.function.compute(values, collation: aggregate.collation) {
                case .success(let value): group.append(value)
                case .failure(let error): return .failure(error)
                }
            }
            if having.map({ evaluate($0, group) == true }) ?? true { groups.append(group) }
        }
        let ordered = groups.sorted { a, b in
            for term in completeOrder {
                let order = StoredValueOrder.compare(value(term.term, a), value(term.term, b), collation: collation(of: term.term))
                if order != .orderedSame { return term.ascending ? order == .orderedAscending : order == .orderedDescending }
            }
            return false
        }
        let page = ordered.dropFirst(offset)
        return .success(Array(limit.map { page.prefix($0) } ?? page))
    }

    private func value(_ term: Term, _ group: [StoredValue]) -> StoredValue {
        switch term {
        case .key(let index): group[index]
        case .aggregate(let index): group[keys.count + index]
        }
    }

    /// SQL's three-valued meaning: nil is unknown.
    private func evaluate(_ condition: Condition, _ group: [StoredValue]) -> Bool? {
        switch condition {
        case .compare(let term, let comparison, let operand):
            let value = value(term, group)
            guard !value.isNull, !operand.isNull else { return nil }
            let order = StoredValueOrder.compare(value, operand, collation: collation(of: term))
            return switch comparison {
            case .equal: order == .orderedSame
            case .notEqual: order != .orderedSame
            case .lessThan: order == .orderedAscending
            case .lessThanOrEqual: order != .orderedDescending
            case .greaterThan: order == .orderedDescending
            case .greaterThanOrEqual: order != .orderedAscending
            }
        case .and(let lhs, let rhs):
            let (a, b) = (evaluate(lhs, group), evaluate(rhs, group))
            if a == false || b == false { return false }
            return a == nil || b == nil ? nil : true
        case .or(let lhs, let rhs):
            let (a, b) = (evaluate(lhs, group), evaluate(rhs, group))
            if a == true || b == true { return true }
            return a == nil || b == nil ? nil : false
        case .not(let inner):
            return evaluate(inner, group).map(!)
        }
    }
}
