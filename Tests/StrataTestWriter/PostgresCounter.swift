import Foundation
import Strata
import StrataPostgres
import StrataTestModels

// Usage: strata-test-writer pg-counter <url> <schema> <rounds> <expected> <barrier directory> <index>
// One of several server processes on one PostgreSQL schema: it writes
// `ready-<index>` in the barrier directory, waits for `go` there, adds 1 to
// the counter book's year `rounds` times (retrying each on a merge conflict),
// then waits until its view context shows `expected` and prints
// "seen <year>" (or "stale <year>" and exits with 4 after 60 s).

@MainActor
func runPostgresCounter(_ arguments: [String]) async throws -> Int32 {
    guard arguments.count == 8, let rounds = Int(arguments[4]), let expected = Int(arguments[5]) else { return 2 }
    let barrier = URL(fileURLWithPath: arguments[6])
    var server = try PostgresStoreDescription(url: arguments[2])
    server.schemaName = arguments[3]
    var description = StoreDescription.postgres(server)
    description.historyTracking = true
    description.remoteChangeNotifications = true
    let container = try PersistentContainer(name: "Server \(arguments[7])", schema: librarySchema)
    container.storeDescriptions = [description]
    try await container.loadPersistentStores()
    defer { try? container.persistentStoreCoordinator.close() }
    let counter = FetchRequest<Book>(predicate: #Predicate { $0.title == "Counter" })
    // The view context holds the counter from the start, as a screen would.
    guard let shown = try container.viewContext.fetch(counter).first else { return 3 }

    _ = FileManager.default.createFile(atPath: barrier.appendingPathComponent("ready-\(arguments[7])").path, contents: nil)
    while !FileManager.default.fileExists(atPath: barrier.appendingPathComponent("go").path) {
        try await Task.sleep(for: .milliseconds(5))
    }
    for _ in 0..<rounds {
        while true {
            let context = container.newContext()
            guard let book = try context.fetch(counter).first else { return 3 }
            book.year += 1
            do {
                try context.save()
                break
            } catch let error as StrataError where error.code == .mergeConflict {
                continue
            }
        }
    }
    let deadline = ContinuousClock.now + .seconds(60)
    while shown.year != expected, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
    }
    print(shown.year == expected ? "seen \(shown.year)" : "stale \(shown.year)")
    return shown.year == expected ? 0 : 4
}
