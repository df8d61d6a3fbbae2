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

/// One row of a value fetch as a store hands it out: the row's primary key
/// and the values asked for, in the order asked, in a buffer the store owns
/// and reuses from row to row.
///
/// A reader moves values out with ``take(_:)``, so a string or data value
/// passes to its destination without a copy, and leaves `.null` in every
/// slot before the next row (``ProjectionRow`` takes or releases each).
///
/// ```swift
/// try store.fetchValues(plan, columns: columns) { row in
///     print(row.primaryKey, row.take(0))
/// }
/// ```
@usableFromInline package struct StoreValueRow {
    @usableFromInline package let primaryKey: Int64
    @usableFromInline package let values: UnsafeMutableBufferPointer<StoredValue>

    @inlinable package init(primaryKey: Int64, values: UnsafeMutableBufferPointer<StoredValue>) {
        self.primaryKey = primaryKey
        self.values = values
    }

    /// The value at `index`, moved out; `.null` (which holds nothing to
    /// release) takes its place.
    @inlinable @inline(__always)
    package func take(_ index: Int) -> StoredValue {
        let slot = values.baseAddress.unsafelyUnwrapped + index
        let value = slot.move()
        slot.initialize(to: .null)
        return value
    }
}

/// A buffer of stored values a store fills once per row of a value fetch.
///
/// Between rows every slot holds `.null`: the reader takes each value or
/// releases what it leaves (``ProjectionRow``), so the store writes the next
/// row's values without releasing anything first.
@usableFromInline package struct StoreValueBuffer: ~Copyable {
    @usableFromInline package let values: UnsafeMutableBufferPointer<StoredValue>

    package init(count: Int) {
        values = .allocate(capacity: count)
        values.initialize(repeating: .null)
    }

    /// Sets the value of a column of the current row.
    @inlinable @inline(__always)
    package func set(_ column: Int, _ value: StoredValue) {
        // The slot holds `.null`, which owns nothing: overwriting it loses nothing.
        (values.baseAddress.unsafelyUnwrapped + column).initialize(to: value)
    }

    /// Hands `body` the row of `primaryKey`, once the store has set the
    /// buffer's values to that row's.
    @inlinable @inline(__always)
    package func row(primaryKey: Int64, _ body: (StoreValueRow) throws -> Void) rethrows {
        try body(StoreValueRow(primaryKey: primaryKey, values: values))
    }

    deinit {
        values.deinitialize()
        values.deallocate()
    }
}

/// The rows of a value fetch as one value, for a store that answers after a
/// suspension: each row's key, and the values of every row, row after row.
///
/// ```swift
/// let rows = try await store.awaitable.fetchValuesAsync(plan, columns: columns)
/// try rows.forEach { row in print(row.primaryKey, row.take(0)) }
/// ```
package struct StoredValueRows: Sendable {
    package let columnCount: Int
    package private(set) var keys: [Int64] = []
    package private(set) var values: [StoredValue] = []

    package init(columnCount: Int) {
        self.columnCount = columnCount
    }

    /// Keeps a copy of a row a store hands out.
    package mutating func append(_ row: StoreValueRow) {
        keys.append(row.primaryKey)
        for column in 0..<columnCount { values.append(row.take(column)) }
    }

    /// Hands the rows out again, one ``StoreValueRow`` each, as the store did.
    package func forEach(_ body: (StoreValueRow) throws -> Void) rethrows {
        let buffer = StoreValueBuffer(count: columnCount)
        for (index, key) in keys.enumerated() {
            for column in 0..<columnCount { buffer.set(column, values[index * columnCount + column]) }
            try buffer.row(primaryKey: key, body)
        }
    }
}
