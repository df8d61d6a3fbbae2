import StrataCore
import GRDB

/// To-many writes on the SQLite store: each through the statement its layout
/// caches for the relationship, one row at a time.
extension SQLiteWriteExecutor {
    func setMemberPositions(entityIndex: Int, ordinal: Int, members: [Int64]) throws {
        guard case .foreignKey(let storage)? = store.layout.relationships.toMany[entityIndex][ordinal] else { return }
        let statement = RawStatement(try db.cachedStatement(sql: storage.setPositionSQL), in: db)
        for (position, member) in members.enumerated() {
            try run(statement, [.integer(Int64(position)), .integer(member)])
        }
    }

    func appendMember(entityIndex: Int, ordinal: Int, owner: Int64, member: Int64) throws {
        guard case .foreignKey(let storage)? = store.layout.relationships.toMany[entityIndex][ordinal] else { return }
        try run(RawStatement(try db.cachedStatement(sql: storage.appendSQL), in: db), [.integer(owner), .integer(member)])
    }

    func joinedMembers(entityIndex: Int, ordinal: Int, owner: Int64) throws -> Set<Int64> {
        guard case .joinTable(let side)? = store.layout.relationships.toMany[entityIndex][ordinal] else { return [] }
        let statement = RawStatement(try db.cachedStatement(sql: side.membersSQL), in: db)
        statement.reset()
        defer { statement.reset() }
        try statement.bind(.integer(owner), at: 1)
        var keys: Set<Int64> = []
        while try statement.step() { keys.insert(statement.int64(at: 0)) }
        return keys
    }

    func removeJoinedMembers(entityIndex: Int, ordinal: Int, owner: Int64, members: [Int64]) throws {
        guard case .joinTable(let side)? = store.layout.relationships.toMany[entityIndex][ordinal] else { return }
        let statement = RawStatement(try db.cachedStatement(sql: side.deleteSQL), in: db)
        for member in members { try run(statement, [.integer(owner), .integer(member)]) }
    }

    func setJoinedMembers(entityIndex: Int, ordinal: Int, owner: Int64, members: [Int64], stored: Set<Int64>) throws {
        guard case .joinTable(let side)? = store.layout.relationships.toMany[entityIndex][ordinal] else { return }
        let statement = RawStatement(try db.cachedStatement(sql: side.upsertSQL), in: db)
        for (position, member) in members.enumerated() {
            try run(statement, [.integer(owner), .integer(member), .integer(Int64(position))])
        }
    }

    /// Runs a cached statement once with these values.
    private func run(_ statement: RawStatement, _ values: [StoredValue]) throws {
        statement.reset()
        for (index, value) in values.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
        try statement.execute()
    }
}
