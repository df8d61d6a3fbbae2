/// Row values a save is about to overwrite or delete, read inside its
/// transaction before anything is written, for history tombstones and old values.
///
/// ```swift
/// // In a write transaction, before deleting rows:
/// var previous = PreviousValues()
/// try store.capturePreviousValues(entityIndex: 0, primaryKeys: keys, into: &previous, in: db)
/// // … delete, build the change set …
/// changes.historyToken = try store.recordHistory(of: changes, previous: previous, in: db)
/// ```
package struct PreviousValues: Sendable {
    /// Whole rows by entity index, then primary key; values by property ordinal.
    package var rows: [Int: [Int64: ContiguousArray<StoredValue>]] = [:]

    package init() {}

    package subscript(entityIndex: Int, primaryKey: Int64) -> ContiguousArray<StoredValue>? {
        rows[entityIndex]?[primaryKey]
    }
}
