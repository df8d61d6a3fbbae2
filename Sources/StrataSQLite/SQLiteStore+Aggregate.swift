import Foundation
import StrataCore
import GRDB

/// Aggregates in one statement: `SELECT SUM(value) FROM … WHERE …`, over the
/// plan's page (a subquery) when it has one.
extension SQLiteStore {
    func aggregate(
        _ plan: FetchPlan, _ function: AggregateFunction, of value: StoreExpression?, collation: Collation
    ) throws(StrataError) -> StoredValue {
        let select = select(plan)
        var renderer = SQLiteQueryRenderer(schema: schema, layout: layout)
        let rendered = value.map { renderer.value($0).fragment }
        var argument = "v"
        if collation != .binary { argument += " COLLATE \(collation.sqlName)" }
        let call = switch function {
        case .count: "COUNT(*)"
        case .countDistinct: "COUNT(DISTINCT \(argument))"
        case .sum: "SUM(\(argument))"
        case .minimum: "MIN(\(argument))"
        case .maximum: "MAX(\(argument))"
        case .average: "AVG(\(argument))"
        }
        // The value is selected first so that its bound values come first.
        let page = select.unorderedSQL(columns: "\(rendered?.sql ?? "NULL") AS v")
        let sql = "SELECT \(call) FROM (\(page.sql))"
        let arguments = (rendered?.arguments ?? []) + page.arguments
        if let check = select.checkSQL { _ = try fetchIntegers(sql: check, arguments: select.whereArguments) }
        do {
            return try valueRows(sql: sql, arguments: arguments, columns: 1).first?.first ?? .null
        } catch let error as DatabaseError where error.message?.contains("integer overflow") == true {
            throw CheckedArithmetic.overflow
        } catch {
            throw Self.translate(error)
        }
    }
}
