import Foundation
import PostgresNIO
import Strata
import StrataTesting
@testable import StrataPostgres
import Testing

/// A server whose connection to the database breaks, or stops answering,
/// listens again and catches up: the other servers' commits made meanwhile
/// still reach its view context.
@Suite("PostgreSQL connection loss", .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresConnectionLossTests {
    /// How long a commit may take to arrive once the connection is replaced:
    /// under a full parallel run with a sanitizer, replacing it takes seconds.
    private static let patience: Duration = .seconds(30)

    /// Two servers on one namespace holding one story, the second's listening
    /// connection checked every 300 ms, and the story in its view context.
    @MainActor
    static func servers() async throws -> (first: PostgresTestStack, second: PersistentContainer, store: PostgresStore, shown: PgStory) {
        var server = try PostgresTestServer.description()
        server.listenerCheckInterval = .milliseconds(300)
        let first = try await PostgresTestStack(remote: true, server: server)
        let story = PgStory(title: "Draft", year: 1)
        try first.container.perform { context in
            context.insert(story)
            try context.save()
        }
        // The second server starts after that save, so nothing it merges later can refresh the story.
        let second = try await PostgresTestStack.container(server, remote: true, name: "Second")
        let store = try #require(try second.persistentStoreCoordinator.loadedStore() as? PostgresStore)
        let shown = try second.viewContext.existingObject(with: story.objectID, as: PgStory.self)
        #expect(shown.title == "Draft", "loaded now: later titles can only come by merging")
        return (first, second, store, shown)
    }

    /// The server process behind a store's listening connection.
    static func listenerProcess(of store: PostgresStore) async throws -> (PostgresConnection, Int32) {
        let listener = try #require(store.remote.withLock { $0.listener }, "the store listens once loaded")
        let rows = try await listener.query(PostgresQuery(unsafeSQL: "SELECT pg_backend_pid()"), logger: store.logger).get()
        let pid = try #require(try rows.rows.first?.decode(Int32.self))
        return (listener, pid)
    }

    static func retitle(_ id: ObjectID, _ title: String, in container: PersistentContainer) throws {
        try container.perform { context in
            try context.existingObject(with: id, as: PgStory.self).title = title
            try context.save()
        }
    }

    @Test @MainActor
    func aListeningConnectionTheServerEndsIsReplacedAndCatchesUp() async throws {
        let (first, second, store, shown) = try await Self.servers()
        defer { try? second.persistentStoreCoordinator.close() }
        let id = shown.objectID
        let (listener, pid) = try await Self.listenerProcess(of: store)
        let other = try PostgresConnectionPool(description: first.server)
        defer { other.close() }
        // The connection ends and a commit follows before the store can listen
        // again: only catching up from its last token can bring it.
        try PostgresStore.holdingNotifications {
            _ = try other.withSession { session throws(StrataError) in
                try session.rows("SELECT pg_terminate_backend($1::int4)", [.integer(Int64(pid))])
            }
            try listener.closeFuture.wait()
            try Self.retitle(id, "While away", in: first.container)
        }
        #expect(await eventually(timeout: Self.patience) { shown.title == "While away" })
        #expect(store.remote.withLock { $0.listener } !== listener)
    }

    @Test(.enabled(if: PostgresTestServer.isOnThisMachine, "the server's processes can be stopped only on this machine"))
    @MainActor
    func aListeningConnectionThatStopsAnsweringIsReplacedAndCatchesUp() async throws {
        let (first, second, store, shown) = try await Self.servers()
        defer { try? second.persistentStoreCoordinator.close() }
        let id = shown.objectID
        let (listener, pid) = try await Self.listenerProcess(of: store)
        // A stopped server process keeps its connection open and answers
        // nothing, as one behind a failed network does.
        // Only a server process of this machine (not one in a container, whose numbers differ).
        let command = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)
        try #require(command?.hasPrefix("postgres") == true, "process \(pid) here is the server's")
        try #require(kill(pid_t(pid), SIGSTOP) == 0, "the test server's processes can be signalled")
        defer { kill(pid_t(pid), SIGCONT) }
        try Self.retitle(id, "Unheard", in: first.container)
        #expect(await eventually(timeout: Self.patience) { shown.title == "Unheard" })
        #expect(store.remote.withLock { $0.listener } !== listener)
        // The new connection hears the next commit as it happens.
        try Self.retitle(id, "Heard", in: first.container)
        #expect(await eventually(timeout: Self.patience) { shown.title == "Heard" })
    }
}
