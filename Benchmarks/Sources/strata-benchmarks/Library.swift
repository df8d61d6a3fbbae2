import Foundation

/// One library under test, open over one database file.
///
/// A case creates a fresh file with ``create(at:rows:)`` (untimed), opens it,
/// prepares what it holds in memory (untimed, e.g. fetches the objects it will
/// change), then times one operation. Methods are `async` so that Fluent fits;
/// the synchronous libraries never suspend.
protocol BenchLibrary: AnyObject {
    /// The name in the report: raw, grdb-row, grdb-record, grdb-codable, fluent, strata, strata-memory.
    static var name: String { get }
    /// Writes a new database file at `path` with the schema and `rows`.
    static func create(at path: String, rows: [ItemRow]) async throws
    /// Opens an existing file made by ``create(at:rows:)``.
    static func open(at path: String) async throws -> Self
    /// Closes every connection.
    func close() async throws

    /// Case 1: inserts `rows` as new objects in one transaction.
    func insert(_ rows: [ItemRow]) async throws
    /// Case 2: fetches every row as an object and reads every attribute.
    func fetchAll() async throws -> Int
    /// Case 3: `score >= minimum`, sorted by score, limit `limit`, every attribute read.
    func query(minimumScore: Double, limit: Int) async throws -> Int
    /// Fetches and holds the first `limit` objects (all when nil), untimed.
    func hold(limit: Int?) async throws
    /// Case 4: changes `i1` of every held object and saves them in one transaction.
    func updateHeld() async throws
    /// Case 5: deletes every held object in one transaction.
    func deleteHeld() async throws
    /// Case 6: changes `i1` of held object `index` and saves that one change.
    func saveOneChange(_ index: Int) async throws
    /// Case 7: saves a change to every held object from another connection or
    /// context, then waits until the held objects (or a re-read) show it.
    /// Returns the time from the start of that save to visibility.
    func saveElsewhereUntilVisible() async throws -> Duration
    /// Case 8a: reads every row once, `batchSize` at a time where the library can.
    func streamAll(batchSize: Int) async throws -> Int
    /// Case 8b: imports rows 1...`total` in units of work of `unit` rows.
    func importInUnits(total: Int, unit: Int) async throws
}

/// The libraries in report order.
enum Libraries {
    static var all: [any BenchLibrary.Type] {
        [
            RawLibrary.self, GRDBRowLibrary.self, GRDBRecordLibrary.self, GRDBCodableLibrary.self, FluentLibrary.self,
            StrataLibrary.self, StrataMemoryLibrary.self,
        ] + (ProcessInfo.processInfo.environment["STRATA_BENCH_POSTGRES"] == nil ? [] : postgres)
    }

    /// The PostgreSQL libraries: run when `STRATA_BENCH_POSTGRES` names a server.
    static var postgres: [any BenchLibrary.Type] {
        [PostgresRawLibrary.self, FluentPostgresLibrary.self, StrataPostgresLibrary.self]
    }

    static func named(_ name: String) -> (any BenchLibrary.Type)? {
        (all + postgres).first { $0.name == name }
    }
}
