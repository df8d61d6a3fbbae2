/// The in-memory store's answers to a write's reads, from its database under
/// the store's lock: the reference the SQL stores' executors are held to.
struct MemoryWriteExecutor: StoreWriteExecutor {
    typealias Failure = StrataError
    let store: MemoryStore
    let database: MemoryDatabase
    /// A batch delete's marked rows, by entity.
    let marks = Marks()

    /// Reference storage, so the executor's methods can mark rows as a SQL
    /// store's mark its scratch table.
    final class Marks {
        var keys: [Int: Set<Int64>] = [:]
    }

    var schema: Schema { database.schema }

    func readRows(entityIndex: Int, keys: [Int64], _ body: (StoredRow) -> Void) {
        for key in keys {
            guard let row = database.row(entityIndex, key) else { continue }
            body(StoredRow(primaryKey: key, version: row.version, values: row.values))
        }
    }

    func rowsHolding(entityIndex: Int, constraint: Int, columns: [Int], values: [StoredValue], _ body: (StoredRow) -> Void) {
        guard let key = database.holder(of: values, constraint: constraint, entityIndex: entityIndex) else { return }
        readRows(entityIndex: entityIndex, keys: [key], body)
    }
}

/// To-many writes on the in-memory store's positions and join pairs.
extension MemoryWriteExecutor {
    func setMemberPositions(entityIndex: Int, ordinal: Int, members: [Int64]) {
        guard case .foreignKey(let destination, let inverse)? = database.schema.toManyShape(entityIndex: entityIndex, ordinal: ordinal)
        else { return }
        for (position, member) in members.enumerated() {
            database.setPosition(Int64(position), entityIndex: destination, key: member, ordinal: inverse)
        }
    }

    func appendMember(entityIndex: Int, ordinal: Int, owner: Int64, member: Int64) {
        guard case .foreignKey(let destination, let inverse)? = database.schema.toManyShape(entityIndex: entityIndex, ordinal: ordinal)
        else { return }
        database.appendPosition(entityIndex: destination, key: member, ordinal: inverse)
    }

    func joinedMembers(entityIndex: Int, ordinal: Int, owner: Int64) -> Set<Int64> {
        guard let shape = database.schema.toManyShape(entityIndex: entityIndex, ordinal: ordinal) else { return [] }
        return Set(database.members(of: owner, shape: shape))
    }

    func removeJoinedMembers(entityIndex: Int, ordinal: Int, owner: Int64, members: [Int64]) {
        guard case .join(let join, let ownerIsSource, _)? = database.schema.toManyShape(entityIndex: entityIndex, ordinal: ordinal)
        else { return }
        for member in members { database.removePair(join, Self.pair(owner, member, ownerIsSource: ownerIsSource)) }
    }

    func setJoinedMembers(
        entityIndex: Int, ordinal: Int, owner: Int64, members: [Int64], stored: Set<Int64>
    ) throws(StrataError) {
        guard case .join(let join, let ownerIsSource, _)? = database.schema.toManyShape(entityIndex: entityIndex, ordinal: ordinal)
        else { return }
        for (position, member) in members.enumerated() {
            let pair = Self.pair(owner, member, ownerIsSource: ownerIsSource)
            var positions = database.pairs(join)?.pairs[pair]
                // A new pair goes last among the member's own owners.
                ?? .init(source: 0, target: 0).placingMember(
                    after: database.highestPosition(in: join, of: member, asTarget: ownerIsSource), asTarget: ownerIsSource)
            if ownerIsSource { positions.source = Int64(position) } else { positions.target = Int64(position) }
            try database.setPair(join, pair, positions)
        }
    }

    private static func pair(_ owner: Int64, _ member: Int64, ownerIsSource: Bool) -> MemoryDatabase.Join.Pair {
        ownerIsSource ? .init(source: owner, target: member) : .init(source: member, target: owner)
    }
}
