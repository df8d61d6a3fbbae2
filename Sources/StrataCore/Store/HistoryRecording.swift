/// The history changes one committed change set records, the same for every
/// store: an insert per inserted row, an update per changed row (naming the
/// attributes and relationships it changed, to-many ones included), a deletion
/// per deleted row with its tombstone; with `recordsValues`, attribute values
/// before and after.
///
/// ```swift
/// let changes = HistoryRecording(schema: schema, recordsValues: false, previous: previous).changes(of: changeSet)
/// ```
package struct HistoryRecording {
    let schema: Schema
    let recordsValues: Bool
    /// The rows as they were before the write; without them deletions have no
    /// tombstone and updates no old values.
    let previous: PreviousValues

    package init(schema: Schema, recordsValues: Bool, previous: PreviousValues) {
        self.schema = schema
        self.recordsValues = recordsValues
        self.previous = previous
    }

    private struct RowKey: Hashable {
        let entityIndex: Int
        let primaryKey: Int64
    }

    /// An update's property names, and its changed attributes' old and new values.
    private struct Update {
        var objectID: ObjectID
        var names: Set<String> = []
        var old: [String: StoredValue] = [:]
        var new: [String: StoredValue] = [:]
    }

    /// The changes, in the order of the change set: inserts, updates, deletions.
    package func changes(of changes: ChangeSet) -> [HistoryChange] {
        var result: [HistoryChange] = []
        result.reserveCapacity(changes.inserted.count + changes.updated.count + changes.deleted.count)
        for row in changes.inserted {
            let new = recordsValues ? attributeValues(row.entityIndex, ordinals: row.ordinals, values: row.values) : nil
            result.append(HistoryChange(changeType: .insert, objectID: row.objectID, newValues: new))
        }
        var updates: [Update] = []
        updates.reserveCapacity(changes.updated.count)
        for row in changes.updated { updates.append(update(for: row)) }
        if !changes.toManyChanges.isEmpty { addToManyChanges(changes, to: &updates) }
        for update in updates {
            result.append(HistoryChange(
                changeType: .update, objectID: update.objectID, updatedProperties: update.names,
                oldValues: update.old.isEmpty ? nil : update.old, newValues: update.new.isEmpty ? nil : update.new))
        }
        for row in changes.deleted {
            result.append(HistoryChange(
                changeType: .delete, objectID: row.objectID, tombstone: tombstone(of: row),
                oldValues: recordsValues ? oldValues(of: row) : nil))
        }
        return result
    }

    private func update(for row: ChangeSet.Row) -> Update {
        let entity = schema.entities[row.entityIndex]
        var update = Update(objectID: row.objectID)
        update.names = Set(row.ordinals.map { entity.properties[$0].name })
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
                updates[position].names.insert(change.relationshipName)
            } else {
                positions[key] = updates.count
                updates.append(Update(objectID: change.objectID, names: [change.relationshipName]))
            }
        }
    }

    private func tombstone(of row: ChangeSet.Row) -> [String: StoredValue]? {
        guard let pk = row.objectID.primaryKey, let before = previous[row.entityIndex, pk] else { return nil }
        var tombstone: [String: StoredValue] = [:]
        for (ordinal, property) in schema.entities[row.entityIndex].properties.enumerated() {
            guard case .attribute(let attribute) = property, attribute.options.contains(.preserveValueOnDeletion) else { continue }
            tombstone[attribute.name] = before[ordinal]
        }
        return tombstone.isEmpty ? nil : tombstone
    }

    private func oldValues(of row: ChangeSet.Row) -> [String: StoredValue]? {
        guard let pk = row.objectID.primaryKey, let before = previous[row.entityIndex, pk] else { return nil }
        let entity = schema.entities[row.entityIndex]
        return attributeValues(row.entityIndex, ordinals: entity.columnOrdinals, values: entity.columnOrdinals.map { before[$0] })
    }

    private func attributeValues(_ entityIndex: Int, ordinals: [Int], values: [StoredValue]) -> [String: StoredValue] {
        let entity = schema.entities[entityIndex]
        var result: [String: StoredValue] = [:]
        for (ordinal, value) in zip(ordinals, values) where entity.attribute(at: ordinal) != nil {
            result[entity.properties[ordinal].name] = value
        }
        return result
    }
}
