import Foundation
import GRDB

extension SQLiteStore {
    /// Creates the history tables when history tracking is on and they are
    /// missing (a store that was first used without history gets them on its
    /// first load with history).
    func prepareHistoryTables() throws {
        guard options.historyTracking, !isReadOnly else { return }
        try writer.write { db in
            for statement in HistoryLayout.createStatements { try db.execute(sql: statement) }
        }
    }

    /// Whether deleting a row of the entity leaves a tombstone.
    func preservesValuesOnDeletion(entityIndex: Int) -> Bool {
        schema.entities[entityIndex].attributes.contains { $0.options.contains(.preserveValueOnDeletion) }
    }

    /// Reads the rows whose old values history needs, before the save writes:
    /// deleted rows of entities with tombstone attributes and, when value
    /// changes are recorded, every updated and deleted row. Reads nothing when
    /// history is off.
    package func capturePreviousValues(for request: SaveRequest, in db: Database) throws -> PreviousValues {
        var previous = PreviousValues()
        guard options.historyTracking else { return previous }
        var keys: [Int: [Int64]] = [:]
        var preserves: [Int: Bool] = [:]
        for delete in request.deletes {
            let needed = options.recordsValueChanges || preserves[delete.entityIndex] ?? {
                let value = preservesValuesOnDeletion(entityIndex: delete.entityIndex)
                preserves[delete.entityIndex] = value
                return value
            }()
            if needed { keys[delete.entityIndex, default: []].append(delete.primaryKey) }
        }
        if options.recordsValueChanges {
            for update in request.updates { keys[update.entityIndex, default: []].append(update.primaryKey) }
        }
        for (entityIndex, primaryKeys) in keys {
            try capturePreviousValues(entityIndex: entityIndex, primaryKeys: primaryKeys, into: &previous, in: db)
        }
        return previous
    }

    /// Reads whole rows of one entity into `previous`, in chunks well below
    /// SQLite's bound-variable limit. For batch operations, before they write.
    package func capturePreviousValues(
        entityIndex: Int, primaryKeys: [Int64], into previous: inout PreviousValues, in db: Database
    ) throws {
        var rows = previous.rows[entityIndex] ?? [:]
        try forEachRow(entityIndex: entityIndex, primaryKeys: primaryKeys, in: db) { cursor in
            rows[cursor.primaryKey] = cursor.decodeValues()
        }
        previous.rows[entityIndex] = rows
    }

    /// Records one committed change set as a history transaction, inside the
    /// transaction that writes it, when history tracking is on. Returns the
    /// transaction's token (nil when nothing was recorded).
    ///
    /// `previous` holds the rows as they were before the write (see
    /// ``capturePreviousValues(for:in:)``); without them deletions have no
    /// tombstone and updates no old values.
    @discardableResult
    package func recordHistory(
        of changes: ChangeSet, previous: PreviousValues = PreviousValues(), in db: Database
    ) throws -> HistoryToken? {
        guard options.historyTracking, !changes.isEmpty else { return nil }
        let transaction = RawStatement(try db.cachedStatement(sql: HistoryLayout.insertTransactionSQL), in: db)
        transaction.reset()
        transaction.bind([
            .real(Date().timeIntervalSinceReferenceDate), changes.author.map(StoredValue.text) ?? .null,
            changes.contextName.map(StoredValue.text) ?? .null,
            .integer(Int64(ProcessInfo.processInfo.processIdentifier)), .text(originIdentifier.uuidString),
        ])
        try transaction.execute()
        let number = db.lastInsertedRowID
        var recorder = HistoryRecorder(
            store: self, transactionNumber: number, previous: previous,
            statement: RawStatement(try db.cachedStatement(sql: HistoryLayout.insertChangeSQL), in: db))
        try recorder.record(changes)
        return HistoryToken(storeIdentifier: identifier, transactionNumber: number)
    }
}

/// Writes the change rows of one history transaction.
private struct HistoryRecorder {
    let store: SQLiteStore
    let transactionNumber: Int64
    let previous: PreviousValues
    let statement: RawStatement
    let coder = HistoryValueCoder()
    var recordsValues: Bool { store.options.recordsValueChanges }

    private struct RowKey: Hashable {
        let entityIndex: Int
        let primaryKey: Int64
    }

    /// An update's property names, and its changed attributes' old and new values.
    private struct Update {
        var objectID: ObjectID
        var names: [String] = []
        var old: [String: StoredValue] = [:]
        var new: [String: StoredValue] = [:]
    }

    mutating func record(_ changes: ChangeSet) throws {
        for row in changes.inserted {
            var new: [String: StoredValue]?
            if recordsValues { new = attributeValues(row.entityIndex, ordinals: row.ordinals, values: row.values) }
            try write(.insert, row.objectID, new: new)
        }
        var updates: [Update] = []
        updates.reserveCapacity(changes.updated.count)
        for row in changes.updated { updates.append(update(for: row)) }
        if !changes.toManyChanges.isEmpty { addToManyChanges(changes, to: &updates) }
        for update in updates {
            try write(.update, update.objectID, properties: update.names,
                      old: update.old.isEmpty ? nil : update.old, new: update.new.isEmpty ? nil : update.new)
        }
        for row in changes.deleted {
            try write(.delete, row.objectID, tombstone: tombstone(of: row), old: recordsValues ? oldValues(of: row) : nil)
        }
    }

    private func update(for row: ChangeSet.Row) -> Update {
        let entity = store.schema.entities[row.entityIndex]
        var update = Update(objectID: row.objectID)
        update.names = row.ordinals.map { entity.properties[$0].name }
        guard recordsValues else { return update }
        let before = row.objectID.primaryKey.flatMap { previous[row.entityIndex, $0] }
        for (ordinal, value) in zip(row.ordinals, row.values) where entity.attribute(at: ordinal) != nil {
            let name = entity.properties[ordinal].name
            update.new[name] = value
            if let before { update.old[name] = before[ordinal] }
        }
        return update
    }

    /// Folds relationship-only changes into the objects' updates. Objects the
    /// same save inserted or deleted get no update: their insert or deletion says it all.
    private func addToManyChanges(_ changes: ChangeSet, to updates: inout [Update]) {
        var skipped = Set<RowKey>()
        for row in changes.inserted + changes.deleted {
            if let pk = row.objectID.primaryKey { skipped.insert(RowKey(entityIndex: row.entityIndex, primaryKey: pk)) }
        }
        var positions: [RowKey: Int] = [:]
        for (position, row) in changes.updated.enumerated() {
            if let pk = row.objectID.primaryKey { positions[RowKey(entityIndex: row.entityIndex, primaryKey: pk)] = position }
        }
        for change in changes.toManyChanges {
            guard let pk = change.objectID.primaryKey else { continue }
            let key = RowKey(entityIndex: change.entityIndex, primaryKey: pk)
            if skipped.contains(key) { continue }
            if let position = positions[key] {
                if !updates[position].names.contains(change.relationshipName) {
                    updates[position].names.append(change.relationshipName)
                }
            } else {
                positions[key] = updates.count
                updates.append(Update(objectID: change.objectID, names: [change.relationshipName]))
            }
        }
    }

    private func tombstone(of row: ChangeSet.Row) -> [String: StoredValue]? {
        guard let pk = row.objectID.primaryKey, let before = previous[row.entityIndex, pk] else { return nil }
        var tombstone: [String: StoredValue] = [:]
        for (ordinal, property) in store.schema.entities[row.entityIndex].properties.enumerated() {
            guard case .attribute(let attribute) = property, attribute.options.contains(.preserveValueOnDeletion) else { continue }
            tombstone[attribute.name] = before[ordinal]
        }
        return tombstone.isEmpty ? nil : tombstone
    }

    private func oldValues(of row: ChangeSet.Row) -> [String: StoredValue]? {
        guard let pk = row.objectID.primaryKey, let before = previous[row.entityIndex, pk] else { return nil }
        let entity = store.schema.entities[row.entityIndex]
        return attributeValues(row.entityIndex, ordinals: entity.columnOrdinals, values: entity.columnOrdinals.map { before[$0] })
    }

    private func attributeValues(_ entityIndex: Int, ordinals: [Int], values: [StoredValue]) -> [String: StoredValue] {
        let entity = store.schema.entities[entityIndex]
        var result: [String: StoredValue] = [:]
        for (ordinal, value) in zip(ordinals, values) where entity.attribute(at: ordinal) != nil {
            result[entity.properties[ordinal].name] = value
        }
        return result
    }

    private func write(
        _ type: HistoryChange.ChangeType, _ objectID: ObjectID, properties: [String] = [],
        tombstone: [String: StoredValue]? = nil, old: [String: StoredValue]? = nil, new: [String: StoredValue]? = nil
    ) throws {
        guard let pk = objectID.primaryKey else { return }
        statement.reset()
        statement.bind(.integer(transactionNumber), at: 1)
        statement.bind(.integer(HistoryLayout.code(type)), at: 2)
        statement.bind(.text(objectID.entityName), at: 3)
        statement.bind(.integer(pk), at: 4)
        if !properties.isEmpty {
            statement.bind(.text(properties.joined(separator: String(HistoryLayout.propertySeparator))), at: 5)
        }
        if let tombstone { statement.bind(coder.encode(tombstone), at: 6) }
        if let old { statement.bind(coder.encode(old), at: 7) }
        if let new { statement.bind(coder.encode(new), at: 8) }
        try statement.execute()
    }
}
