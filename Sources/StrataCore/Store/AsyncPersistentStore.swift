import Foundation

/// The reads and writes a context awaits, for stores that answer over a
/// network (the PostgreSQL store) and must not block a thread while they wait.
///
/// Contexts use it through their `…Async` methods (`fetchAsync`, `countAsync`,
/// `saveAsync`), which suspend instead of blocking. Every ``PersistentStore``
/// answers these at once with its synchronous forms — SQLite keeps its fast,
/// synchronous path — and the in-memory store suspends before each answer, so
/// the tests of the awaiting path run on it as a network store would.
///
/// ```swift
/// let rows = try await store.fetchRowsAsync(plan)
/// let result = try await store.saveAsync(request, origin: nil)
/// ```
package protocol AsyncPersistentStore: AnyObject, Sendable {
    /// The rows a plan selects, in its order, as values.
    func fetchRowsAsync(_ plan: FetchPlan) async throws(StrataError) -> [StoredRow]
    /// The primary keys of the rows a plan selects, in its order.
    func fetchKeysAsync(_ plan: FetchPlan) async throws(StrataError) -> [Int64]
    /// How many rows a plan selects.
    func countAsync(_ plan: FetchPlan) async throws(StrataError) -> Int
    /// The keys and the values of `columns` of the rows a plan matches
    /// (see ``PersistentStore/fetchValues(_:columns:_:)``).
    func fetchValuesAsync(_ plan: FetchPlan, columns: [StoreExpression]) async throws(StrataError) -> StoredValueRows
    /// Writes a context's changes as one transaction (see ``PersistentStore/save(_:origin:)``).
    func saveAsync(_ request: SaveRequest, origin: ObjectIdentifier?) async throws(StrataError) -> SaveResult
}

extension PersistentStore {
    /// A synchronous store's answer, given at once.
    package func fetchRowsAsync(_ plan: FetchPlan) async throws(StrataError) -> [StoredRow] {
        var rows: [StoredRow] = []
        try fetchRows(plan) { rows.append($0.stored()) }
        return rows
    }

    package func fetchKeysAsync(_ plan: FetchPlan) async throws(StrataError) -> [Int64] {
        try fetchKeys(plan)
    }

    package func countAsync(_ plan: FetchPlan) async throws(StrataError) -> Int {
        try count(plan)
    }

    package func fetchValuesAsync(_ plan: FetchPlan, columns: [StoreExpression]) async throws(StrataError) -> StoredValueRows {
        try collectValues(plan, columns: columns)
    }

    /// ``fetchValues(_:columns:_:)``'s rows, kept.
    package func collectValues(_ plan: FetchPlan, columns: [StoreExpression]) throws(StrataError) -> StoredValueRows {
        var rows = StoredValueRows(columnCount: columns.count)
        try fetchValues(plan, columns: columns) { rows.append($0) }
        return rows
    }

    package func saveAsync(_ request: SaveRequest, origin: ObjectIdentifier?) async throws(StrataError) -> SaveResult {
        try save(request, origin: origin)
    }

    /// The store as contexts await it.
    package var awaitable: any AsyncPersistentStore {
        (self as? any AsyncPersistentStore) ?? SynchronousStoreAwaiting(store: self)
    }
}

/// A synchronous store seen through ``AsyncPersistentStore``.
private final class SynchronousStoreAwaiting: AsyncPersistentStore {
    let store: any PersistentStore

    init(store: any PersistentStore) {
        self.store = store
    }

    func fetchRowsAsync(_ plan: FetchPlan) async throws(StrataError) -> [StoredRow] {
        try await store.fetchRowsAsync(plan)
    }

    func fetchKeysAsync(_ plan: FetchPlan) async throws(StrataError) -> [Int64] {
        try store.fetchKeys(plan)
    }

    func countAsync(_ plan: FetchPlan) async throws(StrataError) -> Int {
        try store.count(plan)
    }

    func fetchValuesAsync(_ plan: FetchPlan, columns: [StoreExpression]) async throws(StrataError) -> StoredValueRows {
        try store.collectValues(plan, columns: columns)
    }

    func saveAsync(_ request: SaveRequest, origin: ObjectIdentifier?) async throws(StrataError) -> SaveResult {
        try store.save(request, origin: origin)
    }
}
