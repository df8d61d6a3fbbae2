import StrataCore
import GRDB

extension SQLiteStore {
    /// Writes to-many order and many-to-many membership inside the save's
    /// transaction, after row inserts and updates (so foreign keys and new keys
    /// exist) and before deletes (whose join rows then cascade away).
    ///
    /// Only owners the context changed are written. Each relationship touched is
    /// recorded in the change set, so merging contexts reload it, in order.
    func writeRelationships(_ request: SaveRequest, into result: inout SaveResult, in db: Database) throws {
        guard !request.toManyWrites.isEmpty || !request.toManyAppends.isEmpty else { return }
        let assignedKeys = result.assignedKeys
        func key(_ reference: RowReference) throws -> Int64 {
            switch reference {
            case .stored(let key): return key
            case .pending(let temporary):
                guard let key = assignedKeys[temporary] else {
                    throw StrataError(.validation, "A relationship holds an object that is not being saved")
                }
                return key
            }
        }
        var changes: [ChangeSet.ToManyChange] = []
        func record(_ entityIndex: Int, _ ordinal: Int, _ primaryKey: Int64) {
            // A to-many without an inverse has no other side to report.
            guard ordinal >= 0 else { return }
            let entity = schema.entities[entityIndex]
            changes.append(ChangeSet.ToManyChange(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: primaryKey),
                relationshipName: entity.properties[ordinal].name, entityIndex: entityIndex, ordinal: ordinal))
        }

        for write in request.toManyWrites {
            guard let storage = layout.relationships.toMany[write.entityIndex][write.ordinal] else { continue }
            let owner = try key(write.owner)
            let members = try write.members.map(key)
            record(write.entityIndex, write.ordinal, owner)
            switch storage {
            case .foreignKey(let storage):
                let statement = RawStatement(try db.cachedStatement(sql: storage.setPositionSQL), in: db)
                for (position, member) in members.enumerated() {
                    statement.reset()
                    try statement.bind(.integer(Int64(position)), at: 1)
                    try statement.bind(.integer(member), at: 2)
                    try statement.execute()
                }
            case .joinTable(let side):
                let stored = try memberKeys(of: owner, side: side, in: db)
                let kept = Set(members)
                let delete = RawStatement(try db.cachedStatement(sql: side.deleteSQL), in: db)
                for member in stored.sorted() where !kept.contains(member) {
                    delete.reset()
                    try delete.bind(.integer(owner), at: 1)
                    try delete.bind(.integer(member), at: 2)
                    try delete.execute()
                    record(side.destinationIndex, side.inverseOrdinal, member)
                }
                let upsert = RawStatement(try db.cachedStatement(sql: side.upsertSQL), in: db)
                for (position, member) in members.enumerated() {
                    upsert.reset()
                    try upsert.bind(.integer(owner), at: 1)
                    try upsert.bind(.integer(member), at: 2)
                    try upsert.bind(.integer(Int64(position)), at: 3)
                    try upsert.execute()
                    if !stored.contains(member) { record(side.destinationIndex, side.inverseOrdinal, member) }
                }
            }
        }

        for append in request.toManyAppends {
            guard case .foreignKey(let storage) = layout.relationships.toMany[append.entityIndex][append.ordinal] else {
                continue
            }
            let owner = try key(append.owner)
            let statement = RawStatement(try db.cachedStatement(sql: storage.appendSQL), in: db)
            statement.reset()
            try statement.bind(.integer(owner), at: 1)
            try statement.bind(.integer(try key(append.member)), at: 2)
            try statement.execute()
            record(append.entityIndex, append.ordinal, owner)
        }
        result.changes.toManyChanges += changes
    }

    /// The stored member keys of one owner's many-to-many side.
    private func memberKeys(of owner: Int64, side: RelationshipLayout.JoinSide, in db: Database) throws -> Set<Int64> {
        let statement = RawStatement(try db.cachedStatement(sql: side.membersSQL), in: db)
        statement.reset()
        defer { statement.reset() }
        try statement.bind(.integer(owner), at: 1)
        var keys: Set<Int64> = []
        while try statement.step() { keys.insert(statement.int64(at: 0)) }
        return keys
    }
}
