/// One stored row as a store hands it out while it reads: key, version and
/// values by property ordinal, written into memory the reader provides.
///
/// A store passes one cursor per read and moves it to the next row between
/// calls of the reader's closure, so nothing is allocated per row; a reader
/// that keeps a row copies its values. Contexts, not stores, make objects.
///
/// ```swift
/// try store.fetchRows(plan) { row in
///     let values = row.decodeValues()          // [StoredValue] by property ordinal
///     print(row.primaryKey, row.version, values)
/// }
/// ```
package protocol StoreRow: AnyObject {
    /// How many values a row has: one per property of its entity.
    var propertyCount: Int { get }
    /// The row's primary key.
    var primaryKey: Int64 { get }
    /// The row's version (raised by every write).
    var version: Int64 { get }
    /// Writes the row's values, by property ordinal, into uninitialised memory
    /// for ``propertyCount`` values (to-many relationships are `.null`).
    func initializeValues(_ target: UnsafeMutablePointer<StoredValue>)
}

extension StoreRow {
    /// Replaces the ``propertyCount`` values at `target` with the row's.
    package func assignValues(_ target: UnsafeMutableBufferPointer<StoredValue>) {
        precondition(target.count == propertyCount, "Strata: a stored row does not fit its object")
        // An entity without properties has no values, and its buffer may have no address.
        guard propertyCount > 0 else { return }
        _ = target.baseAddress!.deinitialize(count: propertyCount)
        initializeValues(target.baseAddress!)
    }

    /// A copy of the row's values by property ordinal.
    package func decodeValues() -> ContiguousArray<StoredValue> {
        // No values: the shared empty storage, which the initialiser would write its count into.
        guard propertyCount > 0 else { return [] }
        return ContiguousArray(unsafeUninitializedCapacity: propertyCount) { buffer, count in
            initializeValues(buffer.baseAddress!)
            count = propertyCount
        }
    }

    /// A copy of the whole row.
    package func stored() -> StoredRow {
        StoredRow(primaryKey: primaryKey, version: version, values: decodeValues())
    }
}
