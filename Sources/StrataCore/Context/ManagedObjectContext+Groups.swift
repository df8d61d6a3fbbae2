import Foundation

// Grouped results: aggregates per group of a request's matches, as typed rows.

extension ManagedObjectContext {
    /// The groups of a request's matches that share the values of `keys`,
    /// with `aggregates` computed for each: Core Data's `propertiesToGroupBy`
    /// with expression descriptions and a `havingPredicate`, as typed rows.
    ///
    /// Keys are attributes, also through to-one relationships (a `nil` on the
    /// way makes the key `nil`, a group of its own) or folded (`\.title.folded`).
    /// The request's predicate chooses the objects (its page, when it has one);
    /// `having` keeps the groups whose aggregates meet it; groups come in the
    /// order of `sortBy`, then by their keys ascending, and `offset` and
    /// `limit` page them. A store answers in one statement; when the request
    /// includes this context's unsaved changes of the entity, the groups are
    /// computed over the objects a fetch would return, with the same meaning.
    ///
    /// ```swift
    /// let years = try context.fetchGroups(
    ///     of: FetchRequest<Book>(predicate: #Predicate { $0.rating != nil }),
    ///     by: \.year, computing: .count, .average(\.rating),
    ///     having: .count > 1, sortBy: [.aggregate(.count, .reverse)], limit: 10)
    /// for group in years {
    ///     print(group.keys, group.values.0, group.values.1 ?? 0)   // year, books, mean rating
    /// }
    /// ```
    public func fetchGroups<T: PersistentModel, each Key: PersistentValue, each Value>(
        of request: FetchRequest<T>,
        by keys: repeat KeyPath<T, each Key>,
        computing aggregates: repeat Aggregate<T, each Value>,
        having condition: GroupCondition<T>? = nil,
        sortBy order: [GroupOrder<T>] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) throws -> [FetchedGroup<(repeat each Key), (repeat each Value)>] {
        do {
            mergePendingChanges()
            var group = try GroupedFetch<T>(schema: schema)
            for keyPath in repeat each keys { try group.addKey(keyPath) }
            for aggregate in repeat each aggregates { try group.addAggregate(AggregateTerm(aggregate)) }
            try group.finish(having: condition, order: order, limit: limit, offset: offset)

            let rows = if request.includesPendingChanges && hasPendingChanges(entityIndex: group.entity.index) {
                try groupsInMemory(request, group)
            } else {
                try parentStore.fetchGroups(request, group, in: self)
            }
            return try rows.map { row throws in
                let cursor = GroupRowReader(row: row)
                let keyValues = (repeat try cursor.key(each keys))
                let aggregateValues = (repeat try cursor.aggregate(each aggregates))
                return FetchedGroup(keys: keyValues, values: aggregateValues)
            }
        } catch {
            report(error)
            throw error
        }
    }

    /// Groups computed over the objects a fetch returns (this context's unsaved changes count).
    func groupsInMemory<T: PersistentModel>(_ request: FetchRequest<T>, _ group: GroupedFetch<T>) throws -> [[StoredValue]] {
        let rows = try fetch(request).map { object in group.reads.map { $0(object) } }
        return try group.query.compute(rows).get()
    }
}

/// A grouped fetch compiled for one entity: the store's ``GroupQuery`` and,
/// for computing it over objects, how to read each of its values from one.
package struct GroupedFetch<T: PersistentModel> {
    let entity: EntityDescription
    private let compiler: PredicateCompiler
    private(set) var query = GroupQuery(keys: [], aggregates: [], having: nil, order: [], limit: nil, offset: 0)
    /// The key paths grouped by, in order.
    private var keyPaths: [AnyKeyPath] = []
    /// The aggregates computed: those asked for, then those only a condition or order names.
    private var terms: [AggregateTerm<T>] = []
    /// Reads a key, then each aggregate's value, from an object.
    private(set) var reads: [(T) -> StoredValue] = []

    init(schema: Schema) throws(StrataError) {
        entity = try schema.entity(for: T.self)
        compiler = PredicateCompiler(schema: schema, entity: entity)
    }

    mutating func addKey<K: PersistentValue>(_ keyPath: KeyPath<T, K>) throws(StrataError) {
        let (value, _) = try compiler.sortValue(keyPath)
        query.keys.append(GroupQuery.Key(value: value, collation: valueCollation(of: K.self)))
        keyPaths.append(keyPath)
        reads.append { $0[keyPath: keyPath].storedValue }
    }

    /// Adds an aggregate unless the same one is there; returns its index.
    @discardableResult
    mutating func addAggregate(_ term: AggregateTerm<T>, reusing: Bool = false) throws(StrataError) -> Int {
        if reusing, let index = terms.firstIndex(where: { $0.isSame(as: term) }) { return index }
        let collation = try aggregateCollation(term.function, of: term.keyPath, entityName: entity.name)
        let value = try term.keyPath.map { keyPath throws(StrataError) in try compiler.sortValue(keyPath).0 }
        query.aggregates.append(GroupQuery.Function(function: term.function, value: value, collation: collation))
        terms.append(term)
        reads.append(term.function == .count ? { _ in .null } : term.read)
        return terms.count - 1
    }

    mutating func finish(having condition: GroupCondition<T>?, order: [GroupOrder<T>], limit: Int?, offset: Int) throws(StrataError) {
        if let condition { query.having = try compile(condition.node) }
        query.order = try order.map { order throws(StrataError) in
            let term: GroupQuery.Term
            switch order.term {
            case .key(let keyPath):
                guard let index = keyPaths.firstIndex(of: keyPath) else {
                    throw StrataError(
                        .unsupportedPredicate, "Groups can be sorted by \(keyPath) only when they are grouped by it",
                        entityName: entity.name)
                }
                term = .key(index)
            case .aggregate(let aggregate):
                term = .aggregate(try addAggregate(aggregate, reusing: true))
            }
            return GroupQuery.SortTerm(term: term, ascending: order.order == .forward)
        }
        query.limit = limit.map { max(0, $0) }
        query.offset = max(0, offset)
    }

    private mutating func compile(_ node: GroupCondition<T>.Node) throws(StrataError) -> GroupQuery.Condition {
        switch node {
        case .compare(let aggregate, let comparison, let value):
            .compare(.aggregate(try addAggregate(aggregate, reusing: true)), comparison, value)
        case .and(let lhs, let rhs): .and(try compile(lhs), try compile(rhs))
        case .or(let lhs, let rhs): .or(try compile(lhs), try compile(rhs))
        case .not(let inner): .not(try compile(inner))
        }
    }
}

/// Reads a group's row, a key or an aggregate at a time, in order.
private final class GroupRowReader {
    private let row: [StoredValue]
    private var next = 0

    init(row: [StoredValue]) { self.row = row }

    func key<T, K: PersistentValue>(_ keyPath: KeyPath<T, K>) throws(StrataError) -> K {
        let value = row[next]
        next += 1
        guard let key = K(storedValue: value) else {
            throw StrataError(.valueConversion, "A group's key \(keyPath) holds \(value), which cannot be read as \(K.self)")
        }
        return key
    }

    func aggregate<T, V>(_ aggregate: Aggregate<T, V>) throws(StrataError) -> V {
        let value = row[next]
        next += 1
        return try aggregate.decode(value)
    }
}
