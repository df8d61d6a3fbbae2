import Foundation

/// What a context needs from a store, in Strata's own terms: fetch plans and
/// neutral conditions in, rows and change sets out. No SQL crosses it, and the
/// store never sees an object: contexts make objects from the rows it hands out.
///
/// Every store is shared by the contexts of a container and is safe to call
/// from any thread. Reads see a consistent snapshot each; every write (a save,
/// a batch request, metadata) is one atomic transaction that either commits
/// whole or leaves the store as it was, and is announced to observers after it
/// commits.
///
/// ``MemoryStore`` (pure Swift, rows in memory) lives beside this protocol;
/// the SQLite store (StrataSQLite) and the PostgreSQL store (StrataPostgres)
/// live in modules of their own, and each kind is opened through the
/// ``StoreOpener`` of its ``StoreDescription/StoreType``. Every store answers
/// synchronously; one that must wait for a network adopts
/// ``AsyncPersistentStore`` as well, and contexts await it through their
/// `…Async` methods (see DESIGN.md, "Adding a store").
///
/// ```swift
/// let store: any PersistentStore = MemoryStore(schema: schema)
/// let plan = try PredicateCompiler(schema: schema, entity: book).plan(for: FetchRequest<Book>())
/// try store.fetchRows(plan) { row in print(row.primaryKey) }
/// ```
package protocol PersistentStore: AnyObject, Sendable {
    /// The store's UUID, recorded in the store; part of every ``ObjectID``.
    var identifier: String { get }
    /// The schema the store was opened with.
    var schema: Schema { get }
    /// What the store records beyond rows (history, remote changes).
    var options: StoreOptions { get }
    var isReadOnly: Bool { get }
    /// Identifies this loaded instance in the history it records.
    var originIdentifier: UUID { get }
    /// Its spans and metrics, made when it opened.
    var telemetry: StoreTelemetry { get }

    // MARK: Reading

    /// The rows a plan selects, in its order, one call of `body` each.
    func fetchRows(_ plan: FetchPlan, _ body: (any StoreRow) throws -> Void) throws(StrataError)
    /// The primary keys of the rows a plan selects, in its order.
    func fetchKeys(_ plan: FetchPlan) throws(StrataError) -> [Int64]
    /// How many rows a plan selects (its page, when it has one).
    func count(_ plan: FetchPlan) throws(StrataError) -> Int
    /// One function over `value` for the rows a plan selects (its page, when
    /// it has one); `value` is nil for `.count`. Values compare by `collation`.
    func aggregate(
        _ plan: FetchPlan, _ function: AggregateFunction, of value: StoreExpression?, collation: Collation
    ) throws(StrataError) -> StoredValue
    /// The primary key and the values of `columns` of each row a plan
    /// matches, in its order and page, without the rest of the row (partial
    /// results and projections): one call of `body` each, with the values in
    /// a buffer the store reuses (see ``StoreValueRow``).
    func fetchValues(
        _ plan: FetchPlan, columns: [StoreExpression], _ body: (StoreValueRow) throws -> Void
    ) throws(StrataError)
    /// The groups of the rows a plan selects (its page, when it has one): for
    /// each group the query keeps, its key values then its aggregates, in the
    /// query's order and page (see ``GroupQuery/compute(_:)`` for the meaning).
    func fetchGroups(_ plan: FetchPlan, _ query: GroupQuery) throws(StrataError) -> [[StoredValue]]
    /// One row by primary key; nil when it does not exist.
    func fetchRow(entityIndex: Int, primaryKey: Int64) throws(StrataError) -> StoredRow?
    /// The rows with these keys, in no particular order; missing keys are skipped.
    func fetchRows(entityIndex: Int, primaryKeys: [Int64], _ body: (any StoreRow) throws -> Void) throws(StrataError)
    /// The rows whose keys fall in a range, in key order.
    func fetchRows(entityIndex: Int, keyRange: ClosedRange<Int64>, _ body: (any StoreRow) throws -> Void) throws(StrataError)
    /// The members of one owner's to-many relationship, in their stored order.
    func fetchMembers(
        entityIndex: Int, ordinal: Int, owner: Int64, _ body: (any StoreRow) throws -> Void
    ) throws(StrataError)
    /// The members of one to-many relationship of many owners at once (a
    /// prefetch), each with its owner's key and where it stands among that
    /// owner's members (see ``MemberPosition``). `everyOwner`: the owners are
    /// every stored row of their entity (a fetch of them all read them), so
    /// nearly every member row is wanted.
    func fetchMembers(
        entityIndex: Int, ordinal: Int, owners: [Int64], everyOwner: Bool,
        _ body: (_ owner: Int64, _ position: MemberPosition, any StoreRow) throws -> Void
    ) throws(StrataError)

    // MARK: Writing

    /// Writes a context's changes as one transaction. Conflicts found before
    /// anything is written come back in the result, with nothing written.
    func save(_ request: SaveRequest, origin: ObjectIdentifier?) throws(StrataError) -> SaveResult
    /// Inserts rows of one entity; a taken unique key fails the whole batch.
    func batchInsert(entityIndex: Int, rows: [[StoredValue]], transaction: BatchTransaction) throws(StrataError) -> BatchWriteResult
    /// Inserts rows of one entity, settling taken unique keys by `action`.
    func batchUpsert(
        entityIndex: Int, rows: BatchRows, action: UpsertAction, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult
    /// Sets attributes of every row matching a condition (nil: every row).
    func batchUpdate(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue], transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult
    /// Deletes rows and whatever their delete rules cascade to.
    func batchDelete(
        entityIndex: Int, selection: BatchDeleteSelection, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult

    // MARK: History

    func fetchHistory(_ request: HistoryRequest) throws(StrataError) -> [HistoryTransaction]
    func currentHistoryToken() throws(StrataError) -> HistoryToken?
    /// Deletes the transactions before `token`; returns how many went.
    func deleteHistory(before token: HistoryToken) throws(StrataError) -> Int
    /// Deletes the transactions saved before `date`; returns how many went.
    func deleteHistory(before date: Date) throws(StrataError) -> Int

    // MARK: Metadata

    /// The app-defined metadata values, by key.
    func appMetadata() throws(StrataError) -> [String: StoredValue]
    /// Sets (nil: removes) app-defined metadata values in a transaction of their own.
    func setAppMetadata(_ changes: [String: StoredValue?]) throws(StrataError)

    // MARK: Observing

    /// Registers an observer of every commit of this store instance (weakly held).
    func addObserver(_ observer: any StoreObserver)
    /// Starts watching for other writers' commits; a store that cannot see
    /// them (it has no other writers) does nothing.
    func startWatchingRemoteChanges(_ handler: @escaping @Sendable (RemoteChange) -> Void) throws(StrataError)
    func stopWatchingRemoteChanges()

    /// Ends the store's use: later calls fail with `.storeNotLoaded` or the store's own error.
    func close() throws(StrataError)
}
