import Foundation
import Strata
import StrataTesting
@testable import StrataPostgres
import Testing

/// A statement the server does not finish within the store's `queryTimeout`
/// fails the call instead of holding its thread: the save is undone on the
/// server, the context keeps its changes, and the store goes on working.
@Suite("PostgreSQL query timeouts", .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresQueryTimeoutTests {
    /// A stack holding one story, whose statements may run for half a second.
    private static func stack(history: Bool) async throws -> (PostgresTestStack, ObjectID) {
        try await PostgresTestStack.oneStory(history: history) { $0.queryTimeout = .milliseconds(500) }
    }

    private static func storedTitle(_ id: ObjectID, in stack: PostgresTestStack) throws -> String {
        try stack.container.perform { context in try context.existingObject(with: id, as: PgStory.self).title }
    }

    @Test(arguments: [true, false])
    func aSaveWaitingTooLongForALockIsCanceledAndCanBeSavedLater(history: Bool) async throws {
        let (stack, id) = try await Self.stack(history: history)
        let context = stack.container.newContext()
        try context.existingObject(with: id, as: PgStory.self).title = "Final"
        let table = PostgresLayout(schema: pgSchema, namespace: stack.server.schemaName).entities[1].table
        var holder = stack.server
        holder.queryTimeout = nil
        let other = try PostgresConnectionPool(description: holder)
        defer { other.close() }
        let started = ContinuousClock.now
        let error = try other.withTransaction { session throws(StrataError) in
            try session.execute("LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE")
            return #expect(throws: StrataError.self) { try context.save() }
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(error?.code == .postgres)
        #expect(error?.message.contains("queryTimeout") == true, "\(error?.message ?? "")")
        #expect(context.hasChanges, "the context keeps what it could not save")
        #expect(try Self.storedTitle(id, in: stack) == "Draft")
        try context.save()
        #expect(try Self.storedTitle(id, in: stack) == "Final")
    }

    @Test
    func aServerThatStopsAnsweringIsGivenUpOnAndReplaced() async throws {
        let (stack, id) = try await Self.stack(history: true)
        let store = try stack.store()
        let context = stack.container.newContext()
        try context.existingObject(with: id, as: PgStory.self).title = "Final"
        // The pool's one connection, which the next save will use.
        let pid = try store.pool.withSession { session throws(StrataError) in
            try session.rows("SELECT pg_backend_pid()::int8").first?.first.flatMap { cell throws(StrataError) in try PostgresSession.integer(cell) }
        }
        let process = try #require(pid)
        let command = try? String(contentsOfFile: "/proc/\(process)/comm", encoding: .utf8)
        try #require(command?.hasPrefix("postgres") == true, "process \(process) here is the server's")
        try #require(kill(pid_t(process), SIGSTOP) == 0, "the test server's processes can be signalled")
        // Should the save wait for ever, the test fails below instead of hanging.
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) { kill(pid_t(process), SIGCONT) }
        let started = ContinuousClock.now
        let error = #expect(throws: StrataError.self) { try context.save() }
        kill(pid_t(process), SIGCONT)
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(error?.code == .postgres)
        #expect(error?.message.contains("no answer") == true, "\(error?.message ?? "")")
        #expect(context.hasChanges)
        // A new connection carries the save; the stopped one's transaction never committed.
        try context.save()
        #expect(try Self.storedTitle(id, in: stack) == "Final")
    }
}
