import Foundation

// Partial results: chosen properties of a request's matches without objects,
// for code that used Core Data's dictionary result type.

extension ManagedObjectContext {
    /// Chosen properties of the objects a request matches, one dictionary per
    /// match keyed by property name, without making objects: Core Data's
    /// `.dictionaryResultType` with `propertiesToFetch` and, with `distinct`,
    /// `returnsDistinctResults`.
    ///
    /// Values are the properties' Swift values (a raw-value enum as the enum, a
    /// `Codable` value decoded); a to-one relationship gives the ``ObjectID`` it
    /// points to. A `nil` value leaves its key out, as Core Data does. The
    /// request's predicate, order, offset and limit apply; with `distinct`, each
    /// combination of values counts once (where it first occurs), and the
    /// offset and limit count combinations. Unsaved changes count as in
    /// ``fetch(_:)``.
    ///
    /// ```swift
    /// let request = FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])
    /// for row in try context.fetchProperties([\Book.year, \Book.author], of: request, distinct: true) {
    ///     print(row["year"] as? Int ?? 0, row["author"] as? ObjectID as Any)
    /// }
    /// ```
    public func fetchProperties<T: PersistentModel>(
        _ properties: [PartialKeyPath<T>], of request: FetchRequest<T>, distinct: Bool = false
    ) throws -> [[String: Any]] {
        do {
            mergePendingChanges()
            let entity = try schema.entity(for: T.self)
            let ordinals = try ordinalsWithColumns(properties) { keyPath, entityName in
                "\(keyPath) is not an attribute or to-one relationship of \(entityName); only those can be fetched as properties"
            }
            let names = ordinals.map { entity.properties[$0].name }
            guard distinct else {
                // Each row straight into its dictionary.
                var dictionaries: [[String: Any]] = []
                try fetchValues(request, ordinals: ordinals) { row in
                    var dictionary = [String: Any](minimumCapacity: ordinals.count)
                    for column in ordinals.indices {
                        try put(try row.nextPartialValue(), column: column, ordinals: ordinals, names: names, entity: entity, into: &dictionary)
                    }
                    dictionaries.append(dictionary)
                }
                return dictionaries
            }
            // A distinct page is a page of the distinct combinations: read them all, then page.
            var rows: [[PartialValue]] = []
            try fetchValues(request.wholeResults, ordinals: ordinals) { row in
                var values: [PartialValue] = []
                values.reserveCapacity(ordinals.count)
                for _ in ordinals { values.append(try row.nextPartialValue()) }
                rows.append(values)
            }
            var seen = Set<[PartialValue]>()
            return try limited(rows.filter { seen.insert($0).inserted }, request: request).map { row throws(StrataError) in
                var dictionary = [String: Any](minimumCapacity: ordinals.count)
                for (column, value) in row.enumerated() {
                    try put(value, column: column, ordinals: ordinals, names: names, entity: entity, into: &dictionary)
                }
                return dictionary
            }
        } catch {
            report(error)
            throw error
        }
    }

    /// The values of the properties at `ordinals` of a request's matches, one
    /// row per call of `body`: from the parent store, or from this context's
    /// objects when its unsaved changes count.
    func fetchValues<T: PersistentModel>(
        _ request: FetchRequest<T>, ordinals: [Int], _ body: (inout ProjectionRow) throws -> Void
    ) throws {
        let entityIndex = try schema.entity(for: T.self).index
        if request.includesPendingChanges && hasPendingChanges(entityIndex: entityIndex) {
            try valuesInMemory(request, ordinals: ordinals, body)
        } else {
            try parentStore.fetchValues(request, ordinals: ordinals, in: self, body)
        }
    }

    /// The ordinals of the properties key paths name, each an attribute or a
    /// to-one relationship; `.unsupportedPredicate` with `refusal`'s words
    /// (given the key path and the entity's name) for any other.
    func ordinalsWithColumns<T: PersistentModel>(
        _ keyPaths: [PartialKeyPath<T>], refusal: (AnyKeyPath, String) -> String
    ) throws(StrataError) -> [Int] {
        let entity = try schema.entity(for: T.self)
        return try keyPaths.map { keyPath throws(StrataError) in
            guard let ordinal = entity.ordinal(for: keyPath), entity.properties[ordinal].hasColumn else {
                throw StrataError(.unsupportedPredicate, refusal(keyPath, entity.name), entityName: entity.name)
            }
            return ordinal
        }
    }

    /// Projections read stored values, which for an attribute stored through
    /// a transformer are its stored form: such an attribute is refused.
    func refuseTransformed<T: PersistentModel>(_ ordinals: [Int], of model: T.Type, projectedBy name: String) throws(StrataError) {
        let entity = try schema.entity(for: T.self)
        guard let ordinal = ordinals.first(where: { entity.valueReaders[$0]?.encode != nil }) else { return }
        let property = entity.properties[ordinal].name
        throw StrataError(
            .unsupportedPredicate,
            "\(name) projects \(entity.name).\(property), which is stored through a transformer; read it from the object or a Snapshot",
            entityName: entity.name, propertyName: property)
    }

    /// ``fetchValues(_:ordinals:_:)``, awaiting the parent store.
    nonisolated(nonsending) func fetchValuesAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, ordinals: [Int], _ body: (inout ProjectionRow) throws -> Void
    ) async throws {
        let entityIndex = try schema.entity(for: T.self).index
        if request.includesPendingChanges && hasPendingChanges(entityIndex: entityIndex) {
            try valuesInMemory(request, ordinals: ordinals, body)
        } else {
            try await parentStore.fetchValuesAsync(request, ordinals: ordinals, in: self, body)
        }
    }

    /// The values of the objects a fetch returns (this context's unsaved changes count).
    func valuesInMemory<T: PersistentModel>(
        _ request: FetchRequest<T>, ordinals: [Int], _ body: (inout ProjectionRow) throws -> Void
    ) throws {
        let entity = try schema.entity(for: T.self)
        // Rows carry their objects' IDs, so the layout needs no store.
        let layout = ProjectionLayout(entity: entity, ordinals: ordinals, schema: schema, storeIdentifier: "")
        let buffer = StoreValueBuffer(count: ordinals.count)
        let readsRelationships = layout.destinations.contains { $0 != nil }
        for object in try fetch(request) {
            let backing = object.persistentBacking
            backing.willAccess()
            // A to-one may point at an object not saved yet: its ID, not a key.
            let related = !readsRelationships ? [] : ordinals.indices.map { column in
                layout.destinations[column] == nil ? nil : ObjectGraph.toOne(of: object, at: ordinals[column])?.objectID
            }
            for (column, ordinal) in ordinals.enumerated() {
                buffer.set(column, layout.destinations[column] == nil ? backing.values[ordinal] : .null)
            }
            try buffer.row(primaryKey: 0) { values in
                var row = ProjectionRow(values, layout: layout, objectID: backing.objectID, related: related)
                defer { row.releaseUntaken() }
                try body(&row)
            }
        }
    }

    /// Sets the value of column `column` in a row's dictionary (a `nil`
    /// value leaves its key out); `names` are the properties' names by column.
    @inline(__always)
    private func put(
        _ value: PartialValue, column: Int, ordinals: [Int], names: [String], entity: EntityDescription,
        into dictionary: inout [String: Any]
    ) throws(StrataError) {
        switch value {
        case .object(let id):
            dictionary[names[column]] = id
        case .stored(.null):
            return
        case .stored(let stored):
            guard let decoded = entity.valueReaders[ordinals[column]]?.decode(stored) else {
                throw StrataError(
                    .valueConversion, "\(entity.name).\(names[column]) holds \(stored), which cannot be read as its type",
                    entityName: entity.name, propertyName: names[column])
            }
            dictionary[names[column]] = decoded
        }
    }
}

/// One value of a partial result: a stored attribute value, or the object a
/// to-one relationship points to (saved or not).
package enum PartialValue: Hashable {
    case stored(StoredValue)
    case object(ObjectID)
}
