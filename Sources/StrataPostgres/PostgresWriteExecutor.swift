import StrataCore

/// The PostgreSQL store's answers to a write's reads, in the write's session,
/// under the write lock: no other server's save slips in between the checks
/// and the writes.
struct PostgresWriteExecutor: StoreWriteExecutor {
    let store: PostgresStore
    let session: PostgresSession

    var schema: Schema { store.schema }

    func readRows(entityIndex: Int, keys: [Int64], _ body: (StoredRow) -> Void) throws(StrataError) {
        try store.fetchRows(entityIndex: entityIndex, primaryKeys: keys, in: session) { cursor, _ in body(cursor.stored()) }
    }

    func rowsHolding(
        entityIndex: Int, constraint: Int, columns: [Int], values: [StoredValue], _ body: (StoredRow) -> Void
    ) throws(StrataError) {
        let table = store.layout.entities[entityIndex]
        let condition = columns.enumerated().map { "t0.\(table.columns[$0.element]) = $\($0.offset + 1)" }
            .joined(separator: " AND ")
        try store.readRows(
            entityIndex: entityIndex, sql: "SELECT \(table.selectList) FROM \(table.table) AS t0 WHERE \(condition)",
            arguments: values.map(PostgresArgument.value), in: session) { cursor, _ in body(cursor.stored()) }
    }

    /// Cheap first: the versions alone; whole rows only for the stale ones.
    func staleRows(entityIndex: Int, expected: [(primaryKey: Int64, version: Int64)]) throws(StrataError) -> [RowConflict] {
        let entity = store.layout.entities[entityIndex]
        let versions = Dictionary(expected.map { ($0.primaryKey, $0.version) }, uniquingKeysWith: { _, last in last })
        var stale: [Int64] = []
        var found: Set<Int64> = []
        let current = try session.rows(
            "SELECT pk, \(StorageNaming.versionColumn) FROM \(entity.table) WHERE pk = ANY($1)",
            arguments: [.keys(expected.map(\.primaryKey))])
        for (key, version) in try PostgresSession.integerPairs(current) {
            found.insert(key)
            if versions[key] != version { stale.append(key) }
        }
        var rows: [Int64: StoredRow] = [:]
        try readRows(entityIndex: entityIndex, keys: stale) { rows[$0.primaryKey] = $0 }
        return expected.compactMap { key, _ in
            guard !found.contains(key) || rows[key] != nil else { return nil }
            return RowConflict(entityIndex: entityIndex, primaryKey: key, stored: rows[key])
        }
    }
}

/// To-many writes on the PostgreSQL store: one statement each, with the
/// members bound as arrays.
extension PostgresWriteExecutor {
    func setMemberPositions(entityIndex: Int, ordinal: Int, members: [Int64]) throws(StrataError) {
        guard case .foreignKey(let destinationIndex, _, let position)? = store.layout.toMany[entityIndex][ordinal] else { return }
        try session.execute("""
            UPDATE \(store.layout.entities[destinationIndex].table) AS d SET \(position) = v.position
            FROM unnest($1::bigint[], $2::bigint[]) AS v(pk, position)
            WHERE d.pk = v.pk AND d.\(position) IS DISTINCT FROM v.position
            """, arguments: [.keys(members), .keys(members.indices.map(Int64.init))])
    }

    func appendMember(entityIndex: Int, ordinal: Int, owner: Int64, member: Int64) throws(StrataError) {
        guard case .foreignKey(let destinationIndex, let foreignKey, let position)? = store.layout.toMany[entityIndex][ordinal]
        else { return }
        let table = store.layout.entities[destinationIndex].table
        try session.execute("""
            UPDATE \(table) SET \(position) = (SELECT COALESCE(MAX(x.\(position)) + 1, 0) FROM \(table) AS x
            WHERE x.\(foreignKey) = $1 AND x.pk <> $2) WHERE pk = $2
            """, [.integer(owner), .integer(member)])
    }

    func joinedMembers(entityIndex: Int, ordinal: Int, owner: Int64) throws(StrataError) -> Set<Int64> {
        guard case .joinTable(_, _, let join)? = store.layout.toMany[entityIndex][ordinal] else { return [] }
        return Set(try store.integers(
            "SELECT \(join.member) FROM \(join.table) WHERE \(join.owner) = $1", [.integer(owner)], in: session))
    }

    func removeJoinedMembers(entityIndex: Int, ordinal: Int, owner: Int64, members: [Int64]) throws(StrataError) {
        guard case .joinTable(_, _, let join)? = store.layout.toMany[entityIndex][ordinal] else { return }
        try session.execute(
            "DELETE FROM \(join.table) WHERE \(join.owner) = $1 AND \(join.member) = ANY($2)",
            arguments: [.integer(owner), .keys(members)])
    }

    func setJoinedMembers(entityIndex: Int, ordinal: Int, owner: Int64, members: [Int64], stored: Set<Int64>) throws(StrataError) {
        guard case .joinTable(_, _, let join)? = store.layout.toMany[entityIndex][ordinal] else { return }
        try session.execute("""
            INSERT INTO \(join.table) AS j (\(join.owner), \(join.member), \(join.ownerPosition), \(join.memberPosition))
            SELECT $1, v.member, v.position,
                COALESCE((SELECT MAX(x.\(join.memberPosition)) + 1 FROM \(join.table) AS x WHERE x.\(join.member) = v.member), 0)
            FROM unnest($2::bigint[], $3::bigint[]) AS v(member, position)
            ON CONFLICT ("source", "target") DO UPDATE SET \(join.ownerPosition) = excluded.\(join.ownerPosition)
            WHERE j.\(join.ownerPosition) IS DISTINCT FROM excluded.\(join.ownerPosition)
            """, arguments: [.integer(owner), .keys(members), .keys(members.indices.map(Int64.init))])
    }
}
