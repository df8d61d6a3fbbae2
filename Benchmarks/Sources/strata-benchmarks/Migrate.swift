import Foundation
import GRDBSQLite
import StrataCore
import StrataSQLite

// Case 11, migrate: a large store moves to the next version of its schema.
// Version 1 holds attachments (10 MB blobs) and a million small readings.
// `migrate` goes to a version 2 that widens `Reading.i1` and `Attachment.size`
// to `Double`: both tables are copied, blobs and all, for Strata and for raw
// SQLite's documented copy script (new table, `INSERT … SELECT`, drop, rename).
// `migrate-in-place` goes to a version 2 that renames `body` to `text` and adds
// `priority = 3` and the caption: renames and added columns, which Strata and
// raw SQLite both do by `ALTER TABLE` without copying a row. Each run migrates
// a fresh copy of one version-1 file in a child process that reports its time
// and peak resident set, as the memory cases do.

/// Version 1 of the migrated store.
enum MigrateV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Attachment.self, Reading.self] }

    final class Attachment: PersistentModel {
        static let schemaProperties: [PropertyMetadata] = [
            .property("name", \Attachment.name), .property("payload", \Attachment.payload),
            .property("size", \Attachment.size),
        ]
        let persistentBacking: ModelBacking
        init(backing: ModelBacking) { persistentBacking = backing }
        var name: String { persistentValue(at: 0, as: String.self) }
        var payload: Data { persistentValue(at: 1, as: Data.self) }
        var size: Int { persistentValue(at: 2, as: Int.self) }
    }

    final class Reading: PersistentModel {
        static let schemaProperties: [PropertyMetadata] = [
            .property("i0", \Reading.i0), .property("i1", \Reading.i1),
            .property("score", \Reading.score), .property("body", \Reading.body),
        ]
        let persistentBacking: ModelBacking
        init(backing: ModelBacking) { persistentBacking = backing }
        var i0: Int { persistentValue(at: 0, as: Int.self) }
        var i1: Int { persistentValue(at: 1, as: Int.self) }
        var score: Double { persistentValue(at: 2, as: Double.self) }
        var body: String { persistentValue(at: 3, as: String.self) }
    }
}

/// Version 2: `Reading.body` renamed to `text`, `Reading.priority = 3` and
/// `Attachment.caption: String?` added.
enum MigrateV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Attachment.self, Reading.self] }

    final class Attachment: PersistentModel {
        static let schemaProperties: [PropertyMetadata] = [
            .property("name", \Attachment.name), .property("payload", \Attachment.payload),
            .property("size", \Attachment.size), .property("caption", \Attachment.caption),
        ]
        let persistentBacking: ModelBacking
        init(backing: ModelBacking) { persistentBacking = backing }
        var name: String { persistentValue(at: 0, as: String.self) }
        var payload: Data { persistentValue(at: 1, as: Data.self) }
        var size: Int { persistentValue(at: 2, as: Int.self) }
        var caption: String? { persistentValue(at: 3, as: String?.self) }
    }

    final class Reading: PersistentModel {
        static let schemaProperties: [PropertyMetadata] = [
            .property("i0", \Reading.i0), .property("i1", \Reading.i1),
            .property("score", \Reading.score), .property("text", \Reading.text, originalName: "body"),
            .property("priority", \Reading.priority, defaultValue: 3),
        ]
        let persistentBacking: ModelBacking
        init(backing: ModelBacking) { persistentBacking = backing }
        var i0: Int { persistentValue(at: 0, as: Int.self) }
        var i1: Int { persistentValue(at: 1, as: Int.self) }
        var score: Double { persistentValue(at: 2, as: Double.self) }
        var text: String { persistentValue(at: 3, as: String.self) }
        var priority: Int { persistentValue(at: 4, as: Int.self) }
    }
}

/// The other version 2: `Reading.i1` and `Attachment.size` widened to
/// `Double`, so both tables are copied.
enum MigrateV2Copy: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Attachment.self, Reading.self] }

    final class Attachment: PersistentModel {
        static let schemaProperties: [PropertyMetadata] = [
            .property("name", \Attachment.name), .property("payload", \Attachment.payload),
            .property("size", \Attachment.size),
        ]
        let persistentBacking: ModelBacking
        init(backing: ModelBacking) { persistentBacking = backing }
        var name: String { persistentValue(at: 0, as: String.self) }
        var payload: Data { persistentValue(at: 1, as: Data.self) }
        var size: Double { persistentValue(at: 2, as: Double.self) }
    }

    final class Reading: PersistentModel {
        static let schemaProperties: [PropertyMetadata] = [
            .property("i0", \Reading.i0), .property("i1", \Reading.i1),
            .property("score", \Reading.score), .property("body", \Reading.body),
        ]
        let persistentBacking: ModelBacking
        init(backing: ModelBacking) { persistentBacking = backing }
        var i0: Int { persistentValue(at: 0, as: Int.self) }
        var i1: Double { persistentValue(at: 1, as: Double.self) }
        var score: Double { persistentValue(at: 2, as: Double.self) }
        var body: String { persistentValue(at: 3, as: String.self) }
    }
}

enum MigratePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [MigrateV1.self, MigrateV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: MigrateV1.self, toVersion: MigrateV2.self)] }
}

enum MigrateCopyPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [MigrateV1.self, MigrateV2Copy.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: MigrateV1.self, toVersion: MigrateV2Copy.self)] }
}

/// The contents of the version-1 store, the same for every library.
struct MigrateContents {
    var blobs: Int
    var blobBytes: Int
    var readings: Int

    /// Attachment `n`'s payload: `blobBytes` bytes that differ from row to row.
    func payload(_ n: Int) -> Data {
        var data = Data(repeating: UInt8(truncatingIfNeeded: n), count: blobBytes)
        withUnsafeBytes(of: UInt64(n)) { data.replaceSubrange(0..<$0.count, with: $0) }
        return data
    }

    var megabytes: Int { blobs * blobBytes / 1_000_000 }
    var note: String { "\(blobs) blobs of \(blobBytes / 1_000_000) MB and \(readings) rows" }
}

/// The plain tables raw SQLite migrates, and its two scripts.
enum RawMigrateSchema {
    static let create = """
        CREATE TABLE attachment (id INTEGER PRIMARY KEY, name TEXT NOT NULL, payload BLOB NOT NULL,
            size INTEGER NOT NULL);
        CREATE TABLE reading (id INTEGER PRIMARY KEY, i0 INTEGER NOT NULL, i1 INTEGER NOT NULL,
            score REAL NOT NULL, body TEXT NOT NULL);
        CREATE INDEX reading_score ON reading(score);
        """
    /// SQLite's general procedure for changing a table, in one transaction.
    static let copyScript = """
        BEGIN IMMEDIATE;
        CREATE TABLE attachment_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL, payload BLOB NOT NULL,
            size REAL NOT NULL);
        INSERT INTO attachment_new (id, name, payload, size) SELECT id, name, payload, CAST(size AS REAL) FROM attachment;
        DROP TABLE attachment;
        ALTER TABLE attachment_new RENAME TO attachment;
        CREATE TABLE reading_new (id INTEGER PRIMARY KEY, i0 INTEGER NOT NULL, i1 REAL NOT NULL,
            score REAL NOT NULL, body TEXT NOT NULL);
        INSERT INTO reading_new (id, i0, i1, score, body) SELECT id, i0, CAST(i1 AS REAL), score, body FROM reading;
        DROP TABLE reading;
        ALTER TABLE reading_new RENAME TO reading;
        CREATE INDEX reading_score ON reading(score);
        COMMIT;
        """
    /// The in-place version: every change is a rename or an added column
    /// with a constant default.
    static let alterScript = """
        BEGIN IMMEDIATE;
        ALTER TABLE attachment ADD COLUMN caption TEXT;
        ALTER TABLE reading RENAME COLUMN body TO text;
        ALTER TABLE reading ADD COLUMN priority INTEGER NOT NULL DEFAULT 3;
        COMMIT;
        """
}

extension RawStatement {
    func bind(_ value: Data, at index: Int32) {
        _ = value.withUnsafeBytes { bytes in
            sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }
}

enum MigrateCase {
    static let strataCopyChild = "migrate-strata-copy"
    static let strataInPlaceChild = "migrate-strata-in-place"
    static let rawCopyChild = "migrate-raw-copy"
    static let rawAlterChild = "migrate-raw-alter"

    /// Writes the version-1 store through Strata, one blob per batch so no more
    /// than one is in memory at a time.
    static func createStrata(at path: String, _ contents: MigrateContents) async throws {
        let container = try PersistentContainer(name: "Migrate", schema: Schema(versionedSchema: MigrateV1.self))
        container.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: path))]
        try await container.loadPersistentStores()
        for n in 0..<contents.blobs {
            var done = false
            try container.execute(BatchInsertRequest<MigrateV1.Attachment> { row in
                guard !done else { return true }
                row[\.name] = "attachment \(n)"
                row[\.payload] = contents.payload(n)
                row[\.size] = contents.blobBytes
                done = true
                return false
            })
        }
        var next = 0
        try container.execute(BatchInsertRequest<MigrateV1.Reading> { row in
            guard next < contents.readings else { return true }
            next += 1
            row[\.i0] = next; row[\.i1] = next % 1_000
            row[\.score] = Double(next &* 7_919 % 100_003) / 100.003
            row[\.body] = "reading \(next)"
            return false
        })
        try container.persistentStoreCoordinator.close()
    }

    static func createRaw(at path: String, _ contents: MigrateContents) throws {
        let connection = try RawConnection(path: path)
        defer { connection.close() }
        try connection.execute(RawMigrateSchema.create)
        try connection.transaction {
            let attachment = try connection.prepare("INSERT INTO attachment (name, payload, size) VALUES (?, ?, ?)")
            for n in 0..<contents.blobs {
                attachment.bind("attachment \(n)", at: 1)
                attachment.bind(contents.payload(n), at: 2)
                attachment.bind(contents.blobBytes, at: 3)
                _ = try attachment.step()
                attachment.reset()
            }
            let reading = try connection.prepare("INSERT INTO reading (i0, i1, score, body) VALUES (?, ?, ?, ?)")
            for next in 1...max(contents.readings, 1) where contents.readings > 0 {
                reading.bind(next, at: 1); reading.bind(next % 1_000, at: 2)
                reading.bind(Double(next &* 7_919 % 100_003) / 100.003, at: 3)
                reading.bind("reading \(next)", at: 4)
                _ = try reading.step()
                reading.reset()
            }
        }
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// In the child: migrates the file at `path` and returns the time it took.
    /// Strata's time is the load that migrates; the check that follows is not timed.
    static func runChild(_ name: String, path: String, readings: Int) async throws -> Duration {
        switch name {
        case strataCopyChild, strataInPlaceChild:
            let inPlace = name == strataInPlaceChild
            let container = try PersistentContainer(
                name: "Migrate", schema: Schema(versionedSchema: inPlace ? MigrateV2.self : MigrateV2Copy.self),
                migrationPlan: inPlace ? MigratePlan.self : MigrateCopyPlan.self)
            container.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: path))]
            let elapsed = try await measure { try await container.loadPersistentStores() }
            let context = container.newContext()
            let migrated = inPlace
                ? try context.count(for: FetchRequest<MigrateV2.Reading>(predicate: #Predicate { $0.priority == 3 }))
                : try context.count(for: FetchRequest<MigrateV2Copy.Reading>(predicate: #Predicate { $0.i1 >= 0.0 }))
            guard migrated == readings else {
                throw RawError(message: "the migrated store holds \(migrated) migrated readings, not \(readings)")
            }
            try container.persistentStoreCoordinator.close()
            return elapsed
        default:
            let connection = try RawConnection(path: path)
            defer { connection.close() }
            let elapsed = try await measure {
                try connection.execute(name == rawAlterChild ? RawMigrateSchema.alterScript : RawMigrateSchema.copyScript)
            }
            let count = try connection.prepare(name == rawAlterChild
                ? "SELECT count(*) FROM reading WHERE priority = 3 AND text LIKE 'reading %'"
                : "SELECT count(*) FROM reading WHERE typeof(i1) = 'real'")
            _ = try count.step()
            guard count.int(0) == readings else {
                throw RawError(message: "the migrated file holds \(count.int(0)) readings, not \(readings)")
            }
            return elapsed
        }
    }

    /// In the parent: one version-1 file per library, copied fresh for each
    /// run and migrated in a child. Records time and peak memory per library.
    static func run(workload: Workload, libraries: [any BenchLibrary.Type], log: (String) -> Void) async throws
        -> (measurements: [Measurement], baselineMiB: Double) {
        let contents = workload.migrate
        let baseline = Double(try MemoryCases.child("baseline", library: RawLibrary.name, path: "/dev/null", extra: []).kib) / 1024
        var measurements: [Measurement] = []
        var variants: [(child: String, library: String, caseName: String)] = []
        if libraries.contains(where: { $0 == RawLibrary.self }) {
            variants += [(rawCopyChild, RawLibrary.name, "migrate"), (rawAlterChild, RawLibrary.name, "migrate-in-place")]
        }
        if libraries.contains(where: { $0 == StrataLibrary.self }) {
            variants += [(strataCopyChild, StrataLibrary.name, "migrate"), (strataInPlaceChild, StrataLibrary.name, "migrate-in-place")]
        }
        let directory = try ScratchDirectory("migrate")
        defer { directory.remove() }
        let strataTemplate = directory.file("strata-v1.sqlite"), rawTemplate = directory.file("raw-v1.sqlite")
        if variants.contains(where: { $0.library == StrataLibrary.name }) {
            try await createStrata(at: strataTemplate, contents)
        }
        if variants.contains(where: { $0.library == RawLibrary.name }) { try createRaw(at: rawTemplate, contents) }

        for variant in variants {
            var times: [Double] = [], peaks: [Double] = []
            for _ in 0..<workload.largeRuns {
                let path = directory.file("run.sqlite")
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                try FileManager.default.copyItem(atPath: variant.library == StrataLibrary.name ? strataTemplate : rawTemplate, toPath: path)
                let (milliseconds, kib) = try MemoryCases.child(
                    variant.child, library: variant.library, path: path, extra: ["--migrate-readings", String(contents.readings)])
                times.append(milliseconds)
                peaks.append(Double(kib) / 1024)
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            let caseName = variant.caseName
            measurements.append(Measurement(
                caseName: caseName, number: 11, library: variant.library, value: Stats.median(times),
                samples: times, note: contents.note))
            measurements.append(Measurement(
                caseName: caseName + "-peak", number: 11, library: variant.library, value: peaks.max() ?? .nan,
                unit: .mebibytes, samples: peaks, note: contents.note))
            log("  " + pad(caseName, 26) + pad(variant.library, 14)
                + String(format: "%12.1f MiB (%.1f above baseline) %12.1f ms",
                         peaks.max() ?? .nan, (peaks.max() ?? .nan) - baseline, Stats.median(times)))
        }
        return (measurements, baseline)
    }
}
