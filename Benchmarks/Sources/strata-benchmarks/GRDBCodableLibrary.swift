import GRDB

/// The benchmark entity as a GRDB `Codable` struct record.
struct ItemCodable: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int
    var score: Double
    var name: String

    static let databaseTableName = ItemSchema.table

    enum Columns {
        static let id = Column(CodingKeys.id), score = Column(CodingKeys.score)
    }

    init(_ row: ItemRow) {
        id = row.id
        i0 = row.i0; i1 = row.i1; i2 = row.i2; i3 = row.i3; i4 = row.i4
        i5 = row.i5; i6 = row.i6; i7 = row.i7; i8 = row.i8; i9 = row.i9
        score = row.score
        name = row.name
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var checksum: Int {
        i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 &+ Int(score) &+ name.utf8.count
    }
}

/// GRDB 7 with a `Codable` struct record over a `DatabasePool` (WAL).
final class GRDBCodableLibrary: BenchLibrary {
    static let name = "grdb-codable"
    private let pool: DatabasePool
    private var held: [ItemCodable] = []

    private init(pool: DatabasePool) {
        self.pool = pool
    }

    static func create(at path: String, rows: [ItemRow]) async throws {
        try await RawLibrary.create(at: path, rows: rows)
    }

    static func open(at path: String) async throws -> GRDBCodableLibrary {
        GRDBCodableLibrary(pool: try DatabasePool(path: path))
    }

    func close() async throws {
        held = []
        try pool.close()
    }

    func insert(_ rows: [ItemRow]) async throws { try insertSync(rows) }
    func fetchAll() async throws -> Int { try fetchAllSync() }
    func query(minimumScore: Double, limit: Int) async throws -> Int { try querySync(minimumScore, limit) }
    func hold(limit: Int?) async throws { try holdSync(limit) }
    func updateHeld() async throws { try updateHeldSync() }
    func deleteHeld() async throws { try deleteHeldSync() }
    func saveOneChange(_ index: Int) async throws { try saveOneChangeSync(index) }
    func saveElsewhereUntilVisible() async throws -> Duration { try saveElsewhereSync() }
    func streamAll(batchSize: Int) async throws -> Int { try streamAllSync() }
    func importInUnits(total: Int, unit: Int) async throws { try importSync(total: total, unit: unit) }

    private func insertSync(_ rows: [ItemRow]) throws {
        try pool.write { db in
            for row in rows {
                var item = ItemCodable(row)
                try item.insert(db)
            }
        }
    }

    private func fetchAllSync() throws -> Int {
        let items = try pool.read { db in try ItemCodable.fetchAll(db) }
        return items.reduce(0) { $0 &+ $1.checksum }
    }

    private func querySync(_ minimumScore: Double, _ limit: Int) throws -> Int {
        let items = try pool.read { db in
            try ItemCodable.filter(ItemCodable.Columns.score >= minimumScore)
                .order(ItemCodable.Columns.score).limit(limit).fetchAll(db)
        }
        return items.reduce(0) { $0 &+ $1.checksum }
    }

    private func holdSync(_ limit: Int?) throws {
        held = try pool.read { db in
            try ItemCodable.order(ItemCodable.Columns.id).limit(limit ?? -1).fetchAll(db)
        }
    }

    private func updateHeldSync() throws {
        try pool.write { db in
            for index in held.indices {
                held[index].i1 += 1
                try held[index].update(db)
            }
        }
    }

    private func deleteHeldSync() throws {
        try pool.write { db in
            for item in held { try item.delete(db) }
        }
        held = []
    }

    private func saveOneChangeSync(_ index: Int) throws {
        held[index].i1 += 1
        let item = held[index]
        try pool.write { db in try item.update(db) }
    }

    /// Writes through the pool's writer, then re-reads on a reader connection.
    private func saveElsewhereSync() throws -> Duration {
        var changed = held
        for index in changed.indices { changed[index].i2 += 1 }
        let expected = changed.map(\.i2)
        let first = held.first?.id ?? 0, last = held.last?.id ?? 0
        let clock = ContinuousClock()
        let start = clock.now
        try pool.write { db in
            for item in changed { try item.update(db) }
        }
        held = try pool.read { db in
            try ItemCodable.filter(ItemCodable.Columns.id >= first && ItemCodable.Columns.id <= last)
                .order(ItemCodable.Columns.id).fetchAll(db)
        }
        let elapsed = clock.now - start
        guard held.map(\.i2) == expected else { throw RawError(message: "the re-read does not show the save") }
        return elapsed
    }

    private func streamAllSync() throws -> Int {
        try pool.read { db in
            var sum = 0
            let cursor = try ItemCodable.fetchCursor(db)
            while let item = try cursor.next() { sum &+= item.checksum }
            return sum
        }
    }

    private func importSync(total: Int, unit: Int) throws {
        var next = 1
        while next <= total {
            let count = min(unit, total - next + 1)
            try pool.write { db in
                for row in ItemRow.make(count, startingAt: next) {
                    var item = ItemCodable(row)
                    try item.insert(db)
                }
            }
            next += count
        }
    }
}
