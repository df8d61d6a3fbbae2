import Foundation
import StrataCore
import GRDB

/// Grouped results in one statement: the plan's rows (its page, when it has
/// one) as a subquery of key and argument values, grouped outside it:
/// `SELECT k0, COUNT(*) FROM (SELECT … AS k0 FROM … WHERE …) GROUP BY k0 HAVING … ORDER BY … LIMIT …`.
extension SQLiteStore {
    func fetchGroups(_ plan: FetchPlan, _ query: GroupQuery) throws(StrataError) -> [[StoredValue]] {
        let select = select(plan)
        var renderer = SQLiteQueryRenderer(schema: schema, layout: layout)
        // The inner columns: the keys, then each function's argument.
        var columns: [String] = []
        var arguments: [StoredValue] = []
        for (index, key) in query.keys.enumerated() {
            let fragment = renderer.value(key.value).fragment
            columns.append("\(fragment.sql) AS k\(index)")
            arguments += fragment.arguments
        }
        for (index, function) in query.aggregates.enumerated() {
            guard let value = function.value else { continue }
            let fragment = renderer.value(value).fragment
            columns.append("\(fragment.sql) AS a\(index)")
            arguments += fragment.arguments
        }
        let page = select.unorderedSQL(columns: columns.isEmpty ? "NULL" : columns.joined(separator: ", "))
        arguments += page.arguments

        let results = query.keys.indices.map { "k\($0)" } + query.aggregates.indices.map { call(query, $0) }
        var sql = "SELECT \(results.joined(separator: ", ")) FROM (\(page.sql))"
        if !query.keys.isEmpty {
            sql += " GROUP BY " + query.keys.enumerated().map { index, key in "k\(index)" + collate(key.collation) }
                .joined(separator: ", ")
        }
        if let having = query.having {
            sql += " HAVING " + render(having, query, &arguments)
        }
        let order = query.completeOrder.map { term in
            "\(self.term(term.term, query))\(collate(query.collation(of: term.term))) \(term.ascending ? "ASC" : "DESC")"
        }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if query.limit != nil || query.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments += [.integer(Int64(query.limit ?? -1)), .integer(Int64(query.offset))]
        }

        if let check = select.checkSQL { _ = try fetchIntegers(sql: check, arguments: select.whereArguments) }
        do {
            return try valueRows(sql: sql, arguments: arguments, columns: results.count)
        } catch let error as DatabaseError where error.message?.contains("integer overflow") == true {
            throw CheckedArithmetic.overflow
        } catch {
            throw Self.translate(error)
        }
    }

    private func collate(_ collation: Collation) -> String {
        collation == .binary ? "" : " COLLATE \(collation.sqlName)"
    }

    /// The function call of one aggregate over its inner column.
    private func call(_ query: GroupQuery, _ index: Int) -> String {
        let function = query.aggregates[index]
        let argument = "a\(index)" + collate(function.collation)
        return switch function.function {
        case .count: "COUNT(*)"
        case .countDistinct: "COUNT(DISTINCT \(argument))"
        case .sum: "SUM(\(argument))"
        case .minimum: "MIN(\(argument))"
        case .maximum: "MAX(\(argument))"
        case .average: "AVG(\(argument))"
        }
    }

    private func term(_ term: GroupQuery.Term, _ query: GroupQuery) -> String {
        switch term {
        case .key(let index): "k\(index)"
        case .aggregate(let index): call(query, index)
        }
    }

    private func render(_ condition: GroupQuery.Condition, _ query: GroupQuery, _ arguments: inout [StoredValue]) -> String {
        switch condition {
        case .compare(let term, let comparison, let value):
            arguments.append(value)
            return "(\(self.term(term, query))\(collate(query.collation(of: term))) \(comparison.rawValue) ?)"
        case .and(let lhs, let rhs):
            return "(\(render(lhs, query, &arguments)) AND \(render(rhs, query, &arguments)))"
        case .or(let lhs, let rhs):
            return "(\(render(lhs, query, &arguments)) OR \(render(rhs, query, &arguments)))"
        case .not(let inner):
            return "(NOT \(render(inner, query, &arguments)))"
        }
    }
}
