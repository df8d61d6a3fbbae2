import Foundation
import GRDB
import Strata
import StrataTestModels
import Synchronization
import Testing

@Suite("Migrations killed part way")
struct MigrationKillTests {
    @Test func aProcessKilledWhileMigratingLeavesEveryRowUnderOneSchemaOrTheOther() async throws {
        let directory = TemporaryDirectory()
        let base = directory.file("Base.sqlite")
        let rows = 60_000
        let v1 = try PersistentContainer(name: "Victim", schema: Schema(versionedSchema: VictimV1.self))
        v1.storeDescriptions = [StoreDescription(url: base)]
        try await v1.loadPersistentStores()
        try v1.perform { context in
            for number in 0..<rows { context.insert(VictimV1.Entry(name: "entry \(number)", number: number)) }
            try context.save()
        }
        try v1.persistentStoreCoordinator.close()
        let expectedSum = (0..<rows).reduce(0, +)

        var rolledBack = 0, completed = 0
        for attempt in 0..<8 {
            let store = directory.file("Victim-\(attempt).sqlite")
            try FileManager.default.copyItem(at: base, to: store)
            // A little later each time.
            try await Self.killWriter(["migrate", store.path], after: .milliseconds(5 + attempt * 25))

            let queue = try DatabaseQueue(path: store.path)
            let (version, integrity) = try await queue.read { db in
                (try String.fetchOne(db, sql: "SELECT value FROM _strata_metadata WHERE key = 'versionIdentifier'"),
                 try String.fetchAll(db, sql: "PRAGMA integrity_check"))
            }
            try queue.close()
            #expect(integrity == ["ok"])
            if version == "2.0.0" {
                completed += 1
                let container = try PersistentContainer(name: "Victim", schema: Schema(versionedSchema: VictimV2.self))
                container.storeDescriptions = [StoreDescription(url: store)]
                try await container.loadPersistentStores()
                let entries = try container.perform { try $0.fetch(FetchRequest<VictimV2.Entry>()) }
                #expect(entries.count == rows)
                #expect(entries.reduce(0) { $0 + Int($1.number) } == expectedSum)
                #expect(entries.allSatisfy { $0.note == "migrated" && $0.title.hasPrefix("entry ") })
            } else {
                rolledBack += 1
                let container = try PersistentContainer(name: "Victim", schema: Schema(versionedSchema: VictimV1.self))
                container.storeDescriptions = [StoreDescription(url: store)]
                try await container.loadPersistentStores()
                let entries = try container.perform { try $0.fetch(FetchRequest<VictimV1.Entry>()) }
                #expect(entries.count == rows)
                #expect(entries.reduce(0) { $0 + $1.number } == expectedSum)
            }
        }
        #expect(rolledBack + completed == 8)
    }

    /// Starts `strata-test-writer` with `arguments`, waits until it has
    /// started loading, and kills it (SIGKILL) `delay` later.
    private static func killWriter(_ arguments: [String], after delay: Duration) async throws {
        let process = Process()
        process.executableURL = try builtExecutable("strata-test-writer")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        _ = output.fileHandleForReading.availableData
        try await Task.sleep(for: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether this process runs under ThreadSanitizer, whose runtime in the
    /// child stops on the file-size limit before SQLite sees it.
    private static let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil

    @Test(.disabled(if: underThreadSanitizer, "ThreadSanitizer's runtime stops on the file-size limit"))
    func aDiskThatFillsDuringAMigrationLeavesTheStoreAsItWas() async throws {
        let directory = TemporaryDirectory()
        let store = directory.file("Full.sqlite")
        let rows = 20_000
        let v1 = try PersistentContainer(name: "Victim", schema: Schema(versionedSchema: VictimV1.self))
        v1.storeDescriptions = [StoreDescription(url: store)]
        try await v1.loadPersistentStores()
        try v1.perform { context in
            for number in 0..<rows { context.insert(VictimV1.Entry(name: "entry \(number)", number: number)) }
            try context.save()
        }
        try v1.persistentStoreCoordinator.close()
        let before = try Data(contentsOf: store)

        // A file-size limit half the store's size stands in for a full disk: the
        // copy of the table outgrows it, and writing past it fails (EFBIG).
        let blocks = max(before.count / 512 / 2, 8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "trap '' XFSZ; ulimit -f \(blocks); exec \"$0\" migrate \"$1\"", try builtExecutable("strata-test-writer").path, store.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 3)
        #expect(printed.contains("failed migrationFailed"))

        let queue = try DatabaseQueue(path: store.path)
        let (version, integrity) = try await queue.read { db in
            (try String.fetchOne(db, sql: "SELECT value FROM _strata_metadata WHERE key = 'versionIdentifier'"),
             try String.fetchAll(db, sql: "PRAGMA integrity_check"))
        }
        try queue.close()
        #expect(version == "1.0.0")
        #expect(integrity == ["ok"])
        let reopened = try PersistentContainer(name: "Victim", schema: Schema(versionedSchema: VictimV1.self))
        reopened.storeDescriptions = [StoreDescription(url: store)]
        try await reopened.loadPersistentStores()
        let entries = try reopened.perform { try $0.fetch(FetchRequest<VictimV1.Entry>()) }
        #expect(entries.count == rows)
        #expect(entries.reduce(0) { $0 + $1.number } == (0..<rows).reduce(0, +))
    }
}

extension MigrationKillTests {
    @Test(.enabled(if: persistentStoreKinds.contains(.postgres), "needs a PostgreSQL server: set STRATA_POSTGRES_URL"))
    func aServerKilledWhileMigratingPostgresLeavesTheStoreUnderOneSchemaOrTheOther() async throws {
        let rows = 20_000
        let expectedSum = (0..<rows).reduce(0, +)
        var rolledBack = 0, completed = 0
        for attempt in 0..<6 {
            let directory = TemporaryDirectory()
            let server = try #require(postgresServer(for: directory.file("Victim.sqlite")))
            let v1 = try PersistentContainer(name: "Victim", schema: Schema(versionedSchema: VictimV1.self))
            v1.storeDescriptions = [.postgres(server)]
            try await v1.loadPersistentStores()
            var next = 0
            try v1.execute(BatchInsertRequest<VictimV1.Entry> { row in
                guard next < rows else { return true }
                row[\.name] = "entry \(next)"
                row[\.number] = next
                next += 1
                return false
            })
            try v1.persistentStoreCoordinator.close()

            let url = try #require(postgresTestServerURL)
            let store = url + (url.contains("?") ? "&" : "?") + "schema=\(server.schemaName)"
            try await Self.killWriter(["migrate-pg", store], after: .milliseconds(5 + attempt * 20))

            // The server rolls the dead connection's transaction back; the next load waits for its lock.
            let v2 = try PersistentContainer(name: "Victim", schema: Schema(versionedSchema: VictimV2.self))
            v2.storeDescriptions = [.postgres(server)]
            let reports = Mutex(0)
            v2.migrationProgress = { _ in reports.withLock { $0 += 1 } }
            try await v2.loadPersistentStores()
            if reports.withLock({ $0 }) == 0 { completed += 1 } else { rolledBack += 1 }
            let entries = try v2.perform { try $0.fetch(FetchRequest<VictimV2.Entry>()) }
            #expect(entries.count == rows)
            #expect(entries.reduce(0) { $0 + Int($1.number) } == expectedSum)
            #expect(entries.allSatisfy { $0.note == "migrated" && $0.title.hasPrefix("entry ") })
        }
        #expect(rolledBack + completed == 6)
    }
}
