import Foundation

/// The results of a batched fetch: a random-access collection that loads its
/// objects one batch at a time, as they are used.
///
/// The fetch itself reads only the matching primary keys. Using an element
/// loads the batch around it with one query; moving on to another batch lets
/// go of the previous one's objects unless something else holds them or they
/// have unsaved changes. Memory stays bounded by the batch size however large
/// the result, so a million rows can be read in a loop.
///
/// ```swift
/// var total = 0
/// for book in try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)]), batchSize: 1_000) {
///     total += book.year
/// }
/// ```
///
/// The collection belongs to its context's isolation domain and keeps the
/// context alive. Its order and membership are fixed when it is fetched, like
/// an array's. When the context has unsaved changes that the request must
/// include, or is a child context, the objects are loaded whole at once.
public struct FetchResultsCollection<Model: PersistentModel>: RandomAccessCollection {
    private enum Storage {
        case loaded([Model])
        case batches(BatchedFetch)
    }

    private let storage: Storage

    init(_ objects: [Model]) {
        storage = .loaded(objects)
    }

    init(batches: BatchedFetch) {
        storage = .batches(batches)
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .loaded(let objects): objects.count
        case .batches(let batches): batches.count
        }
    }

    public subscript(position: Int) -> Model {
        switch storage {
        case .loaded(let objects):
            return objects[position]
        case .batches(let batches):
            // Every object of the fetch was made for `Model`'s entity.
            return unsafeDowncast(batches.object(at: position) as AnyObject, to: Model.self)
        }
    }
}

@available(*, unavailable, message: "Fetched objects belong to their context's isolation domain; pass ObjectIDs instead")
extension FetchResultsCollection: Sendable {}

/// The keys of a batched fetch and the one batch of objects it holds now;
/// shared by the copies of a ``FetchResultsCollection``.
final class BatchedFetch {
    private let context: ManagedObjectContext
    private let entity: EntityDescription
    private let keys: [Int64]
    private let batchSize: Int
    private let prefetchOrdinals: [Int]
    /// The batch held now: `keys[batchStart..<batchStart + batch.count]`.
    private var batchStart = 0
    private var batch = ContiguousArray<any PersistentModel>()
    /// The context's reset count when the batch was loaded: a reset invalidates it.
    private var batchGeneration = 0

    init(context: ManagedObjectContext, entity: EntityDescription, keys: [Int64], batchSize: Int, prefetchOrdinals: [Int]) {
        self.context = context
        self.entity = entity
        self.keys = keys
        self.batchSize = batchSize
        self.prefetchOrdinals = prefetchOrdinals
    }

    deinit {
        releaseBatch()
    }

    var count: Int { keys.count }

    func object(at position: Int) -> any PersistentModel {
        precondition(position >= 0 && position < keys.count, "Strata: index \(position) is out of range")
        let offset = position &- batchStart
        if offset >= 0, offset < batch.count, batchGeneration == context.resetCount {
            return batch[offset]
        }
        loadBatch(containing: position)
        return batch[position - batchStart]
    }

    private func loadBatch(containing position: Int) {
        releaseBatch()
        let start = position / batchSize * batchSize
        let keys = self.keys[start..<min(start + batchSize, self.keys.count)]
        batchStart = start
        batchGeneration = context.resetCount
        do {
            batch = try context.objects(forKeys: keys, entity: entity)
        } catch {
            // An element cannot throw: hand out faults, which load (or report
            // the failure) one by one when used.
            context.reportUnthrown(error)
            batch = ContiguousArray(keys.map {
                context.registerFault(entity: entity, primaryKey: $0)
            })
        }
        guard !prefetchOrdinals.isEmpty else { return }
        do {
            try context.prefetch(prefetchOrdinals, of: batch, entity: entity)
        } catch {
            // Relationships not prefetched load when used.
            context.reportUnthrown(error)
        }
    }

    /// Drops the batch, and with it the objects nothing else holds.
    private func releaseBatch() {
        guard !batch.isEmpty else { return }
        batch = []
        guard batchGeneration == context.resetCount else { return }
        let end = min(batchStart + batchSize, keys.count)
        context.releaseUnreferencedObjects(entityIndex: entity.index, keys: keys[batchStart..<end])
    }
}
