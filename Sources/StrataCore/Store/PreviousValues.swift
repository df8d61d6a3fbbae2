/// Row values a write is about to overwrite or delete, read inside its
/// transaction before anything is written, for history tombstones and old values.
///
/// ```swift
/// // In a write transaction, before writing:
/// let previous = try PreviousValues(for: request, schema: schema, options: options, in: executor)
/// // … write, build the change set …
/// let recorded = HistoryRecording(schema: schema, recordsValues: options.recordsValueChanges, previous: previous)
/// ```
package struct PreviousValues: Sendable {
    /// Whole rows by entity index, then primary key; values by property ordinal.
    package var rows: [Int: [Int64: ContiguousArray<StoredValue>]] = [:]

    package init() {}

    /// The rows a save's history needs: deleted rows of entities with tombstone
    /// attributes and, when value changes are recorded, every updated and
    /// deleted row. Reads nothing when history is off.
    package init<Executor: StoreWriteExecutor>(
        for request: SaveRequest, schema: Schema, options: StoreOptions, in executor: Executor
    ) throws(Executor.Failure) {
        guard options.historyTracking else { return }
        var keys: [Int: [Int64]] = [:]
        for delete in request.deletes
        where options.recordsValueChanges || schema.preservesValuesOnDeletion[delete.entityIndex] {
            keys[delete.entityIndex, default: []].append(delete.primaryKey)
        }
        if options.recordsValueChanges {
            for update in request.updates { keys[update.entityIndex, default: []].append(update.primaryKey) }
        }
        for (entityIndex, primaryKeys) in keys {
            try read(entityIndex: entityIndex, keys: primaryKeys, in: executor)
        }
    }

    /// Whether history needs the rows an operation deletes from an entity.
    package static func needed(forDeleting entityIndex: Int, schema: Schema, options: StoreOptions) -> Bool {
        options.historyTracking && (options.recordsValueChanges || schema.preservesValuesOnDeletion[entityIndex])
    }

    /// Reads whole rows of one entity (a batch operation's, before it writes).
    package mutating func read<Executor: StoreWriteExecutor>(
        entityIndex: Int, keys: [Int64], in executor: Executor
    ) throws(Executor.Failure) {
        var found = rows[entityIndex] ?? [:]
        try executor.readRows(entityIndex: entityIndex, keys: keys) { found[$0.primaryKey] = $0.values }
        rows[entityIndex] = found
    }

    package subscript(entityIndex: Int, primaryKey: Int64) -> ContiguousArray<StoredValue>? {
        rows[entityIndex]?[primaryKey]
    }
}
