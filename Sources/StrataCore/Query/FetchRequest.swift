import Foundation

/// What to fetch: an entity, an optional predicate, a sort order and limits.
///
/// ```swift
/// var request = FetchRequest<Book>(
///     predicate: #Predicate { $0.year >= 2000 },
///     sortBy: [SortDescriptor(\.title)])
/// request.fetchLimit = 20
/// let books = try context.fetch(request)
/// ```
public struct FetchRequest<Model: PersistentModel> {
    /// Which objects match; nil for all.
    public var predicate: Predicate<Model>?
    /// The order of the results; empty for store order.
    public var sortBy: [SortDescriptor<Model>]
    /// The most objects to return; nil for no limit.
    public var fetchLimit: Int?
    /// How many matching objects to skip first.
    public var fetchOffset: Int = 0
    /// When above zero, ``ManagedObjectContext/fetch(_:)`` returns faults whose
    /// values load in batches of this size as they are first used. For results
    /// too large to hold at once, use ``ManagedObjectContext/fetch(_:batchSize:)``.
    public var fetchBatchSize: Int = 0
    /// Whether unsaved inserts, changes and deletes of the context count.
    public var includesPendingChanges: Bool = true
    /// Relationships to load together with the results: one read per
    /// relationship, not one per object.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<Model>] = []
    /// Relationships of related objects to load too (see `prefetch(_:then:)`).
    var nestedPrefetching: [NestedPrefetch] = []

    public init(predicate: Predicate<Model>? = nil, sortBy: [SortDescriptor<Model>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

extension FetchRequest {
    /// The same matches in the same order, without offset, limit, batching or
    /// prefetching: what a context combines with its unsaved changes before
    /// it pages the whole.
    var wholeResults: FetchRequest {
        var whole = self
        whole.fetchLimit = nil
        whole.fetchOffset = 0
        whole.fetchBatchSize = 0
        whole.relationshipKeyPathsForPrefetching = []
        whole.nestedPrefetching = []
        return whole
    }
}

extension FetchRequest {
    /// Loads a to-many relationship of the results and, for all its members
    /// together, relationships of theirs: one read per relationship per fetch.
    ///
    /// ```swift
    /// var request = FetchRequest<Author>()
    /// request.prefetch(\.books, then: [\Book.publisher])   // two reads, however many authors and books
    /// ```
    public mutating func prefetch<Member: PersistentModel>(
        _ relationship: KeyPath<Model, [Member]>, then nested: [PartialKeyPath<Member>]
    ) {
        addPrefetch(relationship, memberType: Member.self, nested: nested)
    }

    /// Loads a to-one relationship of the results and, for all their
    /// destinations together, relationships of theirs.
    ///
    /// ```swift
    /// var request = FetchRequest<Book>()
    /// request.prefetch(\.author, then: [\Author.books])
    /// ```
    public mutating func prefetch<Member: PersistentModel>(
        _ relationship: KeyPath<Model, Member?>, then nested: [PartialKeyPath<Member>]
    ) {
        addPrefetch(relationship, memberType: Member.self, nested: nested)
    }

    private mutating func addPrefetch(
        _ relationship: PartialKeyPath<Model>, memberType: any PersistentModel.Type, nested: [AnyKeyPath]
    ) {
        if !relationshipKeyPathsForPrefetching.contains(relationship) {
            relationshipKeyPathsForPrefetching.append(relationship)
        }
        nestedPrefetching.append(NestedPrefetch(relationship: relationship, memberType: memberType, keyPaths: nested))
    }
}

/// Relationships of the objects one relationship of the results reaches, to
/// load with the results.
struct NestedPrefetch {
    let relationship: AnyKeyPath
    let memberType: any PersistentModel.Type
    let keyPaths: [AnyKeyPath]
}
