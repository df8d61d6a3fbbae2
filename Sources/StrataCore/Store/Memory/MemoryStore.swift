import Foundation
import Metrics

/// A store that keeps its rows in memory, in pure Swift: Core Data's in-memory
/// store type. Predicates and sorts are evaluated by walking Strata's neutral
/// query form (``MemoryEvaluator``), with no SQL anywhere.
///
/// It behaves as the SQLite store does — versions, uniqueness, delete rules,
/// to-many order, history, batch requests, metadata — so tests can run on it
/// and it serves as the reference model in differential tests. It differs in
/// what it cannot have: no file (its rows are gone with the container), no
/// other writers (so no remote changes), and no format or schema on disk.
/// Every read and write takes one lock, so its calls run one at a time.
///
/// ```swift
/// container.storeDescriptions = [.memory()]
/// try await container.loadPersistentStores()
/// ```
package final class MemoryStore: PersistentStore {
    package let identifier = UUID().uuidString
    package let schema: Schema
    package let options: StoreOptions
    package let isReadOnly = false
    package let originIdentifier = UUID()
    package let telemetry: StoreTelemetry
    let observers = StoreObservers()
    let state: MemoryStateLock

    /// The database and what history it recorded, guarded by the store's lock.
    struct MemoryState: ~Copyable {
        let database: MemoryDatabase
        var history = MemoryHistory()
        var isClosed = false
    }

    package init(schema: Schema, options: StoreOptions = StoreOptions(), metricsFactory: any MetricsFactory = MetricsSystem.factory) {
        telemetry = StoreTelemetry(DatabaseIdentity(system: "strata.memory", namespace: "memory"), metricsFactory: metricsFactory)
        self.schema = schema
        self.options = options
        state = MemoryStateLock(MemoryState(database: MemoryDatabase(schema: schema)))
    }

    /// Runs `body` on the database under the lock; throws once the store is closed.
    func withDatabase<T>(_ body: (MemoryDatabase, inout MemoryHistory) throws(StrataError) -> T) throws(StrataError) -> T {
        let result: Result<T, StrataError> = state.withLock { state in
            guard !state.isClosed else {
                return .failure(StrataError(.storeNotLoaded, "The in-memory store was closed"))
            }
            do throws(StrataError) { return .success(try body(state.database, &state.history)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Runs one write as a transaction: all of it, or (when it throws) none.
    func write<T>(_ body: (MemoryDatabase, inout MemoryHistory) throws(StrataError) -> T) throws(StrataError) -> T {
        try writeOrTakeBack { database, history throws(StrataError) in .some(try body(database, &history)) }!
    }

    /// Runs one write as a transaction that `body` may also take back by
    /// returning nil (then this returns nil too).
    func writeOrTakeBack<T>(
        _ body: (MemoryDatabase, inout MemoryHistory) throws(StrataError) -> T?
    ) throws(StrataError) -> T? {
        if isReadOnly { throw StrataError(.readOnlyStore, "The store is read-only; nothing was written") }
        return try withDatabase { database, history throws(StrataError) in
            let recorded = history.transactions.count, lastNumber = history.lastNumber
            func takeBack() {
                database.rollback()
                history.transactions.removeSubrange(recorded...)
                history.lastNumber = lastNumber
            }
            database.begin()
            do throws(StrataError) {
                guard let result = try body(database, &history) else {
                    takeBack()
                    return nil
                }
                try database.commit()
                return result
            } catch {
                takeBack()
                throw error
            }
        }
    }

    // MARK: Reading

    package func fetchRows(_ plan: FetchPlan, _ body: (any StoreRow) throws -> Void) throws(StrataError) {
        let rows = try withDatabase { database, _ throws(StrataError) in
            try Self.select(plan, in: database).compactMap { key in database.row(plan.entityIndex, key).map { (key, $0) } }
        }
        try deliver(rows, entityIndex: plan.entityIndex, body)
    }

    package func fetchKeys(_ plan: FetchPlan) throws(StrataError) -> [Int64] {
        try withDatabase { database, _ throws(StrataError) in try Self.select(plan, in: database) }
    }

    package func count(_ plan: FetchPlan) throws(StrataError) -> Int {
        try withDatabase { database, _ throws(StrataError) in try Self.select(plan, in: database).count }
    }

    package func aggregate(
        _ plan: FetchPlan, _ function: AggregateFunction, of value: StoreExpression?, collation: Collation
    ) throws(StrataError) -> StoredValue {
        try withDatabase { database, _ throws(StrataError) in
            let keys = try Self.select(plan, in: database)
            guard let value else { return .integer(Int64(keys.count)) }
            var evaluator = MemoryEvaluator(database: database)
            let values = keys.map { evaluator.value(value, entityIndex: plan.entityIndex, key: $0) }
            if let failure = evaluator.failure { throw failure }
            return try function.compute(values, collation: collation).get()
        }
    }

    package func fetchValues(
        _ plan: FetchPlan, columns: [StoreExpression], _ body: (StoreValueRow) throws -> Void
    ) throws(StrataError) {
        // Values are computed under the lock; `body` runs after it, as it may
        // call back into this store.
        let rows = try withDatabase { database, _ throws(StrataError) in
            let keys = try Self.select(plan, in: database)
            var evaluator = MemoryEvaluator(database: database)
            let rows = keys.map { key in (key, columns.map { evaluator.value($0, entityIndex: plan.entityIndex, key: key) }) }
            if let failure = evaluator.failure { throw failure }
            return rows
        }
        let buffer = StoreValueBuffer(count: columns.count)
        do {
            for (key, values) in rows {
                for column in 0..<columns.count { buffer.set(column, values[column]) }
                try buffer.row(primaryKey: key, body)
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.sqlite, "Reading the in-memory store failed", underlyingError: SendableDescription(error))
        }
    }

    package func fetchGroups(_ plan: FetchPlan, _ query: GroupQuery) throws(StrataError) -> [[StoredValue]] {
        try withDatabase { database, _ throws(StrataError) in
            let keys = try Self.select(plan, in: database)
            var evaluator = MemoryEvaluator(database: database)
            let values = query.keys.map(\.value) + query.aggregates.map { $0.value ?? .value(.null) }
            let rows = keys.map { key in values.map { evaluator.value($0, entityIndex: plan.entityIndex, key: key) } }
            if let failure = evaluator.failure { throw failure }
            return try query.compute(rows).get()
        }
    }

    package func fetchRow(entityIndex: Int, primaryKey: Int64) throws(StrataError) -> StoredRow? {
        try withDatabase { database, _ in
            database.row(entityIndex, primaryKey).map { StoredRow(primaryKey: primaryKey, version: $0.version, values: $0.values) }
        }
    }

    package func fetchRows(
        entityIndex: Int, primaryKeys: [Int64], _ body: (any StoreRow) throws -> Void
    ) throws(StrataError) {
        // By chunks of 500 keys, each row once and in key order within its
        // chunk: what the SQLite store's `pk IN (…)` reads give.
        let rows = try withDatabase { database, _ throws(StrataError) in
            stride(from: 0, to: primaryKeys.count, by: 500).flatMap { start in
                Set(primaryKeys[start..<min(start + 500, primaryKeys.count)]).sorted().compactMap { key in
                    database.row(entityIndex, key).map { (key, $0) }
                }
            }
        }
        try deliver(rows, entityIndex: entityIndex, body)
    }

    package func fetchRows(
        entityIndex: Int, keyRange: ClosedRange<Int64>, _ body: (any StoreRow) throws -> Void
    ) throws(StrataError) {
        let rows = try withDatabase { database, _ throws(StrataError) in
            database.keys(entityIndex, in: keyRange).compactMap { key in database.row(entityIndex, key).map { (key, $0) } }
        }
        try deliver(rows, entityIndex: entityIndex, body)
    }

    package func fetchMembers(
        entityIndex: Int, ordinal: Int, owner: Int64, _ body: (any StoreRow) throws -> Void
    ) throws(StrataError) {
        guard let shape = schema.toManyShape(entityIndex: entityIndex, ordinal: ordinal) else { return }
        let destination = shape.destinationIndex
        let rows = try withDatabase { database, _ throws(StrataError) in
            database.orderedMembers(of: owner, shape: shape).compactMap { key in database.row(destination, key).map { (key, $0) } }
        }
        try deliver(rows, entityIndex: destination, body)
    }

    package func fetchMembers(
        entityIndex: Int, ordinal: Int, owners: [Int64], everyOwner: Bool,
        _ body: (_ owner: Int64, _ position: MemberPosition, any StoreRow) throws -> Void
    ) throws(StrataError) {
        for owner in owners {
            try fetchMembers(entityIndex: entityIndex, ordinal: ordinal, owner: owner) { row in try body(owner, .next, row) }
        }
    }

    /// Hands rows copied under the lock to `body`, outside it (the reader may
    /// call the store again).
    private func deliver(
        _ rows: [(Int64, MemoryDatabase.Row)], entityIndex: Int, _ body: (any StoreRow) throws -> Void
    ) throws(StrataError) {
        let cursor = MemoryRowCursor(propertyCount: schema.entities[entityIndex].properties.count)
        do {
            for (key, row) in rows {
                cursor.move(to: key, row)
                try body(cursor)
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.sqlite, "Reading the in-memory store failed", underlyingError: SendableDescription(error))
        }
    }

    /// The keys a plan selects, in its order, paged.
    static func select(_ plan: FetchPlan, in database: MemoryDatabase) throws(StrataError) -> [Int64] {
        var evaluator = MemoryEvaluator(database: database)
        var keys: [Int64]
        if let indexed = try indexedSelect(plan, in: database) {
            keys = indexed
        } else {
            keys = try filteredAndSorted(plan, in: database, evaluator: &evaluator)
        }
        guard plan.isLimited else { return keys }
        let start = min(plan.offset, keys.count)
        // A negative limit is no limit, as SQLite's `LIMIT -1`.
        let end = plan.limit.map { $0 < 0 ? keys.count : start + min($0, keys.count - start) } ?? keys.count
        return Array(keys[start..<end])
    }

    /// Every row tested, then sorted.
    private static func filteredAndSorted(
        _ plan: FetchPlan, in database: MemoryDatabase, evaluator: inout MemoryEvaluator
    ) throws(StrataError) -> [Int64] {
        var keys = database.keys(plan.entityIndex)
        if let predicate = plan.predicate {
            keys = keys.filter { evaluator.matches(predicate, entityIndex: plan.entityIndex, key: $0) }
        }
        if !plan.sort.isEmpty {
            // Each key's sort values once, then a stable sort on them (keys ascend already).
            let values = keys.map { key in plan.sort.map { evaluator.value($0.value, entityIndex: plan.entityIndex, key: key) } }
            let order = keys.indices.sorted { a, b in
                for (position, term) in plan.sort.enumerated() {
                    let result = StoredValueOrder.compare(values[a][position], values[b][position], collation: term.collation ?? .binary)
                    if result == .orderedSame { continue }
                    return (result == .orderedAscending) == term.ascending
                }
                return a < b
            }
            keys = order.map { keys[$0] }
        }
        if let failure = evaluator.failure { throw failure }
        return keys
    }

    // MARK: Metadata

    package func appMetadata() throws(StrataError) -> [String: StoredValue] {
        try withDatabase { database, _ in database.metadata }
    }

    package func setAppMetadata(_ changes: [String: StoredValue?]) throws(StrataError) {
        try write { database, _ in
            for (key, value) in changes { database.setMetadata(value, forKey: key) }
        }
        didCommit(ChangeSet(storeIdentifier: identifier))
    }

    // MARK: Observing

    package func addObserver(_ observer: any StoreObserver) { observers.add(observer) }

    /// Tells observers of a commit, after the lock is released.
    func didCommit(_ changes: ChangeSet) {
        for observer in observers.current() { observer.store(self, didCommit: changes) }
    }

    /// An in-memory store has no other writers: there is nothing to watch.
    package func startWatchingRemoteChanges(_ handler: @escaping @Sendable (RemoteChange) -> Void) throws(StrataError) {}
    package func stopWatchingRemoteChanges() {}

    package func close() throws(StrataError) {
        state.withLock { $0.isClosed = true }
    }
}

/// A row of the in-memory store as handed to a reader.
final class MemoryRowCursor: StoreRow {
    let propertyCount: Int
    private(set) var primaryKey: Int64 = 0
    private(set) var version: Int64 = 0
    private var values: ContiguousArray<StoredValue> = []

    init(propertyCount: Int) {
        self.propertyCount = propertyCount
    }

    func move(to key: Int64, _ row: MemoryDatabase.Row) {
        primaryKey = key
        version = row.version
        values = row.values
    }

    func initializeValues(_ target: UnsafeMutablePointer<StoredValue>) {
        values.withUnsafeBufferPointer { target.initialize(from: $0.baseAddress!, count: propertyCount) }
    }
}

/// The store's state under a lock ThreadSanitizer can see: `NSLock` is a
/// pthread mutex, which it intercepts, where `Synchronization.Mutex` on Linux
/// is invisible to it and every contended access would be reported as a race.
final class MemoryStateLock: @unchecked Sendable {  // `state` is only touched inside `withLock`
    private let lock = NSLock()
    private var state: MemoryStore.MemoryState

    init(_ state: consuming MemoryStore.MemoryState) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout MemoryStore.MemoryState) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
