import Foundation

/// What a context reads its objects from and saves its changes into.
///
/// A context over a container's store has the coordinator as its parent
/// store, which answers from the persistent store; a child context has its
/// parent context, which answers from its own current state (unsaved changes
/// included) and takes the child's saves as unsaved changes of its own. The
/// context asks the same questions either way, so it holds no "am I a child?"
/// branches: it applies its own unsaved changes to what its parent store
/// answers, and a chain of children works level by level.
///
/// Every method runs in the asking context's isolation domain (a child
/// context lives in its parent's). Objects handed back belong to the asking
/// context.
///
/// ```swift
/// // Inside the context: the same call for a top-level or a child context.
/// let stored = try parentStore.fetch(request, in: self)
/// ```
package protocol ParentStore: AnyObject {
    /// The identifier of the store at the root of the chain (part of every
    /// saved object's ID); nil while no store is loaded.
    var storeIdentifier: String? { get }

    /// Stored rows straight from the store at the root, by key or by key range:
    /// the pages of a batched fetch, which only a context over the store makes.
    func storedRows(
        entityIndex: Int, keys: StoredRowKeys, in context: ManagedObjectContext, _ body: (any StoreRow) throws -> Void
    ) throws

    /// Runs a batch request against the store at the root, as one transaction
    /// (batch requests bypass every context, as in Core Data).
    func execute(_ operation: some BatchOperation, in context: ManagedObjectContext) throws -> BatchResult

    /// The objects a request matches in the parent store, in its order, with
    /// its limit and offset; the asking context's own unsaved changes are not
    /// applied (the context does that).
    func fetch<T: PersistentModel>(_ request: FetchRequest<T>, in context: ManagedObjectContext) throws -> [T]

    /// ``fetch(_:in:)``, awaiting a store that answers over a network.
    nonisolated(nonsending) func fetchAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, in context: ManagedObjectContext
    ) async throws -> [T]

    /// A request's matches as objects loaded in batches of `batchSize` as they are used.
    func fetch<T: PersistentModel>(
        _ request: FetchRequest<T>, batchSize: Int, in context: ManagedObjectContext
    ) throws -> FetchResultsCollection<T>

    /// How many objects a request matches in the parent store.
    func count<T: PersistentModel>(_ request: FetchRequest<T>, in context: ManagedObjectContext) throws -> Int

    /// ``count(_:in:)``, awaiting the store.
    nonisolated(nonsending) func countAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, in context: ManagedObjectContext
    ) async throws -> Int

    /// The identifiers of a request's matches, in its order.
    func fetchIdentifiers<T: PersistentModel>(_ request: FetchRequest<T>, in context: ManagedObjectContext) throws -> [ObjectID]

    /// ``fetchIdentifiers(_:in:)``, awaiting the store.
    nonisolated(nonsending) func fetchIdentifiersAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, in context: ManagedObjectContext
    ) async throws -> [ObjectID]

    /// One value computed over a request's matches (`collation` orders the values compared).
    func aggregate<T: PersistentModel, Value>(
        _ aggregate: Aggregate<T, Value>, of request: FetchRequest<T>, collation: Collation, in context: ManagedObjectContext
    ) throws -> Value

    /// The values of the properties at `ordinals` (attributes and to-one
    /// relationships) of a request's matches, in its order and page, one row
    /// per call of `body`, without making objects where the parent store can
    /// avoid it.
    func fetchValues<T: PersistentModel>(
        _ request: FetchRequest<T>, ordinals: [Int], in context: ManagedObjectContext,
        _ body: (inout ProjectionRow) throws -> Void
    ) throws

    /// ``fetchValues(_:ordinals:in:_:)``, awaiting the store; `body` runs
    /// once the answer is in.
    nonisolated(nonsending) func fetchValuesAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, ordinals: [Int], in context: ManagedObjectContext,
        _ body: (inout ProjectionRow) throws -> Void
    ) async throws

    /// The groups of a request's matches: each kept group's keys then its
    /// aggregates, in the grouped fetch's order and page.
    func fetchGroups<T: PersistentModel>(
        _ request: FetchRequest<T>, _ group: GroupedFetch<T>, in context: ManagedObjectContext
    ) throws -> [[StoredValue]]

    /// The asking context's object for an ID it has not registered, loaded;
    /// `.objectNotFound` when the parent store has no such object.
    func object(with id: ObjectID, in context: ManagedObjectContext) throws -> any PersistentModel

    /// Loads a fault of the asking context with its current values.
    func fulfill(_ backing: ModelBacking, in context: ManagedObjectContext) throws

    /// An object's current values and version in the parent store, or nil
    /// when it has none (a refresh reads these).
    func currentValues(
        of backing: ModelBacking, in context: ManagedObjectContext
    ) throws -> (values: ContiguousArray<StoredValue>, version: Int64)?

    /// The current values of the rows with these keys that still exist, in any
    /// order (a merge of history reads these).
    func readValues(
        entityIndex: Int, primaryKeys: [Int64], in context: ManagedObjectContext, _ body: (StoredRow) throws -> Void
    ) throws

    /// The members of a to-many relationship of saved owners, as the parent
    /// store holds them, as objects of the asking context: one list per owner,
    /// in the owners' order, read together (a prefetch reads many owners' at once).
    /// `everyOwner`: the owners are every stored object of their entity.
    func members(
        of owners: [any PersistentModel], ordinal: Int, everyOwner: Bool, in context: ManagedObjectContext
    ) throws -> [[any PersistentModel]]

    /// Takes every insert, change and deletion of the asking context, all or nothing.
    func save(changesOf context: ManagedObjectContext) throws

    /// ``save(changesOf:)``, awaiting the store.
    nonisolated(nonsending) func saveAsync(changesOf context: ManagedObjectContext) async throws
}

/// Which stored rows ``ParentStore/storedRows(entityIndex:keys:in:_:)`` reads.
package enum StoredRowKeys {
    case keys([Int64])
    /// Every row with a key in the range.
    case range(ClosedRange<Int64>)
}
