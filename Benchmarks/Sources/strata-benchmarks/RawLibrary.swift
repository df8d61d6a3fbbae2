/// The limit: the SQLite C API with prepared statements, one transaction per
/// unit of work, rows decoded by column index into plain structs.
final class RawLibrary: BenchLibrary {
    static let name = "raw"
    private let connection: RawConnection
    private let path: String
    private var held: [ItemRow] = []
    private lazy var queryStatement = try? connection.prepare(ItemSchema.query)
    private lazy var updateStatement = try? connection.prepare("UPDATE item SET i1 = ? WHERE id = ?")

    private init(path: String) throws {
        self.path = path
        self.connection = try RawConnection(path: path)
    }

    /// Also used by the GRDB and Fluent libraries: they share this schema.
    static func create(at path: String, rows: [ItemRow]) async throws {
        let connection = try RawConnection(path: path)
        defer { connection.close() }
        try connection.execute(ItemSchema.create)
        try insert(rows, into: connection)
    }

    static func open(at path: String) async throws -> RawLibrary {
        try RawLibrary(path: path)
    }

    func close() async throws {
        queryStatement = nil
        updateStatement = nil
        connection.close()
    }

    private static func insert(_ rows: [ItemRow], into connection: RawConnection) throws {
        let statement = try connection.prepare(ItemSchema.insert)
        try connection.transaction {
            for row in rows {
                statement.bind(row)
                _ = try statement.step()
                statement.reset()
            }
        }
    }

    func insert(_ rows: [ItemRow]) async throws {
        try Self.insert(rows, into: connection)
    }

    private func fetch(_ statement: RawStatement) throws -> [ItemRow] {
        var rows: [ItemRow] = []
        while try statement.step() { rows.append(statement.item()) }
        statement.reset()
        return rows
    }

    func fetchAll() async throws -> Int {
        let rows = try fetch(try connection.prepare(ItemSchema.selectAll))
        return rows.reduce(0) { $0 &+ $1.checksum }
    }

    func query(minimumScore: Double, limit: Int) async throws -> Int {
        guard let statement = queryStatement else { throw RawError(message: "cannot prepare the query") }
        statement.bind(minimumScore, at: 1)
        statement.bind(limit, at: 2)
        return try fetch(statement).reduce(0) { $0 &+ $1.checksum }
    }

    func hold(limit: Int?) async throws {
        let sql = ItemSchema.selectAll + " ORDER BY id" + (limit.map { " LIMIT \($0)" } ?? "")
        held = try fetch(try connection.prepare(sql))
    }

    func updateHeld() async throws {
        guard let statement = updateStatement else { throw RawError(message: "cannot prepare the update") }
        try connection.transaction {
            for index in held.indices {
                held[index].i1 += 1
                statement.bind(held[index].i1, at: 1)
                statement.bind(held[index].id, at: 2)
                _ = try statement.step()
                statement.reset()
            }
        }
    }

    func deleteHeld() async throws {
        let statement = try connection.prepare("DELETE FROM item WHERE id = ?")
        try connection.transaction {
            for row in held {
                statement.bind(row.id, at: 1)
                _ = try statement.step()
                statement.reset()
            }
        }
        held = []
    }

    func saveOneChange(_ index: Int) async throws {
        guard let statement = updateStatement else { throw RawError(message: "cannot prepare the update") }
        held[index].i1 += 1
        try connection.transaction {
            statement.bind(held[index].i1, at: 1)
            statement.bind(held[index].id, at: 2)
            _ = try statement.step()
            statement.reset()
        }
    }

    /// Another connection updates the held rows; this one re-reads them.
    func saveElsewhereUntilVisible() async throws -> Duration {
        let writer = try RawConnection(path: path)
        defer { writer.close() }
        let update = try writer.prepare("UPDATE item SET i2 = ? WHERE id = ?")
        let reread = try connection.prepare(ItemSchema.selectAll + " WHERE id BETWEEN ? AND ? ORDER BY id")
        let expected = held.map { $0.i2 + 1 }
        let elapsed = try await measure {
            try writer.transaction {
                for (row, value) in zip(held, expected) {
                    update.bind(value, at: 1)
                    update.bind(row.id, at: 2)
                    _ = try update.step()
                    update.reset()
                }
            }
            reread.bind(held.first?.id ?? 0, at: 1)
            reread.bind(held.last?.id ?? 0, at: 2)
            held = try fetch(reread)
        }
        guard held.map(\.i2) == expected else { throw RawError(message: "the re-read does not show the save") }
        return elapsed
    }

    func streamAll(batchSize: Int) async throws -> Int {
        let statement = try connection.prepare(ItemSchema.selectAll)
        var sum = 0
        while try statement.step() { sum &+= statement.item().checksum }
        return sum
    }

    func importInUnits(total: Int, unit: Int) async throws {
        let statement = try connection.prepare(ItemSchema.insert)
        var next = 1
        while next <= total {
            let count = min(unit, total - next + 1)
            try connection.transaction {
                for row in ItemRow.make(count, startingAt: next) {
                    statement.bind(row)
                    _ = try statement.step()
                    statement.reset()
                }
            }
            next += count
        }
    }
}
