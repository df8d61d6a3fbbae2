import Foundation
import Logging
import PostgresNIO
import StrataCore
import StrataSQLite

// Case 18, notify (PostgreSQL only): 100 one-row commits on one connection or
// server, each timed until another sees it. pg-raw: `UPDATE` and `pg_notify` in
// one statement, the other connection `LISTEN`s and reads the row again on each
// notification. strata-pg: server A's background context saves; server B (a
// second container on the same schema) holds the object in its view context,
// which merges the change on its own (`NOTIFY`, then history).

extension Runner {
    func notify() async throws {
        let samples = 100
        for library in libraries where library == PostgresRawLibrary.self || library == StrataPostgresLibrary.self {
            var runs: [[Double]] = []
            for run in 0...workload.runs {
                let path = "notify-\(library.name)-\(run)"
                try await library.create(at: path, rows: ItemRow.make(1))
                let latencies = library == PostgresRawLibrary.self
                    ? try await PostgresRawLibrary.notifyLatencies(path: path, samples: samples)
                    : try await StrataPostgresLibrary.notifyLatencies(path: path, samples: samples)
                if run > 0 { runs.append([Stats.percentile(latencies, 0.5), Stats.percentile(latencies, 0.99)]) }
            }
            let note = "\(samples) commits, each until another connection or server shows it"
            record(.notify, library: library, runs: runs.map { [$0[0]] }, name: "notify-p50", note: note)
            record(.notify, library: library, runs: runs.map { [$0[1]] }, name: "notify-p99", note: note)
        }
    }
}

extension PostgresRawLibrary {
    static func notifyLatencies(path: String, samples: Int) async throws -> [Double] {
        let table = "\"\(BenchPostgres.schemaName(for: path))\".item"
        let listener = try await PostgresRawLibrary.connect(path)
        let writer = try await PostgresRawLibrary.connect(path)
        let latencies = try await listener.listen(on: "bench_notify") { notifications in
            try await measureNotifications(notifications, writer: writer, listener: listener, table: table, samples: samples)
        }
        try await writer.close()
        try await listener.close()
        return latencies
    }

    private static func measureNotifications(
        _ notifications: PostgresNotificationSequence, writer: PostgresConnection, listener: PostgresConnection,
        table: String, samples: Int
    ) async throws -> [Double] {
        let logger = Logger(label: "bench.notify")
        var iterator = notifications.makeAsyncIterator()
        var latencies: [Double] = []
        for sample in 1...samples {
            let value = Int64(sample)
            let elapsed = try await measure {
                try await writer.query("""
                    WITH changed AS (UPDATE \(unescaped: table) SET i2 = \(value) WHERE id = 1 RETURNING id)
                    SELECT pg_notify('bench_notify', \(String(value))) FROM changed
                    """, logger: logger)
                guard try await iterator.next() != nil else { throw RawError(message: "the notifications ended") }
                var seen: Int64 = 0
                for try await i2 in try await listener.query("SELECT i2 FROM \(unescaped: table) WHERE id = 1", logger: logger)
                    .decode(Int64.self) { seen = i2 }
                guard seen == value else { throw RawError(message: "the listener does not see the commit") }
            }
            latencies.append(elapsed.milliseconds)
        }
        return latencies
    }
}

extension StrataPostgresLibrary {
    @MainActor
    static func notifyLatencies(path: String, samples: Int) async throws -> [Double] {
        let first = try await watching(path, name: "Server A")
        let second = try await watching(path, name: "Server B")
        defer {
            try? first.persistentStoreCoordinator.close()
            try? second.persistentStoreCoordinator.close()
        }
        guard let shown = try second.viewContext.fetch(FetchRequest<StrataItem>()).first else {
            throw RawError(message: "server B sees no row")
        }
        var latencies: [Double] = []
        for sample in 1...samples {
            let start = ContinuousClock.now
            try await first.performBackgroundTask { context in
                try context.fetch(FetchRequest<StrataItem>()).first?.i2 = sample
                try context.save()
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while shown.i2 != sample, ContinuousClock.now < deadline { await Task.yield() }
            let elapsed = ContinuousClock.now - start
            guard shown.i2 == sample else { throw RawError(message: "server B's view context did not show server A's save") }
            latencies.append(elapsed.milliseconds)
        }
        return latencies
    }

    private static func watching(_ path: String, name: String) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: name, schema: schema)
        var description = StoreDescription.postgres(try BenchPostgres.description(for: path))
        description.historyTracking = true
        description.remoteChangeNotifications = true
        container.storeDescriptions = [description]
        try await container.loadPersistentStores()
        return container
    }
}
