import GRDB

/// The benchmark entity as GRDB at its fastest: a hand-written
/// `FetchableRecord` struct that reads columns by position, and cached
/// statements with positional arguments for every query and write — the
/// techniques GRDB's performance guide recommends.
struct ItemRowRecord: FetchableRecord {
    var row: ItemRow

    init(row: Row) {
        self.row = ItemRow(
            id: row[0], i0: row[1], i1: row[2], i2: row[3], i3: row[4], i4: row[5], i5: row[6], i6: row[7],
            i7: row[8], i8: row[9], i9: row[10], score: row[11], name: row[12])
    }
}

/// GRDB 7 with `ItemRowRecord` and cached statements over a `DatabasePool` (WAL).
final class GRDBRowLibrary: BenchLibrary {
    static let name = "grdb-row"
    private let pool: DatabasePool
    private var held: [ItemRow] = []

    private init(pool: DatabasePool) {
        self.pool = pool
    }

    static func create(at path: String, rows: [ItemRow]) async throws {
        try await RawLibrary.create(at: path, rows: rows)
    }

    static func open(at path: String) async throws -> GRDBRowLibrary {
        GRDBRowLibrary(pool: try DatabasePool(path: path))
    }

    func close() async throws {
        held = []
        try pool.close()
    }

    func insert(_ rows: [ItemRow]) async throws { try insertSync(rows, in: pool) }
    func fetchAll() async throws -> Int { try fetchAllSync() }
    func query(minimumScore: Double, limit: Int) async throws -> Int { try querySync(minimumScore, limit) }
    func hold(limit: Int?) async throws { try holdSync(limit) }
    func updateHeld() async throws { try updateHeldSync() }
    func deleteHeld() async throws { try deleteHeldSync() }
    func saveOneChange(_ index: Int) async throws { try saveOneChangeSync(index) }
    func saveElsewhereUntilVisible() async throws -> Duration { try saveElsewhereSync() }
    func streamAll(batchSize: Int) async throws -> Int { try streamAllSync() }
    func importInUnits(total: Int, unit: Int) async throws { try importSync(total: total, unit: unit) }

    private func insertSync(_ rows: [ItemRow], in pool: DatabasePool) throws {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: ItemSchema.insert)
            for row in rows {
                try statement.execute(arguments: [
                    row.id, row.i0, row.i1, row.i2, row.i3, row.i4, row.i5, row.i6, row.i7, row.i8, row.i9, row.score, row.name,
                ])
            }
        }
    }

    private func fetchAllSync() throws -> Int {
        let items = try pool.read { db in
            try ItemRowRecord.fetchAll(db.cachedStatement(sql: ItemSchema.selectAll))
        }
        return items.reduce(0) { $0 &+ $1.row.checksum }
    }

    private func querySync(_ minimumScore: Double, _ limit: Int) throws -> Int {
        let items = try pool.read { db in
            try ItemRowRecord.fetchAll(db.cachedStatement(sql: ItemSchema.query), arguments: [minimumScore, limit])
        }
        return items.reduce(0) { $0 &+ $1.row.checksum }
    }

    private func holdSync(_ limit: Int?) throws {
        held = try pool.read { db in
            try ItemRowRecord.fetchAll(
                db.cachedStatement(sql: ItemSchema.selectAll + " ORDER BY id LIMIT ?"), arguments: [limit ?? -1])
        }.map(\.row)
    }

    private func updateHeldSync() throws {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE item SET i1 = ? WHERE id = ?")
            for index in held.indices {
                held[index].i1 += 1
                try statement.execute(arguments: [held[index].i1, held[index].id])
            }
        }
    }

    private func deleteHeldSync() throws {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?")
            for row in held { try statement.execute(arguments: [row.id]) }
        }
        held = []
    }

    private func saveOneChangeSync(_ index: Int) throws {
        held[index].i1 += 1
        let row = held[index]
        try pool.write { db in
            try db.cachedStatement(sql: "UPDATE item SET i1 = ? WHERE id = ?").execute(arguments: [row.i1, row.id])
        }
    }

    /// Writes through the pool's writer, then re-reads on a reader connection.
    private func saveElsewhereSync() throws -> Duration {
        let expected = held.map { $0.i2 + 1 }
        let first = held.first?.id ?? 0, last = held.last?.id ?? 0
        let clock = ContinuousClock()
        let start = clock.now
        try pool.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE item SET i2 = ? WHERE id = ?")
            for (row, value) in zip(held, expected) { try statement.execute(arguments: [value, row.id]) }
        }
        held = try pool.read { db in
            try ItemRowRecord.fetchAll(
                db.cachedStatement(sql: ItemSchema.selectAll + " WHERE id BETWEEN ? AND ? ORDER BY id"), arguments: [first, last])
        }.map(\.row)
        let elapsed = clock.now - start
        guard held.map(\.i2) == expected else { throw RawError(message: "the re-read does not show the save") }
        return elapsed
    }

    private func streamAllSync() throws -> Int {
        try pool.read { db in
            var sum = 0
            let cursor = try ItemRowRecord.fetchCursor(db.cachedStatement(sql: ItemSchema.selectAll))
            while let item = try cursor.next() { sum &+= item.row.checksum }
            return sum
        }
    }

    private func importSync(total: Int, unit: Int) throws {
        var next = 1
        while next <= total {
            let count = min(unit, total - next + 1)
            try insertSync(ItemRow.make(count, startingAt: next), in: pool)
            next += count
        }
    }
}
