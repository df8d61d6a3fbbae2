/// The rows of an in-memory store and every change to them, undoable.
///
/// Each write of the store runs on this under the store's lock; every change
/// records how to undo it, so a write that fails partway is taken back whole
/// (``rollback()``), as a database transaction is. Keys and delete actions
/// follow the rules SQLite stores enforce with their foreign keys.
final class MemoryDatabase: @unchecked Sendable {
    // @unchecked: mutable, and reached only under its MemoryStore's lock.
    /// One stored row: version, values by property ordinal (to-many ordinals
    /// hold `.null`), and for to-one keys whose inverse is an ordered to-many,
    /// the row's position among its owner's members (nil: none yet, first).
    struct Row {
        var version: Int64
        var values: ContiguousArray<StoredValue>
        var positions: [Int: Int64] = [:]
    }

    /// The rows of one entity, with their keys in ascending order on demand.
    struct Table {
        var rows: [Int64: Row] = [:]
        private var orderedKeys: [Int64] = []
        private var isOrdered = true
        /// Keys deleted but still in `orderedKeys`, dropped there on the next
        /// read: deleting row by row would otherwise move the list each time.
        private var removedKeys: Set<Int64> = []

        mutating func set(_ row: Row?, at key: Int64) {
            let existed = rows[key] != nil
            rows[key] = row
            if row != nil, !existed {
                // A key put back (a rolled-back delete) may still be listed.
                if removedKeys.remove(key) != nil { return }
                if isOrdered, let last = orderedKeys.last, last > key {
                    isOrdered = false
                    removedKeys.removeAll()
                }
                if isOrdered { orderedKeys.append(key) }
            } else if row == nil, existed, isOrdered {
                removedKeys.insert(key)
            }
        }

        /// Every key, ascending.
        mutating func keys() -> [Int64] {
            if !isOrdered {
                orderedKeys = rows.keys.sorted()
                isOrdered = true
            } else if !removedKeys.isEmpty {
                orderedKeys.removeAll { removedKeys.contains($0) }
                removedKeys.removeAll()
            }
            return orderedKeys
        }

        /// The keys in a range, ascending.
        mutating func keys(in range: ClosedRange<Int64>) -> ArraySlice<Int64> {
            let keys = keys()
            return keys[Self.position(of: range.lowerBound, in: keys)..<Self.position(of: range.upperBound &+ 1, in: keys)]
        }

        /// The index of the first key not below `key`.
        private static func position(of key: Int64, in keys: [Int64]) -> Int {
            var low = 0, high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle] < key { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    /// The pairs of one join: owner and member keys with each side's position.
    struct Join {
        struct Pair: Hashable {
            var source: Int64
            var target: Int64
        }
        struct Positions {
            var source: Int64
            var target: Int64

            /// The member's side placed after the highest position it had (first when none).
            func placingMember(after highest: Int64?, asTarget: Bool) -> Positions {
                var positions = self
                if asTarget { positions.target = (highest ?? -1) + 1 } else { positions.source = (highest ?? -1) + 1 }
                return positions
            }
        }
        var pairs: [Pair: Positions] = [:]
        var bySource: [Int64: Set<Int64>] = [:]
        var byTarget: [Int64: Set<Int64>] = [:]

        mutating func set(_ positions: Positions?, for pair: Pair) {
            pairs[pair] = positions
            if positions != nil {
                bySource[pair.source, default: []].insert(pair.target)
                byTarget[pair.target, default: []].insert(pair.source)
            } else {
                bySource[pair.source]?.remove(pair.target)
                byTarget[pair.target]?.remove(pair.source)
                if bySource[pair.source]?.isEmpty == true { bySource[pair.source] = nil }
                if byTarget[pair.target]?.isEmpty == true { byTarget[pair.target] = nil }
            }
        }
    }

    private enum Undo {
        case row(entity: Int, key: Int64, Row?)
        case pair(JoinKey, Join.Pair, Join.Positions?)
        case sequence(entity: Int, Int64)
        case metadata(String, StoredValue?)
    }

    /// A to-one key column: the entity holding it and its ordinal.
    struct KeyColumn: Hashable {
        var entityIndex: Int
        var ordinal: Int
    }

    let schema: Schema
    private(set) var tables: [Table]
    /// For each to-one key column, the rows holding each key: who points at a row.
    private var referrers: [KeyColumn: [Int64: Set<Int64>]] = [:]
    /// By entity, then uniqueness constraint (as in `uniqueKeys`): the
    /// row holding each value of the key. Keys with a NULL are not held.
    private var uniqueHolders: [[[[StoredValue]: Int64]]]
    /// By entity: its uniqueness constraints as ordinals, and its required attributes' ordinals.
    let uniqueKeys: [[[Int]]]
    private let requiredOrdinals: [[Int]]
    /// For each ordered to-one key column, the highest position any member of
    /// each owner took; a new member goes after it. (It never goes down, so
    /// positions may leave gaps; only their order matters.)
    private var positionMarks: [KeyColumn: [Int64: Int64]] = [:]
    private(set) var joins: [JoinKey: Join] = [:]
    /// For each join, the highest position each row took as a source, and as a target.
    private var sourceMarks: [JoinKey: [Int64: Int64]] = [:]
    private var targetMarks: [JoinKey: [Int64: Int64]] = [:]
    /// The highest primary key each entity handed out.
    private(set) var sequences: [Int64]
    private(set) var metadata: [String: StoredValue] = [:]
    private var undoLog: [Undo] = []
    /// Rows whose keys a write set, checked when it ends (deferred, as SQLite
    /// checks deferred foreign keys at commit).
    private var touched: [(entity: Int, key: Int64)] = []
    /// The foreign-key edges pointing at each entity.
    private let edgesByParent: [[ForeignKeyEdge]]
    /// Whether a `.deny` rule guards any foreign key.
    let hasDenyRules: Bool
    /// The joins each entity is a side of: (join, whether it is the source).
    private let joinsByEntity: [[(key: JoinKey, isSource: Bool)]]
    /// By entity: its sorted attributes (see ``MemoryIndex``).
    private var indexes: [[MemoryIndex]]

    init(schema: Schema) {
        self.schema = schema
        tables = schema.entities.map { _ in Table() }
        uniqueKeys = schema.uniqueKeys
        requiredOrdinals = schema.entities.map { entity in
            entity.columnOrdinals.filter { entity.attribute(at: $0).map { !$0.isOptional } ?? false }
        }
        uniqueHolders = uniqueKeys.map { keys in keys.map { _ in [:] } }
        sequences = schema.entities.map { _ in 0 }
        var byParent = schema.entities.map { _ in [ForeignKeyEdge]() }
        // Newest first, the order in which SQLite runs the actions of the
        // foreign keys that point at a table.
        for edge in ForeignKeyEdge.all(in: schema).reversed() { byParent[edge.parentIndex].append(edge) }
        edgesByParent = byParent
        hasDenyRules = byParent.joined().contains { $0.rule == .deny }
        var byEntity = schema.entities.map { _ in [(key: JoinKey, isSource: Bool)]() }
        for entity in schema.entities {
            for ordinal in entity.relationshipOrdinals {
                guard case .join(let key, _, let destination)? = schema.toManyShape(entityIndex: entity.index, ordinal: ordinal),
                      key == JoinKey(entityIndex: entity.index, ordinal: ordinal) else { continue }
                byEntity[entity.index].append((key, true))
                byEntity[destination].append((key, false))
            }
        }
        joinsByEntity = byEntity
        indexes = schema.entities.map { entity in
            // What an `#Index` or a uniqueness constraint starts with, as SQLite's indexes serve.
            let named = entity.indexes.compactMap { $0.first.flatMap { entity.ordinalByName[$0] } }
            var ordinals: [Int] = []
            for ordinal in named + schema.uniqueKeys[entity.index].compactMap(\.first)
            where entity.attribute(at: ordinal) != nil && !ordinals.contains(ordinal) {
                ordinals.append(ordinal)
            }
            return ordinals.map { MemoryIndex(ordinal: $0) }
        }
    }

    // MARK: Transactions

    /// Starts a write: changes from here on can be taken back.
    func begin() {
        undoLog.removeAll(keepingCapacity: true)
        touched.removeAll(keepingCapacity: true)
    }

    /// Ends a write, checking that every key it set names a row.
    func commit() throws(StrataError) {
        for (entityIndex, key) in touched {
            guard let row = tables[entityIndex].rows[key] else { continue }
            try checkReferences(of: row, entityIndex: entityIndex)
        }
        undoLog.removeAll(keepingCapacity: true)
        touched.removeAll(keepingCapacity: true)
    }

    /// Takes back every change since ``begin()``.
    func rollback() {
        for undo in undoLog.reversed() {
            switch undo {
            case .row(let entity, let key, let row): place(row, entityIndex: entity, key: key)
            case .pair(let join, let pair, let positions): joins[join, default: Join()].set(positions, for: pair)
            case .sequence(let entity, let value): sequences[entity] = value
            case .metadata(let key, let value): metadata[key] = value
            }
        }
        undoLog.removeAll(keepingCapacity: true)
        touched.removeAll(keepingCapacity: true)
    }

    // MARK: Rows

    func row(_ entityIndex: Int, _ key: Int64) -> Row? {
        tables[entityIndex].rows[key]
    }

    /// The rows whose key column points at `key`, in no particular order.
    func rows(pointingAt key: Int64, from column: KeyColumn) -> Set<Int64> {
        referrers[column]?[key] ?? []
    }

    /// The row holding the values of a uniqueness constraint (`values` by the
    /// constraint's ordinals), if any.
    func holder(of values: [StoredValue], constraint: Int, entityIndex: Int) -> Int64? {
        uniqueHolders[entityIndex][constraint][values]
    }

    /// Stores or removes a row, keeping the referrer and uniqueness indexes in step.
    private func place(_ row: Row?, entityIndex: Int, key: Int64) {
        let old = tables[entityIndex].rows[key]
        tables[entityIndex].set(row, at: key)
        for position in indexes[entityIndex].indices where !indexes[entityIndex][position].isStale {
            let ordinal = indexes[entityIndex][position].ordinal
            if old?.values[ordinal] != row?.values[ordinal] { indexes[entityIndex][position].isStale = true }
        }
        for (constraint, ordinals) in uniqueKeys[entityIndex].enumerated() {
            let before = old.map { row in ordinals.map { row.values[$0] } }
            let after = row.map { row in ordinals.map { row.values[$0] } }
            guard before != after else { continue }
            if let before, !before.contains(where: \.isNull), uniqueHolders[entityIndex][constraint][before] == key {
                uniqueHolders[entityIndex][constraint][before] = nil
            }
            if let after, !after.contains(where: \.isNull) {
                uniqueHolders[entityIndex][constraint][after] = key
            }
        }
        for ordinal in schema.entities[entityIndex].toOneColumnOrdinals {
            let before = old?.values[ordinal], after = row?.values[ordinal]
            guard before != after else { continue }
            let column = KeyColumn(entityIndex: entityIndex, ordinal: ordinal)
            if case .integer(let target)? = before {
                referrers[column]?[target]?.remove(key)
                if referrers[column]?[target]?.isEmpty == true { referrers[column]?[target] = nil }
            }
            if case .integer(let target)? = after {
                referrers[column, default: [:]][target, default: []].insert(key)
            }
        }
        if let row, !row.positions.isEmpty {
            for (ordinal, position) in row.positions {
                guard case .integer(let owner) = row.values[ordinal] else { continue }
                let column = KeyColumn(entityIndex: entityIndex, ordinal: ordinal)
                positionMarks[column, default: [:]][owner] = max(positionMarks[column]?[owner] ?? position, position)
            }
        }
    }

    /// The sorted index of an attribute, built afresh if a write changed it; nil when it has none.
    func sortedIndex(_ entityIndex: Int, ordinal: Int) -> MemoryIndex? {
        guard let position = indexes[entityIndex].firstIndex(where: { $0.ordinal == ordinal }) else { return nil }
        if indexes[entityIndex][position].isStale { indexes[entityIndex][position].build(from: tables[entityIndex].rows) }
        return indexes[entityIndex][position]
    }

    /// Whether an attribute has a sorted index.
    func hasSortedIndex(_ entityIndex: Int, ordinal: Int) -> Bool {
        indexes[entityIndex].contains { $0.ordinal == ordinal }
    }

    /// Every key of an entity, ascending.
    func keys(_ entityIndex: Int) -> [Int64] {
        tables[entityIndex].keys()
    }

    /// The keys of an entity in a range, ascending.
    func keys(_ entityIndex: Int, in range: ClosedRange<Int64>) -> ArraySlice<Int64> {
        tables[entityIndex].keys(in: range)
    }

    /// Takes `count` keys from an entity's sequence; returns the first. A
    /// sequence too near the top for the block is not moved, as in SQL stores.
    func reserveKeys(_ entityIndex: Int, count: Int64) throws(StrataError) -> Int64 {
        let current = sequences[entityIndex]
        guard current >= 0, !current.addingReportingOverflow(count).overflow else {
            throw StrataError.keysExhausted(entity: schema.entities[entityIndex].name, at: current)
        }
        undoLog.append(.sequence(entity: entityIndex, sequences[entityIndex]))
        defer { sequences[entityIndex] += count }
        return sequences[entityIndex] + 1
    }

    /// Writes a row (new or changed): required values and unique keys are
    /// checked now, keys to other rows when the write ends.
    func put(_ row: Row, entityIndex: Int, key: Int64) throws(StrataError) {
        var row = row
        Self.storeAsSQLiteDoes(&row.values)
        try checkRequired(row.values, entityIndex: entityIndex)
        try checkUnique(row.values, entityIndex: entityIndex, key: key)
        undoLog.append(.row(entity: entityIndex, key: key, tables[entityIndex].rows[key]))
        place(row, entityIndex: entityIndex, key: key)
        touched.append((entityIndex, key))
    }

    /// Changes a row in place without the checks (positions, cleared keys).
    private func modify(_ entityIndex: Int, _ key: Int64, _ change: (inout Row) -> Void) {
        guard var row = tables[entityIndex].rows[key] else { return }
        undoLog.append(.row(entity: entityIndex, key: key, row))
        change(&row)
        place(row, entityIndex: entityIndex, key: key)
    }

    /// Sets the position of a row among its owner's members.
    func setPosition(_ position: Int64?, entityIndex: Int, key: Int64, ordinal: Int) {
        guard tables[entityIndex].rows[key]?.positions[ordinal] != position else { return }
        modify(entityIndex, key) { $0.positions[ordinal] = position }
    }

    /// Puts a row after the other members of the owner its key column names.
    func appendPosition(entityIndex: Int, key: Int64, ordinal: Int) {
        guard case .integer(let owner)? = tables[entityIndex].rows[key]?.values[ordinal] else { return }
        let mark = positionMarks[KeyColumn(entityIndex: entityIndex, ordinal: ordinal)]?[owner]
        setPosition((mark ?? -1) + 1, entityIndex: entityIndex, key: key, ordinal: ordinal)
    }

    /// Clears the `.deny`-guarded keys that rows of `doomed` (keys by entity)
    /// hold on other rows of it, before they all go: rows that go together
    /// may point at each other (a folder and the folder inside it), and
    /// `delete` refuses a row while another points at it through such a key,
    /// as SQLite's `RESTRICT` does as each row goes.
    func releaseDeniedKeys(among doomed: [Int: Set<Int64>]) {
        for (parent, parentKeys) in doomed {
            for edge in edgesByParent[parent] where edge.rule == .deny {
                guard let childKeys = doomed[edge.childIndex] else { continue }
                let column = KeyColumn(entityIndex: edge.childIndex, ordinal: edge.ordinal)
                for key in parentKeys {
                    for child in rows(pointingAt: key, from: column) where childKeys.contains(child) {
                        modify(edge.childIndex, child) { $0.values[edge.ordinal] = .null }
                    }
                }
            }
        }
    }

    /// Deletes a row and applies what its referrers' delete rules say:
    /// cascade deletes them, nullify clears their key, deny refuses (at once,
    /// as SQLite's `RESTRICT` does). Join pairs holding it go.
    func delete(_ entityIndex: Int, _ key: Int64) throws(StrataError) {
        // A worklist rather than recursion: cascades may run deep.
        var pending = [(entityIndex, key)]
        while let (entityIndex, key) = pending.popLast() {
            guard let row = tables[entityIndex].rows[key] else { continue }
            undoLog.append(.row(entity: entityIndex, key: key, row))
            place(nil, entityIndex: entityIndex, key: key)
            for (join, isSource) in joinsByEntity[entityIndex] {
                let partners = isSource ? joins[join]?.bySource[key] : joins[join]?.byTarget[key]
                for partner in partners ?? [] {
                    removePair(join, isSource ? Join.Pair(source: key, target: partner) : Join.Pair(source: partner, target: key))
                }
            }
            var cascaded: [(Int, Int64)] = []
            for edge in edgesByParent[entityIndex] {
                let referrers = rows(pointingAt: key, from: KeyColumn(entityIndex: edge.childIndex, ordinal: edge.ordinal))
                guard !referrers.isEmpty else { continue }
                switch edge.rule {
                case .cascade:
                    cascaded += referrers.sorted().map { (edge.childIndex, $0) }
                case .nullify:
                    for referrer in referrers {
                        modify(edge.childIndex, referrer) { $0.values[edge.ordinal] = .null }
                    }
                case .deny:
                    throw Self.referenceError()
                case .noAction:
                    continue
                }
            }
            pending += cascaded.reversed()
        }
    }

    // MARK: Joins

    func pairs(_ join: JoinKey) -> Join? { joins[join] }

    /// Adds or moves a pair. A pair must name existing rows, as SQLite's
    /// immediate join-table keys require.
    func setPair(_ join: JoinKey, _ pair: Join.Pair, _ positions: Join.Positions) throws(StrataError) {
        if let shape = schema.toManyShape(entityIndex: join.entityIndex, ordinal: join.ordinal) {
            guard tables[join.entityIndex].rows[pair.source] != nil,
                  tables[shape.destinationIndex].rows[pair.target] != nil else { throw Self.referenceError() }
        }
        place(positions, for: pair, in: join)
        sourceMarks[join, default: [:]][pair.source] = max(sourceMarks[join]?[pair.source] ?? positions.source, positions.source)
        targetMarks[join, default: [:]][pair.target] = max(targetMarks[join]?[pair.target] ?? positions.target, positions.target)
    }

    /// Removes a pair.
    func removePair(_ join: JoinKey, _ pair: Join.Pair) {
        place(nil, for: pair, in: join)
    }

    private func place(_ positions: Join.Positions?, for pair: Join.Pair, in join: JoinKey) {
        undoLog.append(.pair(join, pair, joins[join]?.pairs[pair]))
        joins[join, default: Join()].set(positions, for: pair)
    }

    /// The highest position a row took on one side of a join's pairs (nil: none yet).
    func highestPosition(in join: JoinKey, of key: Int64, asTarget: Bool) -> Int64? {
        asTarget ? targetMarks[join]?[key] : sourceMarks[join]?[key]
    }

    // MARK: Metadata

    func setMetadata(_ value: StoredValue?, forKey key: String) {
        undoLog.append(.metadata(key, metadata[key]))
        metadata[key] = value
    }

    // MARK: Checks

    /// What SQLite makes of reals it stores: NaN is NULL, and -0 reads back as 0.
    static func storeAsSQLiteDoes(_ values: inout ContiguousArray<StoredValue>) {
        for index in values.indices {
            guard case .real(let number) = values[index], number.isNaN || number == 0 else { continue }
            values[index] = number.isNaN ? .null : .real(0)
        }
    }

    /// Required attributes must hold a value (SQLite's `NOT NULL`).
    private func checkRequired(_ values: ContiguousArray<StoredValue>, entityIndex: Int) throws(StrataError) {
        for ordinal in requiredOrdinals[entityIndex] where values[ordinal].isNull {
            let entity = schema.entities[entityIndex]
            throw StrataError(.validation, "A required value is missing: \(entity.name).\(entity.properties[ordinal].name)")
        }
    }

    /// No other row may hold the row's unique keys (SQLite's unique indexes).
    private func checkUnique(_ values: ContiguousArray<StoredValue>, entityIndex: Int, key: Int64) throws(StrataError) {
        let entity = schema.entities[entityIndex]
        for (constraint, ordinals) in uniqueKeys[entityIndex].enumerated() {
            let keyValues = ordinals.map { values[$0] }
            guard !keyValues.contains(where: \.isNull), let holder = uniqueHolders[entityIndex][constraint][keyValues],
                  holder != key else { continue }
            let names = ordinals.map { "\(entity.name).\(entity.properties[$0].name)" }.joined(separator: ", ")
            throw StrataError(.uniquenessConflict, "A uniqueness constraint was violated: \(names)")
        }
    }

    /// Every key a row holds must name an existing row, unless its
    /// relationship's rule is `.noAction`.
    private func checkReferences(of row: Row, entityIndex: Int) throws(StrataError) {
        let entity = schema.entities[entityIndex]
        for ordinal in entity.toOneColumnOrdinals {
            guard case .integer(let target) = row.values[ordinal] else { continue }
            let parent = entity.destinationIndexByOrdinal[ordinal]
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            let rule = inverse >= 0 ? schema.entities[parent].relationship(at: inverse)?.deleteRule : nil
            if rule == .noAction { continue }
            if tables[parent].rows[target] == nil { throw Self.referenceError() }
        }
    }

    private static func referenceError() -> StrataError {
        StrataError(.validation, "A relationship points to an object that does not exist or may not be deleted")
    }
}
