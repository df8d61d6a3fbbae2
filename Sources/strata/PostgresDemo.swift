#if PostgreSQL
import ArgumentParser
import Foundation
import Strata
import StrataPostgres

/// `strata demo --postgres URL`: the demo on a PostgreSQL store, then a
/// second container on the same database, as a second server would be,
/// receiving the first one's saves through `NOTIFY`.
struct PostgresDemo {
    let url: String
    let fresh: Bool

    func run() async throws {
        var server = try PostgresStoreDescription(url: url)
        if !url.contains("schema=") { server.schemaName = "strata_demo" }
        if fresh { try server.destroyStore() }
        let first = try await Self.container(server, name: "Server A")
        print("Server A opened schema \(server.schemaName) of \(server.database) on \(server.host):\(server.port)")
        try await DemoRun(container: first).run()

        // A second server: its own container, its own connections.
        let second = try await Self.container(server, name: "Server B")
        try await showRemoteMerge(from: first, to: second)
        try first.persistentStoreCoordinator.close()
        try second.persistentStoreCoordinator.close()
    }

    private static func container(_ server: PostgresStoreDescription, name: String) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: name, schema: Schema(Author.self, Book.self))
        var description = StoreDescription.postgres(server)
        description.historyTracking = true
        description.remoteChangeNotifications = true
        container.storeDescriptions = [description]
        try await container.loadPersistentStores()
        return container
    }

    /// Server A rates a book; server B's view context, which shows it, takes the change in.
    @MainActor
    private func showRemoteMerge(from first: PersistentContainer, to second: PersistentContainer) async throws {
        let view = second.viewContext
        let request = FetchRequest<Book>(sortBy: [SortDescriptor(\.year), SortDescriptor(\.title)])
        guard let shown = try view.fetch(request).first else { return }
        let before = shown.rating
        let rating = ((before ?? 2) + 0.5).truncatingRemainder(dividingBy: 5)
        let title = shown.title
        let started = ContinuousClock.now
        try await first.performBackgroundTask { context in
            let book = try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == title })).first
            book?.rating = rating
            try context.save()
        }
        while shown.rating != rating, ContinuousClock.now - started < .seconds(5) {
            try await Task.sleep(for: .milliseconds(1))
        }
        guard shown.rating == rating else {
            print("Server B's view context did not receive server A's save within 5 seconds.")
            throw ExitCode.failure
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        print("Server A rated \"\(title)\" \(String(format: "%.1f", rating)); server B's view context showed it "
            + String(format: "%.1f ms", milliseconds) + " after the save began (NOTIFY, then history).")
    }
}
#endif
