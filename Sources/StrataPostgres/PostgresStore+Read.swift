import PostgresNIO
import StrataCore
import StrataSQL

/// A row of the PostgreSQL store as handed to a reader: the cells of
/// `pk, _version, columns…`, decoded once.
final class PostgresRowCursor: StoreRow {
    let propertyCount: Int
    private let columnOrdinals: [Int]
    // Written for every row read; only this cursor touches them, one access at
    // a time, so they are not checked for exclusivity at run time.
    @exclusivity(unchecked) private(set) var primaryKey: Int64 = 0
    @exclusivity(unchecked) private(set) var version: Int64 = 0
    @exclusivity(unchecked) private var values: ContiguousArray<StoredValue>

    init(_ entity: PostgresLayout.Entity) {
        propertyCount = entity.propertyCount
        columnOrdinals = entity.columnOrdinals
        values = ContiguousArray(repeating: .null, count: entity.propertyCount)
    }

    /// Reads a row whose cells start with the entity's select list.
    func move(to row: PostgresRow) throws(StrataError) {
        var cells = row.makeIterator()
        guard let key = cells.next(), let stored = cells.next(),
              let primaryKey = try PostgresSession.integer(key), let version = try PostgresSession.integer(stored) else {
            throw StrataError(.corruptStore, "PostgreSQL returned a row without its key or version")
        }
        self.primaryKey = primaryKey
        self.version = version
        for ordinal in columnOrdinals {
            guard let cell = cells.next() else { break }
            values[ordinal] = try PostgresSession.value(cell)
        }
    }

    func initializeValues(_ target: UnsafeMutablePointer<StoredValue>) {
        values.withUnsafeBufferPointer { target.initialize(from: $0.baseAddress!, count: propertyCount) }
    }
}

extension PostgresStore {
    /// Runs a query whose cells start with an entity's select list; one call of `body` per row.
    func readRows(
        entityIndex: Int, sql: String, arguments: [PostgresArgument], in session: PostgresSession? = nil,
        _ body: (PostgresRowCursor, PostgresRow) throws -> Void
    ) throws(StrataError) {
        let rows = if let session { try session.rows(sql, arguments: arguments) } else {
            try pool.withSession { session throws(StrataError) in try session.rows(sql, arguments: arguments) }
        }
        let cursor = PostgresRowCursor(layout.entities[entityIndex])
        for row in rows {
            try cursor.move(to: row)
            do {
                try body(cursor, row)
            } catch let error as StrataError {
                throw error
            } catch {
                throw StrataError(.postgres, "Reading a row failed: \(error)")
            }
        }
    }

    /// The first cell of each row, as integers.
    func integers(_ sql: String, _ arguments: [StoredValue], in session: PostgresSession? = nil) throws(StrataError) -> [Int64] {
        let rows = if let session { try session.rows(sql, arguments) } else {
            try pool.withSession { session throws(StrataError) in try session.rows(sql, arguments) }
        }
        var values: [Int64] = []
        values.reserveCapacity(rows.count)
        for row in rows {
            guard let cell = row.first else { continue }
            values.append(try PostgresSession.integer(cell) ?? 0)
        }
        return values
    }

    /// Evaluates a page's condition on every row first when it can fail.
    func checkEveryRow(_ select: SQLSelect) throws(StrataError) {
        if let check = select.checkSQL { _ = try integers(check, select.whereArguments) }
    }

    func fetchRows(_ plan: FetchPlan, _ body: (any StoreRow) throws -> Void) throws(StrataError) {
        let select = try select(plan)
        try checkEveryRow(select)
        try readRows(
            entityIndex: plan.entityIndex, sql: select.sql(columns: layout.entities[plan.entityIndex].selectList),
            arguments: select.arguments.map(PostgresArgument.value)) { cursor, _ in try body(cursor) }
    }

    func fetchKeys(_ plan: FetchPlan) throws(StrataError) -> [Int64] {
        let select = try select(plan)
        try checkEveryRow(select)
        return try integers(select.sql(columns: "t0.pk"), select.arguments)
    }

    func count(_ plan: FetchPlan) throws(StrataError) -> Int {
        let select = try select(plan)
        try checkEveryRow(select)
        let count = select.count
        return Int(try integers(count.sql, count.arguments).first ?? 0)
    }

    func fetchValues(
        _ plan: FetchPlan, columns: [StoreExpression], _ body: (StoreValueRow) throws -> Void
    ) throws(StrataError) {
        // The columns' values are bound first, the select's own after them.
        var renderer = PostgresQueryRenderer(layout: layout)
        let list = try columns.map { column throws(StrataError) in try renderer.value(column).sql }
        let select = try select(plan, leading: renderer.arguments)
        if select.checksEveryRow { try checkEveryRow(try self.select(plan)) }
        let rows = try pool.withSession { session throws(StrataError) in
            try session.rows(select.sql(columns: (["t0.pk"] + list).joined(separator: ", ")), select.arguments)
        }
        let buffer = StoreValueBuffer(count: columns.count)
        do {
            for row in rows {
                var cells = row.makeIterator()
                guard let key = cells.next() else { continue }
                for column in 0..<columns.count {
                    buffer.set(column, try cells.next().map { cell throws(StrataError) in try PostgresSession.value(cell) } ?? .null)
                }
                try buffer.row(primaryKey: try PostgresSession.integer(key) ?? 0, body)
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.postgres, "Reading a row failed: \(error)")
        }
    }

    func fetchRow(entityIndex: Int, primaryKey: Int64) throws(StrataError) -> StoredRow? {
        let entity = layout.entities[entityIndex]
        var found: StoredRow?
        try readRows(
            entityIndex: entityIndex, sql: "SELECT \(entity.selectList) FROM \(entity.table) AS t0 WHERE t0.pk = $1",
            arguments: [.integer(primaryKey)]) { cursor, _ in found = cursor.stored() }
        return found
    }

    func fetchRows(entityIndex: Int, primaryKeys: [Int64], _ body: (any StoreRow) throws -> Void) throws(StrataError) {
        try fetchRows(entityIndex: entityIndex, primaryKeys: primaryKeys, in: nil) { cursor, _ in try body(cursor) }
    }

    /// The rows with these keys, in key order.
    func fetchRows(
        entityIndex: Int, primaryKeys: [Int64], in session: PostgresSession?, _ body: (PostgresRowCursor, PostgresRow) throws -> Void
    ) throws(StrataError) {
        guard !primaryKeys.isEmpty else { return }
        let entity = layout.entities[entityIndex]
        try readRows(
            entityIndex: entityIndex,
            sql: "SELECT \(entity.selectList) FROM \(entity.table) AS t0 WHERE t0.pk = ANY($1) ORDER BY t0.pk",
            arguments: [.keys(primaryKeys)], in: session, body)
    }

    func fetchRows(entityIndex: Int, keyRange: ClosedRange<Int64>, _ body: (any StoreRow) throws -> Void) throws(StrataError) {
        let entity = layout.entities[entityIndex]
        try readRows(
            entityIndex: entityIndex,
            sql: "SELECT \(entity.selectList) FROM \(entity.table) AS t0 WHERE t0.pk BETWEEN $1 AND $2 ORDER BY t0.pk",
            arguments: [.integer(keyRange.lowerBound), .integer(keyRange.upperBound)]) { cursor, _ in try body(cursor) }
    }

    func fetchMembers(entityIndex: Int, ordinal: Int, owner: Int64, _ body: (any StoreRow) throws -> Void) throws(StrataError) {
        guard let (sql, destinationIndex) = membersSQL(entityIndex: entityIndex, ordinal: ordinal, many: false) else { return }
        try readRows(entityIndex: destinationIndex, sql: sql, arguments: [.integer(owner)]) { cursor, _ in try body(cursor) }
    }

    func fetchMembers(
        entityIndex: Int, ordinal: Int, owners: [Int64], everyOwner: Bool,
        _ body: (_ owner: Int64, _ position: MemberPosition, any StoreRow) throws -> Void
    ) throws(StrataError) {
        guard !owners.isEmpty,
              let (sql, destinationIndex) = membersSQL(entityIndex: entityIndex, ordinal: ordinal, many: true) else { return }
        let ownerColumn = layout.entities[destinationIndex].columnOrdinals.count + 2
        try readRows(entityIndex: destinationIndex, sql: sql, arguments: [.keys(owners)]) { cursor, row in
            var cells = row.makeIterator()
            for _ in 0..<ownerColumn { _ = cells.next() }
            guard let cell = cells.next(), let owner = try PostgresSession.integer(cell) else { return }
            try body(owner, .next, cursor)
        }
    }

    /// The members of one owner (`$1` a key) or of many (`$1` an array of
    /// keys, the owner's key after the row), in their stored order.
    private func membersSQL(entityIndex: Int, ordinal: Int, many: Bool) -> (String, Int)? {
        switch layout.toMany[entityIndex][ordinal] {
        case .foreignKey(let destinationIndex, let foreignKey, let position)?:
            let destination = layout.entities[destinationIndex]
            let sql = many
                ? "SELECT \(destination.selectList), t0.\(foreignKey) FROM \(destination.table) AS t0 WHERE t0.\(foreignKey) = ANY($1) "
                    + "ORDER BY t0.\(foreignKey), t0.\(position) NULLS FIRST, t0.pk"
                : "SELECT \(destination.selectList) FROM \(destination.table) AS t0 WHERE t0.\(foreignKey) = $1 "
                    + "ORDER BY t0.\(position) NULLS FIRST, t0.pk"
            return (sql, destinationIndex)
        case .joinTable(let destinationIndex, _, let join)?:
            let destination = layout.entities[destinationIndex]
            let from = "\(join.table) AS j JOIN \(destination.table) AS t0 ON t0.pk = j.\(join.member)"
            let sql = many
                ? "SELECT \(destination.selectList), j.\(join.owner) FROM \(from) WHERE j.\(join.owner) = ANY($1) "
                    + "ORDER BY j.\(join.owner), j.\(join.ownerPosition), j.\(join.member)"
                : "SELECT \(destination.selectList) FROM \(from) WHERE j.\(join.owner) = $1 ORDER BY j.\(join.ownerPosition), j.\(join.member)"
            return (sql, destinationIndex)
        case nil:
            return nil
        }
    }
}
