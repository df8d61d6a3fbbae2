import Foundation
import PostgresNIO
import StrataCore

/// Aggregates and groups in one statement each, over the plan's rows (its
/// page, when it has one) as a subquery:
/// `SELECT k0, COUNT(*) FROM (SELECT … AS k0 FROM … WHERE …) AS page GROUP BY k0 HAVING … ORDER BY … LIMIT … OFFSET …`.
///
/// The meaning is the one every store shares (``GroupQuery``, `AggregateFunction`):
/// - an integer sum is exact (PostgreSQL sums `bigint` as `numeric`) and one
///   that leaves `Int64` fails the query, as Swift's arithmetic would, even in
///   a group that `HAVING` or the page leaves out (`strata_sum`);
/// - `Decimal` text compares, sums and averages as `numeric`, and a minimum or
///   maximum returns the stored text of the extreme value;
/// - folded text compares by its hidden folded column: texts that fold alike
///   are one value, and a group of them shows the first by code point;
/// - nil sorts first ascending and last descending, as in the other stores.
extension PostgresStore {
    func aggregate(
        _ plan: FetchPlan, _ function: AggregateFunction, of value: StoreExpression?, collation: Collation
    ) throws(StrataError) -> StoredValue {
        guard let value else { return .integer(Int64(try count(plan))) }
        var renderer = PostgresQueryRenderer(layout: layout)
        var columns = ["\(try renderer.value(value).sql) AS a0"]
        if collation == .folded { columns.append("\(try renderer.folded(value).sql) AS f0") }
        let select = try select(plan, leading: renderer.arguments)
        if select.checksEveryRow { try checkEveryRow(try self.select(plan)) }
        let page = select.unorderedSQL(columns: columns.joined(separator: ", "))
        let call = self.call(function, collation: collation, argument: "a0", folded: "f0")
        let rows = try pool.withSession { session throws(StrataError) in
            try session.rows("SELECT \(call) FROM (\(page.sql)) AS page", page.arguments)
        }
        guard let cell = rows.first?.first(where: { _ in true }) else { return .null }
        return try Self.result(cell, of: function, collation: collation)
    }

    func fetchGroups(_ plan: FetchPlan, _ query: GroupQuery) throws(StrataError) -> [[StoredValue]] {
        var renderer = PostgresQueryRenderer(layout: layout)
        // The inner columns: each key and its folded form, each function's argument and its folded form.
        var columns: [String] = []
        for (index, key) in query.keys.enumerated() {
            columns.append("\(try renderer.value(key.value).sql) AS k\(index)")
            if key.collation == .folded { columns.append("\(try renderer.folded(key.value).sql) AS kf\(index)") }
        }
        for (index, function) in query.aggregates.enumerated() {
            guard let value = function.value else { continue }
            columns.append("\(try renderer.value(value).sql) AS a\(index)")
            if function.collation == .folded { columns.append("\(try renderer.folded(value).sql) AS f\(index)") }
        }
        let select = try select(plan, leading: renderer.arguments)
        if select.checksEveryRow { try checkEveryRow(try self.select(plan)) }
        let page = select.unorderedSQL(columns: columns.isEmpty ? "1 AS unused" : columns.joined(separator: ", "))
        var arguments = page.arguments

        let calls = query.aggregates.indices.map { index in
            call(query.aggregates[index].function, collation: query.aggregates[index].collation, argument: "a\(index)", folded: "f\(index)")
        }
        // A key by collation names its group; any of the group's texts shows it.
        let keys = query.keys.enumerated().map { index, key in key.collation == .binary ? "k\(index)" : "MIN(k\(index))" }
        var sql = "SELECT \((keys + calls).joined(separator: ", ")) FROM (\(page.sql)) AS page"
        let grouping = query.keys.enumerated().flatMap { index, key -> [String] in
            switch key.collation {
            case .binary: ["k\(index)"]
            case .folded: ["kf\(index)"]
            case .decimal: ["k\(index)::numeric"]
            }
        }
        if !grouping.isEmpty { sql += " GROUP BY " + grouping.joined(separator: ", ") }
        var parameters = PostgresParameters(next: arguments.count + 1)
        // Every group's integer sums are checked, as the other stores check
        // them while grouping, even where HAVING or the page leaves it out:
        // PostgreSQL computes the select list only for the groups it returns.
        // A CASE tests the sums first (conditions may run in any order).
        let sums = query.aggregates.indices.filter { query.aggregates[$0].function == .sum && query.aggregates[$0].collation != .decimal }
        let having = query.having.map { render($0, query, calls: calls, &parameters) }
        if !sums.isEmpty {
            let checked = sums.map { "(\(calls[$0]) IS NOT DISTINCT FROM \(calls[$0]))" }.joined(separator: " AND ")
            sql += " HAVING CASE WHEN \(checked) THEN \(having ?? "TRUE") ELSE FALSE END"
        } else if let having {
            sql += " HAVING " + having
        }
        arguments += parameters.values
        let order = query.completeOrder.flatMap { term in
            sortKeys(term.term, query, calls: calls).map { "\($0) \(term.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")" }
        }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        if query.offset > 0 { sql += " OFFSET \(query.offset)" }

        let rows = try pool.withSession { session throws(StrataError) in try session.rows(sql, arguments) }
        var groups: [[StoredValue]] = []
        groups.reserveCapacity(rows.count)
        for row in rows {
            var values: [StoredValue] = []
            for (index, cell) in row.enumerated() {
                if index < query.keys.count {
                    values.append(try PostgresSession.value(cell))
                } else {
                    let function = query.aggregates[index - query.keys.count]
                    values.append(try Self.result(cell, of: function.function, collation: function.collation))
                }
            }
            groups.append(values)
        }
        return groups
    }

    /// One function over the inner column `argument` (and its folded form `folded`).
    private func call(_ function: AggregateFunction, collation: Collation, argument: String, folded: String) -> String {
        switch (function, collation) {
        case (.count, _): "COUNT(*)"
        case (.countDistinct, .decimal): "COUNT(DISTINCT \(argument)::numeric)"
        case (.countDistinct, .folded): "COUNT(DISTINCT \(folded))"
        case (.countDistinct, _): "COUNT(DISTINCT \(argument))"
        case (.sum, .decimal): "SUM(\(argument)::numeric)::text"
        case (.sum, _): "\(PostgresFunctions.sum(namespace: layout.namespace))(SUM(\(argument)))"
        case (.average, .decimal): "AVG(\(argument)::numeric)::float8"
        case (.average, _): "AVG(\(argument))::float8"
        case (.minimum, .binary): "MIN(\(argument))"
        case (.maximum, .binary): "MAX(\(argument))"
        // The stored text of the extreme value, by the collation's order.
        case (.minimum, .decimal): Self.extreme(argument, by: "\(argument)::numeric ASC, \(argument) ASC")
        case (.maximum, .decimal): Self.extreme(argument, by: "\(argument)::numeric DESC, \(argument) DESC")
        case (.minimum, .folded): Self.extreme(argument, by: "\(folded) ASC, \(argument) ASC")
        case (.maximum, .folded): Self.extreme(argument, by: "\(folded) DESC, \(argument) DESC")
        }
    }

    private static func extreme(_ argument: String, by order: String) -> String {
        "(array_agg(\(argument) ORDER BY \(order)) FILTER (WHERE \(argument) IS NOT NULL))[1]"
    }

    /// A function's result as a stored value; a `numeric` integer sum must fit `Int64`.
    private static func result(_ cell: PostgresCell, of function: AggregateFunction, collation: Collation) throws(StrataError) -> StoredValue {
        let value = try PostgresSession.value(cell)
        guard function == .sum, collation != .decimal, cell.dataType == .numeric, case .text(let text) = value else { return value }
        guard let integer = Int64(text) else { throw CheckedArithmetic.overflow }
        return .integer(integer)
    }

    /// What a group's term sorts by: the value, or for folded text its folded
    /// form then the value, or for decimal text its number.
    private func sortKeys(_ term: GroupQuery.Term, _ query: GroupQuery, calls: [String]) -> [String] {
        switch term {
        case .key(let index):
            switch query.keys[index].collation {
            case .binary: return ["k\(index)"]
            case .folded: return ["kf\(index)"]
            case .decimal: return ["k\(index)::numeric"]
            }
        case .aggregate(let index):
            let function = query.aggregates[index]
            switch (function.function, function.collation) {
            case (.minimum, .folded), (.maximum, .folded):
                let descending = function.function == .maximum ? " DESC" : ""
                return [Self.extreme("f\(index)", by: "f\(index)\(descending), a\(index)\(descending)")]
            case (.minimum, .decimal), (.maximum, .decimal): return ["(\(calls[index]))::numeric"]
            default: return [calls[index]]
            }
        }
    }

    /// A `HAVING` condition, comparing each term by its collation.
    private func render(
        _ condition: GroupQuery.Condition, _ query: GroupQuery, calls: [String], _ parameters: inout PostgresParameters
    ) -> String {
        switch condition {
        case .compare(let term, let comparison, let value):
            let keys = sortKeys(term, query, calls: calls)
            // Folded text compares by its folded form alone, as the collation does.
            let bound = parameters.bind(query.collation(of: term) == .folded ? PostgresLayout.folded(value) : value)
            let right = query.collation(of: term) == .decimal ? "\(bound)::numeric" : bound
            return "(\(keys[0]) \(comparison.rawValue) \(right))"
        case .and(let lhs, let rhs):
            return "(\(render(lhs, query, calls: calls, &parameters)) AND \(render(rhs, query, calls: calls, &parameters)))"
        case .or(let lhs, let rhs):
            return "(\(render(lhs, query, calls: calls, &parameters)) OR \(render(rhs, query, calls: calls, &parameters)))"
        case .not(let inner):
            return "(NOT \(render(inner, query, calls: calls, &parameters)))"
        }
    }
}

/// Values bound after others, numbered on from `next`.
private struct PostgresParameters {
    var next: Int
    var values: [StoredValue] = []

    mutating func bind(_ value: StoredValue) -> String {
        values.append(value)
        defer { next += 1 }
        return "$\(next)"
    }
}
