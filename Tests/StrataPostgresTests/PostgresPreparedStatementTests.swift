import Foundation
import Strata
import StrataTesting
@testable import StrataPostgres
import Testing

/// One-row saves run as statements each connection prepares once.
@Suite("PostgreSQL prepared statements")
struct PostgresPreparedStatementTests {
    @Test
    func parametersAreTypedByTheirValuesAndNullsWrittenOut() {
        let values: [StoredValue] = [.integer(1), .null, .text("a"), .real(2.5), .blob(Data([1])), .null, .integer(3), .integer(4), .integer(5), .text("ten")]
        let (sql, bound) = PostgresSession.typedStatement("SET a = $2, b = $10, c = $1 WHERE d = $3 AND e = $4 AND f = $5 AND g = $6 AND '$x' = $7", values)
        #expect(sql == "SET a = NULL, b = $8::text, c = $1::int8 WHERE d = $2::text AND e = $3::float8 AND f = $4::bytea AND g = NULL AND '$x' = $5::int8")
        #expect(bound.count == 8)
        let quoted = PostgresSession.typedStatement(#"UPDATE "tenant$1"."T" SET "a$2" = $2 WHERE pk = $1 AND k = 'it''s $1'"#, [.integer(7), .null])
        #expect(quoted.sql == #"UPDATE "tenant$1"."T" SET "a$2" = NULL WHERE pk = $1::int8 AND k = 'it''s $1'"#)
        #expect(PostgresSession.typedStatement("SELECT $1, $0, $", []).sql == "SELECT $1, $0, $")
    }

    @Test(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
    func oneRowSavesOfEveryValueKindAndNullAreWrittenAsGiven() async throws {
        let (stack, id) = try await PostgresTestStack.oneStory(history: false)
        let context = stack.container.newContext()
        let story = try context.existingObject(with: id, as: PgStory.self)
        let store = try stack.store()
        var preparedAfterPass: [Int64?] = []
        // Each round writes one row; the nulls, and so the statements, change
        // between rounds and repeat in each pass.
        for _ in 1...3 {
            for round in 1...8 {
                story.title = "Round \(round)"
                story.words = Int32(round * 1_000)
                story.rating = round.isMultiple(of: 2) ? nil : Double(round) / 2
                story.cover = round.isMultiple(of: 3) ? Data([UInt8(round)]) : nil
                try context.save()
                let stored = try stack.container.perform { fresh in
                    let loaded = try fresh.existingObject(with: id, as: PgStory.self)
                    return (loaded.title, loaded.words, loaded.rating, loaded.cover)
                }
                #expect(stored.0 == "Round \(round)" && stored.1 == Int32(round * 1_000))
                #expect(stored.2 == story.rating && stored.3 == story.cover)
            }
            preparedAfterPass.append(try store.pool.withSession { session throws(StrataError) in
                try session.rows("SELECT count(*)::int8 FROM pg_prepared_statements").first?.first.flatMap { cell throws(StrataError) in
                    try PostgresSession.integer(cell)
                }
            })
        }
        #expect((preparedAfterPass[1] ?? 0) > 0)
        #expect(preparedAfterPass[2] == preparedAfterPass[1], "a statement met again is not prepared again")
    }

    @Test(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
    func aConnectionWhoseServerForgotItsStatementsSavesUnprepared() async throws {
        let (stack, id) = try await PostgresTestStack.oneStory(history: false)
        let context = stack.container.newContext()
        let story = try context.existingObject(with: id, as: PgStory.self)
        story.title = "Prepared"
        try context.save()
        // What a pooler between Strata and the server, or `DISCARD ALL`, does.
        let store = try stack.store()
        _ = try store.pool.withSession { session throws(StrataError) in try session.execute("DEALLOCATE ALL") }
        story.title = "Unprepared"
        try context.save()
        let title = try stack.container.perform { try $0.existingObject(with: id, as: PgStory.self).title }
        #expect(title == "Unprepared")
    }
}
