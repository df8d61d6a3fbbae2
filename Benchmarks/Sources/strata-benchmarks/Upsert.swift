import Foundation
import GRDB
import StrataCore

// Case 10, upsert: a second download. The file holds rows 1...N keyed by their
// unique `name`; the library imports rows N/2+1...3N/2 with a changed `i1`, so
// half update stored rows and half are new. One transaction per library, each
// the way its users write an upsert.

/// The keyed table of the upsert case: `item`'s columns with `name` unique.
enum KeyedSchema {
    static let create = """
        CREATE TABLE keyed_item (
            id INTEGER PRIMARY KEY,
            i0 INTEGER NOT NULL, i1 INTEGER NOT NULL, i2 INTEGER NOT NULL, i3 INTEGER NOT NULL,
            i4 INTEGER NOT NULL, i5 INTEGER NOT NULL, i6 INTEGER NOT NULL, i7 INTEGER NOT NULL,
            i8 INTEGER NOT NULL, i9 INTEGER NOT NULL,
            score REAL NOT NULL, name TEXT NOT NULL);
        CREATE UNIQUE INDEX keyed_item_name ON keyed_item(name);
        """
    static let columns = "i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, score, name"
    /// Keys come from SQLite for new rows; stored rows keep theirs.
    static let upsert = """
        INSERT INTO keyed_item (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(name) DO UPDATE SET i0 = excluded.i0, i1 = excluded.i1, i2 = excluded.i2, i3 = excluded.i3,
        i4 = excluded.i4, i5 = excluded.i5, i6 = excluded.i6, i7 = excluded.i7, i8 = excluded.i8, i9 = excluded.i9,
        score = excluded.score
        """

    /// The rows of the second download: `i1` changed so updates are real.
    static func download(rows: Int) -> [ItemRow] {
        ItemRow.make(rows, startingAt: rows / 2 + 1).map { row in
            var changed = row
            changed.i1 += 1
            return changed
        }
    }
}

extension RawLibrary {
    static func createKeyed(at path: String, rows: [ItemRow]) throws {
        let connection = try RawConnection(path: path)
        defer { connection.close() }
        try connection.execute(KeyedSchema.create)
        try upsert(rows, into: connection)
    }

    static func upsert(_ rows: [ItemRow], into connection: RawConnection) throws {
        let statement = try connection.prepare(KeyedSchema.upsert)
        try connection.transaction {
            for row in rows {
                statement.bind(row.i0, at: 1); statement.bind(row.i1, at: 2); statement.bind(row.i2, at: 3)
                statement.bind(row.i3, at: 4); statement.bind(row.i4, at: 5); statement.bind(row.i5, at: 6)
                statement.bind(row.i6, at: 7); statement.bind(row.i7, at: 8); statement.bind(row.i8, at: 9)
                statement.bind(row.i9, at: 10); statement.bind(row.score, at: 11); statement.bind(row.name, at: 12)
                _ = try statement.step()
                statement.reset()
            }
        }
    }
}

/// GRDB's own upsert on a `Codable` record (`upsert(_:)`, GRDB 6+).
struct KeyedItemCodable: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int
    var score: Double
    var name: String

    static let databaseTableName = "keyed_item"

    init(_ row: ItemRow) {
        i0 = row.i0; i1 = row.i1; i2 = row.i2; i3 = row.i3; i4 = row.i4
        i5 = row.i5; i6 = row.i6; i7 = row.i7; i8 = row.i8; i9 = row.i9
        score = row.score
        name = row.name
    }

    /// Opens a pool and upserts every row in one write transaction.
    static func upsert(_ rows: [ItemRow], at path: String) throws {
        let pool = try DatabasePool(path: path)
        defer { try? pool.close() }
        try pool.write { db in
            for row in rows {
                var record = KeyedItemCodable(row)
                try record.upsert(db)
            }
        }
    }
}

extension GRDBRowLibrary {
    /// GRDB's fastest style: the same `INSERT … ON CONFLICT DO UPDATE` as raw
    /// SQLite, one cached statement bound row by row in one write transaction.
    static func upsert(_ rows: [ItemRow], at path: String) throws {
        let pool = try DatabasePool(path: path)
        defer { try? pool.close() }
        try pool.write { db in
            let statement = try db.cachedStatement(sql: KeyedSchema.upsert)
            for row in rows {
                try statement.execute(arguments: [
                    row.i0, row.i1, row.i2, row.i3, row.i4, row.i5, row.i6, row.i7, row.i8, row.i9, row.score, row.name,
                ])
            }
        }
    }
}

/// The keyed entity for Strata: `StrataItem`'s attributes with `name` unique.
final class StrataKeyedItem: PersistentModel {
    static let schemaProperties: [PropertyMetadata] = [
        .property("i0", \StrataKeyedItem.i0), .property("i1", \StrataKeyedItem.i1),
        .property("i2", \StrataKeyedItem.i2), .property("i3", \StrataKeyedItem.i3),
        .property("i4", \StrataKeyedItem.i4), .property("i5", \StrataKeyedItem.i5),
        .property("i6", \StrataKeyedItem.i6), .property("i7", \StrataKeyedItem.i7),
        .property("i8", \StrataKeyedItem.i8), .property("i9", \StrataKeyedItem.i9),
        .property("score", \StrataKeyedItem.score), .property("name", \StrataKeyedItem.name, options: [.unique]),
    ]
    let persistentBacking: ModelBacking
    init(backing: ModelBacking) { persistentBacking = backing }

    var i0: Int { persistentValue(at: 0, as: Int.self) }
    var i1: Int { persistentValue(at: 1, as: Int.self) }
    var i2: Int { persistentValue(at: 2, as: Int.self) }
    var i3: Int { persistentValue(at: 3, as: Int.self) }
    var i4: Int { persistentValue(at: 4, as: Int.self) }
    var i5: Int { persistentValue(at: 5, as: Int.self) }
    var i6: Int { persistentValue(at: 6, as: Int.self) }
    var i7: Int { persistentValue(at: 7, as: Int.self) }
    var i8: Int { persistentValue(at: 8, as: Int.self) }
    var i9: Int { persistentValue(at: 9, as: Int.self) }
    var score: Double { persistentValue(at: 10, as: Double.self) }
    var name: String { persistentValue(at: 11, as: String.self) }

    static func batch(_ rows: [ItemRow]) -> BatchInsertRequest<StrataKeyedItem> {
        ItemKeyPaths(
            integers: [\.i0, \.i1, \.i2, \.i3, \.i4, \.i5, \.i6, \.i7, \.i8, \.i9], score: \.score, name: \.name
        ).batch(rows)
    }
}

extension Runner {
    /// Libraries that can upsert: raw SQLite, GRDB's cached statement and record upsert, Strata's batch insert.
    static var upsertLibraries: [any BenchLibrary.Type] {
        [RawLibrary.self, GRDBRowLibrary.self, GRDBCodableLibrary.self, StrataLibrary.self, PostgresRawLibrary.self,
         StrataPostgresLibrary.self]
    }

    func upsert() async throws {
        let existing = ItemRow.make(workload.rows)
        let download = KeyedSchema.download(rows: workload.rows)
        for library in libraries where Self.upsertLibraries.contains(where: { $0 == library }) {
            let directory = try ScratchDirectory("upsert-\(library.name)")
            defer { directory.remove() }
            var runs: [[Double]] = []
            for run in 0...workload.runs {
                let path = directory.file("run\(run).sqlite")
                // Every library starts from the same file, written by raw SQLite
                // (Strata's by Strata, which adds its own columns and metadata).
                if library == StrataPostgresLibrary.self {
                    try BenchPostgres.destroy(path)
                    try await StrataPostgresLibrary.createKeyed(at: path, rows: existing)
                } else if library == PostgresRawLibrary.self {
                    try await PostgresRawLibrary.createKeyed(at: path, rows: existing)
                } else if library == StrataLibrary.self {
                    try await StrataLibrary.createKeyed(at: path, rows: existing)
                } else {
                    try RawLibrary.createKeyed(at: path, rows: existing)
                }
                let elapsed = try await measure {
                    switch library {
                    case is RawLibrary.Type:
                        let connection = try RawConnection(path: path)
                        defer { connection.close() }
                        try RawLibrary.upsert(download, into: connection)
                    case is GRDBRowLibrary.Type:
                        try GRDBRowLibrary.upsert(download, at: path)
                    case is GRDBCodableLibrary.Type:
                        try KeyedItemCodable.upsert(download, at: path)
                    case is PostgresRawLibrary.Type:
                        try await PostgresRawLibrary.upsert(download, at: path)
                    case is StrataPostgresLibrary.Type:
                        try await StrataPostgresLibrary.upsert(download, at: path)
                    default:
                        try await StrataLibrary.upsert(download, at: path)
                    }
                }
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                if library == StrataPostgresLibrary.self || library == PostgresRawLibrary.self { try BenchPostgres.destroy(path) }
                if run > 0 { runs.append([elapsed.milliseconds]) }
            }
            record(.upsert, library: library, runs: runs, note: "\(workload.rows) rows, half already stored")
        }
    }
}

extension StrataLibrary {
    static func createKeyed(at path: String, rows: [ItemRow]) async throws {
        let container = try await load(at: path)
        try container.execute(StrataKeyedItem.batch(rows))
        try container.persistentStoreCoordinator.close()
    }

    /// Opening the store is part of the time, as for the other libraries here.
    static func upsert(_ rows: [ItemRow], at path: String) async throws {
        let container = try await load(at: path)
        let result = try container.execute(StrataKeyedItem.batch(rows), mergePolicy: .mergeByPropertyObjectTrump)
        precondition(result.count == rows.count, "the upsert wrote \(result.count) of \(rows.count) rows")
        try container.persistentStoreCoordinator.close()
    }
}
