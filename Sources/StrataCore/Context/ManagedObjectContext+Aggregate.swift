import Foundation

extension ManagedObjectContext {
    /// One value computed from a request's matches (see ``Aggregate``): by the
    /// store in one statement, or, when the request includes this context's
    /// unsaved changes of the entity, over the objects a fetch would return.
    /// The request's predicate, sort, offset and limit apply.
    ///
    /// ```swift
    /// let pages = try context.aggregate(.sum(\.pages), of: FetchRequest<Book>(predicate: #Predicate { $0.year < 1900 }))
    /// ```
    public func aggregate<T: PersistentModel, Value>(_ aggregate: Aggregate<T, Value>, of request: FetchRequest<T>) throws -> Value {
        do {
            mergePendingChanges()
            let entity = try schema.entity(for: T.self)
            let collation = try aggregateCollation(aggregate.function, of: aggregate.keyPath, entityName: entity.name)
            if request.includesPendingChanges && hasPendingChanges(entityIndex: entity.index) {
                return try aggregateInMemory(aggregate, of: request, collation: collation)
            }
            return try parentStore.aggregate(aggregate, of: request, collation: collation, in: self)
        } catch {
            report(error)
            throw error
        }
    }

    /// An aggregate computed over the objects a fetch returns.
    func aggregateInMemory<T: PersistentModel, Value>(
        _ aggregate: Aggregate<T, Value>, of request: FetchRequest<T>, collation: Collation
    ) throws -> Value {
        let objects = try fetch(request)
        let values = aggregate.function == .count ? objects.map { _ in StoredValue.null } : objects.map(aggregate.read)
        return try aggregate.decode(try aggregate.function.compute(values, collation: collation).get())
    }
}

/// How the values an aggregate reads compare: `Decimal`s (stored as text) by
/// their numeric value, everything else as stored. A sum or average of
/// decimals is refused: stores cannot add text.
func aggregateCollation(_ function: AggregateFunction, of keyPath: AnyKeyPath?, entityName: String) throws(StrataError) -> Collation {
    let collation = keyPath.map { valueCollation(of: type(of: $0).valueType) } ?? .binary
    if collation == .decimal, function == .sum || function == .average {
        throw StrataError(
            .unsupportedPredicate, "Decimal values are stored as text; their \(function.rawValue) is not computed in a store",
            entityName: entityName)
    }
    return collation
}

/// `Decimal` values are text in a store and compare by their numeric value.
func valueCollation(of type: Any.Type) -> Collation {
    predicateBaseType(type) == Decimal.self ? .decimal : .binary
}
