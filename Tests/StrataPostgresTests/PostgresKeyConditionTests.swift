@testable import StrataPostgres
import Testing

/// Key lists become ranges when they are a few runs of consecutive keys.
@Suite("PostgreSQL key conditions")
struct PostgresKeyConditionTests {
    @Test
    func oneRunIsOneRange() {
        let condition = PostgresKeyCondition(keys: Array(1...100_000), firstParameter: 2)
        #expect(condition.sql == "pk BETWEEN $2 AND $3")
        #expect(condition.arguments.map(Self.integer) == [1, 100_000])
    }

    @Test
    func aFewRunsAreRangesJoinedByOr() {
        let condition = PostgresKeyCondition(keys: [1, 2, 3, 7, 8, 20], firstParameter: 1)
        #expect(condition.sql == "(pk BETWEEN $1 AND $2 OR pk BETWEEN $3 AND $4 OR pk BETWEEN $5 AND $6)")
        #expect(condition.arguments.map(Self.integer) == [1, 3, 7, 8, 20, 20])
    }

    @Test
    func moreRunsThanTheLimitAreOneArray() {
        let keys = (0..<PostgresKeyCondition.rangeLimit + 1).map { Int64($0 * 2) }
        let condition = PostgresKeyCondition(keys: keys, firstParameter: 1)
        #expect(condition.sql == "pk = ANY($1)")
        #expect(PostgresKeyCondition.runs(of: Array(keys.dropLast()), atMost: PostgresKeyCondition.rangeLimit)?.count
            == PostgresKeyCondition.rangeLimit)
    }

    @Test
    func keysAtTheEdgesOfInt64MakeRuns() {
        let keys: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
        #expect(PostgresKeyCondition.runs(of: keys, atMost: 8) == [Int64.min...(Int64.min + 1), -1...1, (Int64.max - 1)...Int64.max])
    }

    private static func integer(_ argument: PostgresArgument) -> Int64? {
        if case .value(.integer(let value)) = argument { return value }
        return nil
    }
}
