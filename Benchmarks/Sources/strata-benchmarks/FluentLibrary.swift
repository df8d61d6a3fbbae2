import FluentSQLiteDriver
import Synchronization

/// The benchmark entity as a Fluent 4 model.
final class FluentItem: Model, @unchecked Sendable {
    // @unchecked: Fluent's property wrappers are mutable; each model is used by one task at a time.
    static let schema = ItemSchema.table

    @ID(custom: "id", generatedBy: .user) var id: Int64?
    @Field(key: "i0") var i0: Int
    @Field(key: "i1") var i1: Int
    @Field(key: "i2") var i2: Int
    @Field(key: "i3") var i3: Int
    @Field(key: "i4") var i4: Int
    @Field(key: "i5") var i5: Int
    @Field(key: "i6") var i6: Int
    @Field(key: "i7") var i7: Int
    @Field(key: "i8") var i8: Int
    @Field(key: "i9") var i9: Int
    @Field(key: "score") var score: Double
    @Field(key: "name") var name: String

    init() {}

    init(_ row: ItemRow) {
        id = row.id
        i0 = row.i0; i1 = row.i1; i2 = row.i2; i3 = row.i3; i4 = row.i4
        i5 = row.i5; i6 = row.i6; i7 = row.i7; i8 = row.i8; i9 = row.i9
        score = row.score
        name = row.name
    }

    var checksum: Int {
        i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 &+ Int(score) &+ name.utf8.count
    }
}

/// What the benchmark does with Fluent, the same on every driver: the
/// driver's library holds the database and the fetched models.
protocol FluentBenchLibrary: BenchLibrary {
    var db: any Database { get }
    var held: [FluentItem] { get set }
}

/// Rows per multi-row `INSERT` or `DELETE … IN`; the bundled SQLite binds at most 32,766 values.
private let fluentChunk = 1_000

/// Fluent 4 with fluent-sqlite-driver: one connection on one event loop,
/// blocking SQLite work on NIO's thread pool, as in a Vapor app.
final class FluentLibrary: FluentBenchLibrary, @unchecked Sendable {
    // @unchecked: the runner uses a library from one task at a time.
    static let name = "fluent"
    private let databases: Databases
    let db: any Database
    var held: [FluentItem] = []

    private init(path: String) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        databases = Databases(threadPool: NIOThreadPool.singleton, on: group)
        databases.use(.sqlite(.file(path)), as: .sqlite)
        var logger = Logger(label: "fluent")
        logger.logLevel = .warning
        guard let db = databases.database(logger: logger, on: group.any()) else {
            throw RawError(message: "Fluent has no database")
        }
        self.db = db
        guard let sql = db as? any SQLDatabase else { throw RawError(message: "Fluent's SQLite is not SQL") }
        try await sql.raw("PRAGMA journal_mode = WAL").run()
        try await sql.raw("PRAGMA synchronous = NORMAL").run()
    }

    static func create(at path: String, rows: [ItemRow]) async throws {
        try await RawLibrary.create(at: path, rows: rows)
    }

    static func open(at path: String) async throws -> FluentLibrary {
        try await FluentLibrary(path: path)
    }

    func close() async throws {
        held = []
        await databases.shutdownAsync()
    }
}

/// Inserts rows as models, `fluentChunk` per multi-row `INSERT`.
private func createItems(_ rows: some Collection<ItemRow>, on db: any Database) async throws {
    var start = rows.startIndex
    while start != rows.endIndex {
        let end = rows.index(start, offsetBy: fluentChunk, limitedBy: rows.endIndex) ?? rows.endIndex
        try await rows[start..<end].map(FluentItem.init).create(on: db)
        start = end
    }
}

extension FluentBenchLibrary {

    func insert(_ rows: [ItemRow]) async throws {
        try await db.transaction { tx in try await createItems(rows, on: tx) }
    }

    func fetchAll() async throws -> Int {
        try await FluentItem.query(on: db).all().reduce(0) { $0 &+ $1.checksum }
    }

    func query(minimumScore: Double, limit: Int) async throws -> Int {
        try await FluentItem.query(on: db).filter(\.$score >= minimumScore).sort(\.$score).limit(limit).all()
            .reduce(0) { $0 &+ $1.checksum }
    }

    func hold(limit: Int?) async throws {
        var query = FluentItem.query(on: db).sort(\.$id)
        if let limit { query = query.limit(limit) }
        held = try await query.all()
    }

    func updateHeld() async throws {
        let items = held
        try await db.transaction { tx in
            for item in items {
                item.i1 += 1
                try await item.update(on: tx)
            }
        }
    }

    /// Deletes in chunks of multi-row `DELETE … WHERE id IN (…)`, Fluent's batch delete.
    func deleteHeld() async throws {
        let items = held
        try await db.transaction { tx in
            var start = 0
            while start < items.count {
                let end = min(start + fluentChunk, items.count)
                try await items[start..<end].delete(on: tx)
                start = end
            }
        }
        held = []
    }

    func saveOneChange(_ index: Int) async throws {
        let item = held[index]
        item.i1 += 1
        try await item.update(on: db)
    }

    /// Updates the held rows in one transaction, then re-queries them.
    func saveElsewhereUntilVisible() async throws -> Duration {
        let changed = held
        for item in changed { item.i2 += 1 }
        let expected = changed.map(\.i2)
        let first = held.first?.id ?? 0, last = held.last?.id ?? 0
        let elapsed = try await measure {
            try await db.transaction { tx in
                for item in changed { try await item.update(on: tx) }
            }
            held = try await FluentItem.query(on: db).filter(\.$id >= first).filter(\.$id <= last).sort(\.$id).all()
        }
        guard held.map(\.i2) == expected else { throw RawError(message: "the re-read does not show the save") }
        return elapsed
    }

    /// Streams rows through Fluent's per-row callback rather than collecting them.
    func streamAll(batchSize: Int) async throws -> Int {
        let sum = Total()
        try await FluentItem.query(on: db).all { result in
            if case .success(let item) = result {
                sum.value.withLock { $0 &+= item.checksum }
            }
        }
        return sum.value.withLock { $0 }
    }

    func importInUnits(total: Int, unit: Int) async throws {
        var next = 1
        while next <= total {
            let count = min(unit, total - next + 1)
            let rows = ItemRow.make(count, startingAt: next)
            try await db.transaction { tx in try await createItems(rows, on: tx) }
            next += count
        }
    }
}

/// A running total that Fluent's `@Sendable` row callback can add to.
private final class Total: Sendable {
    let value = Mutex(0)
}
