import StrataCore
import StrataSQL
import GRDB

/// A stored row under a statement's cursor: key, version and values in
/// column order, decoded by property ordinal on request. One per query, moved
/// from row to row as the statement steps.
final class RowCursor: StoreRow {
    let statement: RawStatement
    let plan: DecodePlan

    init(statement: RawStatement, plan: DecodePlan) {
        self.statement = statement
        self.plan = plan
    }

    var propertyCount: Int { plan.propertyCount }
    var primaryKey: Int64 { statement.int64(at: 0) }
    var version: Int64 { statement.int64(at: 1) }

    /// The value of column `index` (0-based, in the entity's column order).
    func value(atColumn index: Int) -> StoredValue {
        statement.value(at: Int32(index + 2))
    }

    /// Writes the row's values, indexed by property ordinal, into
    /// uninitialised memory for `plan.propertyCount` values.
    func initializeValues(_ target: UnsafeMutablePointer<StoredValue>) {
        let statement = statement
        let plan = plan
        if plan.columnsAreOrdinals {
            // Columns 0..<n are ordinals 0..<n: fill in one pass.
            for column in 0..<plan.propertyCount {
                (target + column).initialize(to: statement.value(at: Int32(column + 2)))
            }
            return
        }
        target.initialize(repeating: .null, count: plan.propertyCount)
        for (column, ordinal) in plan.columnOrdinals.enumerated() {
            target[ordinal] = statement.value(at: Int32(column + 2))
        }
    }
}

/// Where each column of an entity's rows goes among an object's values.
struct DecodePlan: Sendable {
    let columnOrdinals: [Int]
    let propertyCount: Int
    /// Every property has a column, in ordinal order (no to-many relationships).
    let columnsAreOrdinals: Bool

    init(entity: EntityDescription) {
        columnOrdinals = entity.columnOrdinals
        propertyCount = entity.properties.count
        columnsAreOrdinals = columnOrdinals.count == propertyCount && columnOrdinals.elementsEqual(0..<propertyCount)
    }
}

extension SQLiteStore {
    /// Runs a query whose result columns start with the entity's select list and
    /// hands each row to `body`, on a reader connection.
    ///
    /// One statement reads one consistent snapshot of the store by itself, so
    /// the single-statement reads here skip the `BEGIN`/`COMMIT` pair a
    /// transaction would add to every fetch.
    func fetchRows(
        entityIndex: Int, sql: String, arguments: [StoredValue], _ body: (RowCursor) throws -> Void
    ) throws(StrataError) {
        do {
            try writer.unsafeRead { db in
                try forEachRow(entityIndex: entityIndex, sql: sql, arguments: arguments, in: db, body)
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Runs a query returning one integer column per row (keys, counts).
    func fetchIntegers(sql: String, arguments: [StoredValue]) throws(StrataError) -> [Int64] {
        do {
            return try writer.unsafeRead { db in try integers(sql, arguments, in: db) }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Fails as the whole result would when a page's condition fails for a
    /// row outside the page.
    private func checkEveryRow(_ select: SQLSelect) throws(StrataError) {
        guard let sql = select.checkSQL else { return }
        _ = try fetchIntegers(sql: sql, arguments: select.whereArguments)
    }

    func fetchRows(_ plan: FetchPlan, _ body: (any StoreRow) throws -> Void) throws(StrataError) {
        let select = select(plan)
        try checkEveryRow(select)
        try fetchRows(entityIndex: plan.entityIndex, sql: select.sql(columns: layout.entities[plan.entityIndex].selectList), arguments: select.arguments, body)
    }

    func fetchValues(
        _ plan: FetchPlan, columns: [StoreExpression], _ body: (StoreValueRow) throws -> Void
    ) throws(StrataError) {
        let select = select(plan)
        try checkEveryRow(select)
        var renderer = SQLiteQueryRenderer(schema: schema, layout: layout)
        let rendered = columns.map { renderer.value($0).fragment }
        // The columns' bound values come first, as they come first in the SQL.
        let sql = select.sql(columns: (["t0.pk"] + rendered.map(\.sql)).joined(separator: ", "))
        let arguments = rendered.flatMap(\.arguments) + select.arguments
        do {
            try writer.unsafeRead { db in
                let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
                statement.reset()
                defer { statement.reset() }
                try statement.bind(arguments)
                let buffer = StoreValueBuffer(count: columns.count)
                try db.holdingConnectionMutex {
                    while try statement.step() {
                        for column in 0..<columns.count { buffer.set(column, statement.value(at: Int32(column + 1))) }
                        try buffer.row(primaryKey: statement.int64(at: 0), body)
                    }
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The first `columns` values of every row a statement returns, on a reader
    /// connection; errors are SQLite's, for the caller to translate.
    func valueRows(sql: String, arguments: [StoredValue], columns: Int) throws -> [[StoredValue]] {
        try writer.unsafeRead { db in
            let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
            statement.reset()
            defer { statement.reset() }
            try statement.bind(arguments)
            var rows: [[StoredValue]] = []
            try db.holdingConnectionMutex {
                while try statement.step() {
                    rows.append((0..<Int32(columns)).map { statement.value(at: $0) })
                }
            }
            return rows
        }
    }

    func fetchKeys(_ plan: FetchPlan) throws(StrataError) -> [Int64] {
        let select = select(plan)
        try checkEveryRow(select)
        return try fetchIntegers(sql: select.sql(columns: "t0.pk"), arguments: select.arguments)
    }

    func count(_ plan: FetchPlan) throws(StrataError) -> Int {
        let select = select(plan)
        try checkEveryRow(select)
        return Int(try fetchIntegers(sql: select.count.sql, arguments: select.count.arguments).first ?? 0)
    }

    func fetchRow(entityIndex: Int, primaryKey: Int64) throws(StrataError) -> StoredRow? {
        var found: StoredRow?
        try fetchRows(entityIndex: entityIndex, sql: layout.entities[entityIndex].selectByKeySQL,
                      arguments: [.integer(primaryKey)]) { row in
            found = row.stored()
        }
        return found
    }

    func fetchRows(
        entityIndex: Int, primaryKeys: [Int64], _ body: (any StoreRow) throws -> Void
    ) throws(StrataError) {
        do {
            try writer.read { db in
                try forEachRow(entityIndex: entityIndex, primaryKeys: primaryKeys, in: db, body)
            }
        } catch {
            throw Self.translate(error)
        }
    }

    func fetchRows(
        entityIndex: Int, keyRange: ClosedRange<Int64>, _ body: (any StoreRow) throws -> Void
    ) throws(StrataError) {
        try fetchRows(
            entityIndex: entityIndex, sql: layout.entities[entityIndex].selectByKeyRangeSQL,
            arguments: [.integer(keyRange.lowerBound), .integer(keyRange.upperBound)], body)
    }

    func fetchMembers(
        entityIndex: Int, ordinal: Int, owner: Int64, _ body: (any StoreRow) throws -> Void
    ) throws(StrataError) {
        guard let storage = layout.relationships.toMany[entityIndex][ordinal] else { return }
        try fetchRows(entityIndex: storage.destinationIndex, sql: storage.loadSQL, arguments: [.integer(owner)], body)
    }

    func fetchMembers(
        entityIndex: Int, ordinal: Int, owners: [Int64], everyOwner: Bool,
        _ body: (_ owner: Int64, _ position: MemberPosition, any StoreRow) throws -> Void
    ) throws(StrataError) {
        guard let storage = layout.relationships.toMany[entityIndex][ordinal], !owners.isEmpty else { return }
        let destination = storage.destinationIndex
        // The owner's key follows the destination's select list: pk, version, then its columns.
        let ownerColumn = Int32(2 + layout.entities[destination].decodePlan.columnOrdinals.count)
        do {
            // Keys that fill most of their range (a fetch's results, typically) are
            // read as one range, skipping the owners not asked for.
            if let low = owners.min(), let high = owners.max(),
               case let (span, overflow) = high.subtractingReportingOverflow(low), !overflow, span < 2 * Int64(owners.count) {
                // Distinct keys as many as the range holds are the whole range.
                let wanted: Set<Int64>? = span + 1 == Int64(owners.count) ? nil : Set(owners)
                try writer.read { db in
                    // Nearly every member row is wanted: a scan of the member
                    // table reads them faster than the index, which looks up
                    // each row's values in the table after finding it.
                    if everyOwner, owners.count >= Self.tableScanMinimumOwners, case .foreignKey(let foreignKey) = storage,
                       let ownerColumn = foreignKey.foreignKeyColumn {
                        try scanMembers(foreignKey, ownerColumn: ownerColumn, from: low, to: high, wanted: wanted, in: db, body)
                        return
                    }
                    let statement = RawStatement(try db.cachedStatement(sql: storage.rangeLoadSQL), in: db)
                    statement.reset()
                    try statement.bind([.integer(low), .integer(high)])
                    try forEachRow(of: statement, entityIndex: destination, in: db) { row in
                        let owner = statement.int64(at: ownerColumn)
                        if wanted?.contains(owner) ?? true { try body(owner, .next, row) }
                    }
                }
                return
            }
            try writer.read { db in
                for chunk in stride(from: 0, to: owners.count, by: Self.keyChunkSize) {
                    let keys = owners[chunk..<min(chunk + Self.keyChunkSize, owners.count)]
                    let statement = RawStatement(try db.cachedStatement(sql: storage.loadSQL(owners: keys.count)), in: db)
                    statement.reset()
                    try statement.bind(keys.map { .integer($0) })
                    try forEachRow(of: statement, entityIndex: destination, in: db) { row in
                        try body(statement.int64(at: ownerColumn), .next, row)
                    }
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Below this many owners the index serves a many-owner read, also of every owner.
    static let tableScanMinimumOwners = 64

    /// The members of the owners between `low` and `high` (those in `wanted`,
    /// when given) in table order, each with its stored position.
    private func scanMembers(
        _ storage: RelationshipLayout.OrderedForeignKey, ownerColumn foreignKeyColumn: Int, from low: Int64, to high: Int64,
        wanted: Set<Int64>?, in db: Database, _ body: (_ owner: Int64, _ position: MemberPosition, any StoreRow) throws -> Void
    ) throws {
        let statement = RawStatement(try db.cachedStatement(sql: storage.tableScanSQL), in: db)
        statement.reset()
        try statement.bind([.integer(low), .integer(high)])
        let ownerColumn = Int32(2 + foreignKeyColumn)
        let positionColumn = Int32(2 + layout.entities[storage.destinationIndex].decodePlan.columnOrdinals.count)
        try forEachRow(of: statement, entityIndex: storage.destinationIndex, in: db) { row in
            let owner = statement.int64(at: ownerColumn)
            guard wanted?.contains(owner) ?? true else { return }
            switch statement.value(at: positionColumn) {
            case .integer(let position): try body(owner, .stored(position), row)
            case let other: try body(owner, .storedValue(other), row)
            }
        }
    }

    /// How a cursor lays out an entity's rows.
    func decodePlan(entityIndex: Int) -> DecodePlan {
        layout.entities[entityIndex].decodePlan
    }

    /// Runs a row query on a connection the caller already holds (a read or the
    /// write transaction), handing each row to `body`.
    func forEachRow(
        entityIndex: Int, sql: String, arguments: [StoredValue], in db: Database, _ body: (RowCursor) throws -> Void
    ) throws {
        let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
        statement.reset()
        try statement.bind(arguments)
        try forEachRow(of: statement, entityIndex: entityIndex, in: db, body)
    }

    /// Steps a bound statement whose columns start with the entity's select
    /// list, handing each row to `body`, then resets it.
    private func forEachRow(
        of statement: RawStatement, entityIndex: Int, in db: Database, _ body: (RowCursor) throws -> Void
    ) throws {
        defer { statement.reset() }
        let cursor = RowCursor(statement: statement, plan: layout.entities[entityIndex].decodePlan)
        try db.holdingConnectionMutex {
            while try statement.step() {
                try body(cursor)
            }
        }
    }

    /// Keys bound by one `pk IN (…)` statement: far below SQLite's bound-variable
    /// limit on every platform.
    static let keyChunkSize = 500

    /// ``fetchRows(entityIndex:primaryKeys:_:)`` on a connection the caller
    /// already holds, in chunks of ``keyChunkSize`` keys (two statement shapes
    /// at most, both cached).
    func forEachRow(
        entityIndex: Int, primaryKeys: some Collection<Int64>, in db: Database, _ body: (RowCursor) throws -> Void
    ) throws {
        let entity = layout.entities[entityIndex]
        var start = primaryKeys.startIndex
        while start != primaryKeys.endIndex {
            let end = primaryKeys.index(start, offsetBy: Self.keyChunkSize, limitedBy: primaryKeys.endIndex)
                ?? primaryKeys.endIndex
            let chunk = primaryKeys[start..<end]
            let statement = RawStatement(try db.cachedStatement(sql: entity.selectByKeysSQL(count: chunk.count)), in: db)
            statement.reset()
            var index: Int32 = 1
            for key in chunk {
                try statement.bind(.integer(key), at: index)
                index += 1
            }
            try forEachRow(of: statement, entityIndex: entityIndex, in: db, body)
            start = end
        }
    }

    /// Runs a query returning one integer column per row, on a connection the
    /// caller already holds.
    func integers(_ sql: String, _ arguments: [StoredValue], in db: Database) throws -> [Int64] {
        let statement = RawStatement(try db.cachedStatement(sql: sql), in: db)
        statement.reset()
        defer { statement.reset() }
        try statement.bind(arguments)
        var result: [Int64] = []
        try db.holdingConnectionMutex {
            while try statement.step() { result.append(statement.int64(at: 0)) }
        }
        return result
    }
}
