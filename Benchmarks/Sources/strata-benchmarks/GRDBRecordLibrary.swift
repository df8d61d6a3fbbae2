import GRDB

/// The benchmark entity as a GRDB `Record` subclass, written as GRDB users
/// write one: columns by name, change tracking through `updateChanges`.
final class ItemRecord: Record {
    var id: Int64?
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int
    var score: Double
    var name: String

    enum Columns {
        static let id = Column("id"), score = Column("score"), name = Column("name")
        static let i0 = Column("i0"), i1 = Column("i1"), i2 = Column("i2"), i3 = Column("i3"), i4 = Column("i4")
        static let i5 = Column("i5"), i6 = Column("i6"), i7 = Column("i7"), i8 = Column("i8"), i9 = Column("i9")
    }

    override class var databaseTableName: String { ItemSchema.table }

    init(_ row: ItemRow) {
        id = row.id
        i0 = row.i0; i1 = row.i1; i2 = row.i2; i3 = row.i3; i4 = row.i4
        i5 = row.i5; i6 = row.i6; i7 = row.i7; i8 = row.i8; i9 = row.i9
        score = row.score
        name = row.name
        super.init()
    }

    required init(row: Row) throws {
        id = row[Columns.id]
        i0 = row[Columns.i0]; i1 = row[Columns.i1]; i2 = row[Columns.i2]; i3 = row[Columns.i3]; i4 = row[Columns.i4]
        i5 = row[Columns.i5]; i6 = row[Columns.i6]; i7 = row[Columns.i7]; i8 = row[Columns.i8]; i9 = row[Columns.i9]
        score = row[Columns.score]
        name = row[Columns.name]
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id
        container[Columns.i0] = i0; container[Columns.i1] = i1; container[Columns.i2] = i2
        container[Columns.i3] = i3; container[Columns.i4] = i4; container[Columns.i5] = i5
        container[Columns.i6] = i6; container[Columns.i7] = i7; container[Columns.i8] = i8
        container[Columns.i9] = i9
        container[Columns.score] = score
        container[Columns.name] = name
    }

    override func didInsert(_ inserted: InsertionSuccess) {
        super.didInsert(inserted)
        id = inserted.rowID
    }

    var checksum: Int {
        i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 &+ Int(score) &+ name.utf8.count
    }
}

/// GRDB 7 with `Record` subclasses over a `DatabasePool` (WAL).
///
/// The GRDB calls live in synchronous methods: in an `async` function Swift
/// would pick GRDB's `async` overloads, which hop to GRDB's own queues.
final class GRDBRecordLibrary: BenchLibrary {
    static let name = "grdb-record"
    private let pool: DatabasePool
    private var held: [ItemRecord] = []

    private init(pool: DatabasePool) {
        self.pool = pool
    }

    static func create(at path: String, rows: [ItemRow]) async throws {
        try await RawLibrary.create(at: path, rows: rows)
    }

    static func open(at path: String) async throws -> GRDBRecordLibrary {
        GRDBRecordLibrary(pool: try DatabasePool(path: path))
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
            for row in rows { try ItemRecord(row).insert(db) }
        }
    }

    private func fetchAllSync() throws -> Int {
        let records = try pool.read { db in try ItemRecord.fetchAll(db) }
        return records.reduce(0) { $0 &+ $1.checksum }
    }

    private func querySync(_ minimumScore: Double, _ limit: Int) throws -> Int {
        let records = try pool.read { db in
            try ItemRecord.filter(ItemRecord.Columns.score >= minimumScore)
                .order(ItemRecord.Columns.score).limit(limit).fetchAll(db)
        }
        return records.reduce(0) { $0 &+ $1.checksum }
    }

    private func holdSync(_ limit: Int?) throws {
        held = try pool.read { db in
            try ItemRecord.order(ItemRecord.Columns.id).limit(limit ?? -1).fetchAll(db)
        }
    }

    private func updateHeldSync() throws {
        try pool.write { db in
            for record in held {
                record.i1 += 1
                try record.updateChanges(db)
            }
        }
    }

    private func deleteHeldSync() throws {
        try pool.write { db in
            for record in held { try record.delete(db) }
        }
        held = []
    }

    private func saveOneChangeSync(_ index: Int) throws {
        let record = held[index]
        record.i1 += 1
        _ = try pool.write { db in try record.updateChanges(db) }
    }

    /// Writes through the pool's writer, then re-reads on a reader connection.
    private func saveElsewhereSync() throws -> Duration {
        let changed = held
        for record in changed { record.i2 += 1 }
        let expected = changed.map { $0.i2 }
        let first = held.first?.id ?? 0, last = held.last?.id ?? 0
        let clock = ContinuousClock()
        let start = clock.now
        try pool.write { db in
            for record in changed { try record.updateChanges(db) }
        }
        held = try pool.read { db in
            try ItemRecord.filter(ItemRecord.Columns.id >= first && ItemRecord.Columns.id <= last)
                .order(ItemRecord.Columns.id).fetchAll(db)
        }
        let elapsed = clock.now - start
        guard held.map({ $0.i2 }) == expected else { throw RawError(message: "the re-read does not show the save") }
        return elapsed
    }

    private func streamAllSync() throws -> Int {
        try pool.read { db in
            var sum = 0
            let cursor = try ItemRecord.fetchCursor(db)
            while let record = try cursor.next() { sum &+= record.checksum }
            return sum
        }
    }

    private func importSync(total: Int, unit: Int) throws {
        var next = 1
        while next <= total {
            let count = min(unit, total - next + 1)
            try pool.write { db in
                for row in ItemRow.make(count, startingAt: next) { try ItemRecord(row).insert(db) }
            }
            next += count
        }
    }
}
