import Foundation
import Strata
import StrataTesting
@testable import StrataPostgres
import Testing

extension PostgresTestStack {
    /// The container's store.
    func store() throws -> PostgresStore {
        try #require(try container.persistentStoreCoordinator.loadedStore() as? PostgresStore)
    }

    /// Runs SQL on the server as another client would; `sql` gets the store's layout.
    func executeAsAnotherClient(_ sql: (PostgresLayout) -> String, _ values: [StoredValue] = []) throws {
        let layout = try store().layout
        let pool = try PostgresConnectionPool(description: server)
        defer { pool.close() }
        _ = try pool.withSession { session throws(StrataError) in try session.execute(sql(layout), values) }
    }

    /// A stack holding one saved story.
    static func withOneStory(history: Bool = true) async throws -> PostgresTestStack {
        let stack = try await PostgresTestStack(history: history)
        try stack.container.perform { context in
            context.insert(PgStory(title: "First", year: 1))
            try context.save()
        }
        return stack
    }
}

/// Counters, metadata and notifications another client left at the edge of
/// their range: each is refused with a typed error that changes nothing.
@Suite("PostgreSQL stores at the edge of their ranges", .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresEdgeOfRangeTests {
    @Test
    func aKeySequenceWithOneKeyLeftGivesItThenRefusesWithATypedError() async throws {
        let stack = try await PostgresTestStack.withOneStory()
        try stack.executeAsAnotherClient { "UPDATE \($0.sequenceTable) SET max_pk = 9223372036854775806" }
        let context = stack.container.newContext()
        let last = PgStory(title: "Last", year: 2)
        context.insert(last)
        try context.save()
        #expect(last.objectID.primaryKey == Int64.max)
        context.insert(PgStory(title: "One too many", year: 3))
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .corruptStore)
        #expect(error?.entityName == "PgStory")
        #expect(context.insertedObjects.count == 1, "the context keeps its insert")
        #expect(try stack.container.newContext().count(for: FetchRequest<PgStory>()) == 2)
    }

    @Test(arguments: [false, true])
    func aRowAtTheHighestVersionRefusesItsUpdateAndKeepsTheChange(history: Bool) async throws {
        let stack = try await PostgresTestStack.withOneStory(history: history)
        let index = try #require(stack.container.schema.entity(named: "PgStory")).index
        try stack.executeAsAnotherClient { "UPDATE \($0.entities[index].table) SET _version = 9223372036854775807" }
        // Without history a one-row save is one statement; with it, the full path.
        let context = stack.container.newContext()
        let story = try #require(try context.fetch(FetchRequest<PgStory>()).first)
        story.title = "Second"
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .corruptStore)
        #expect(context.hasChanges)
        #expect(try stack.container.newContext().fetch(FetchRequest<PgStory>()).map(\.title) == ["First"])
    }

    @Test
    func aStoreIdentifierThatCannotNameObjectsIsACorruptStore() async throws {
        let stack = try await PostgresTestStack()
        try stack.executeAsAnotherClient { "UPDATE \($0.metadataTable) SET value = 'a b/c?d' WHERE key = 'storeIdentifier'" }
        let error = await #expect(throws: StrataError.self) {
            let other = try await PostgresTestStack.container(stack.server, name: "Other")
            try? other.persistentStoreCoordinator.close()
        }
        #expect(error?.code == .corruptStore)
    }

    @Test @MainActor
    func aForgedNotificationAtTheLowestNumberIsHarmless() async throws {
        let first = try await PostgresTestStack(remote: true)
        let second = try await PostgresTestStack.container(first.server, remote: true, name: "Second")
        defer { try? second.persistentStoreCoordinator.close() }
        let origin = try #require(second.historyOrigin)
        // Any client on the channel can send this; it names the listener's own origin.
        try first.executeAsAnotherClient({ _ in "SELECT pg_notify($1, $2)" }, [
            .text(try first.store().layout.channel), .text("-9223372036854775808 \(origin.uuidString)"),
        ])
        let view = second.viewContext
        try first.container.perform { context in
            context.insert(PgStory(title: "After", year: 1))
            try context.save()
        }
        #expect(await eventually { (try? view.count(for: FetchRequest<PgStory>())) == 1 })
    }
}
