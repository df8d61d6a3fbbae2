import Foundation
import Strata
import StrataPostgres
import StrataTestModels
import StrataTesting
import Testing

/// The writer executable built beside the test bundle.
private func writerURL() throws -> URL {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [bundle, bundle.deletingLastPathComponent()].map { $0.appendingPathComponent("strata-test-writer") }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw StrataError(.objectNotFound, "strata-test-writer was not built next to the tests (run swift build first)")
    }
    return found
}

/// Four server processes on one database: each one's commits reach the
/// others' view contexts, and none of their updates is lost.
@Suite("PostgreSQL processes", .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresProcessTests {
    @Test
    func fourProcessesSeeEachOthersChangesAndLoseNoUpdate() async throws {
        let url = try #require(PostgresTestServer.url, "STRATA_REQUIRE_POSTGRES is set but STRATA_POSTGRES_URL is not")
        let server = try PostgresTestServer.description()
        defer { try? PostgresTestServer.drop(server) }
        let container = try PersistentContainer(name: "Counter", schema: librarySchema)
        var description = StoreDescription.postgres(server)
        description.historyTracking = true
        container.storeDescriptions = [description]
        try await container.loadPersistentStores()
        defer { try? container.persistentStoreCoordinator.close() }
        try container.perform { context in
            context.insert(Book(title: "Counter", year: 0))
            try context.save()
        }

        let processes = 4, rounds = 20
        let barrier = TemporaryDirectory()
        var running: [(Process, Pipe)] = []
        for index in 0..<processes {
            let process = Process()
            process.executableURL = try writerURL()
            process.arguments = [
                "pg-counter", url, server.schemaName, String(rounds), String(processes * rounds), barrier.url.path, String(index),
            ]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            running.append((process, output))
        }
        // All four hold the counter in their view contexts before any of them writes.
        let deadline = ContinuousClock.now + .seconds(60)
        while (0..<processes).contains(where: { !FileManager.default.fileExists(atPath: barrier.file("ready-\($0)").path) }),
              running.allSatisfy(\.0.isRunning), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        _ = FileManager.default.createFile(atPath: barrier.file("go").path, contents: nil)
        for (process, output) in running {
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "a server process failed: \(printed)")
            #expect(printed.contains("seen \(processes * rounds)"), "its view context shows every server's updates: \(printed)")
        }
        let counter = try container.newContext().fetch(FetchRequest<Book>()).first
        #expect(counter?.year == processes * rounds, "no update was lost")
    }
}
