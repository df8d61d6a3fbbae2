extension ManagedObjectContext {
    /// The matches of a request as projections: `Sendable` structs of chosen
    /// properties, read straight from the store without making objects (see
    /// ``ModelProjection``).
    ///
    /// The request's predicate, order, offset and limit apply. With
    /// `includesPendingChanges` (the default) and unsaved changes to the
    /// entity in this context, the projections are read from its objects, so
    /// they show what ``fetch(_:)`` would; a child context reads through its
    /// parent's objects the same way. Prefetching and batch sizes do not
    /// apply: no object is made.
    ///
    /// ```swift
    /// @Projection(of: Book.self)
    /// struct BookRow { let id: ObjectID; let title: String; let year: Int }
    ///
    /// let rows = try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year > 1970 }), as: BookRow.self)
    /// let payload = try await render(rows)   // Sendable: no context needed
    /// ```
    ///
    /// Throws `.unsupportedPredicate` when a projected property is not an
    /// attribute or to-one relationship of the model, and `.valueConversion`
    /// when a stored value cannot be read as the projection's type.
    @inlinable
    public func fetch<P: ModelProjection>(_ request: FetchRequest<P.Model>, as type: P.Type) throws -> [P] {
        // Inlinable, so each row's reading is specialized for the projection.
        var projections: [P] = []
        if let limit = request.fetchLimit { projections.reserveCapacity(min(limit, 4096)) }
        try readProjections(of: request, properties: P.projectedProperties, named: "\(P.self)") { row in
            projections.append(try P(reading: &row))
        }
        return projections
    }

    /// ``fetch(_:as:)``, awaiting the store: for stores that answer over a
    /// network (PostgreSQL), the thread is not blocked while the rows come.
    ///
    /// ```swift
    /// let rows = try await context.fetchAsync(FetchRequest<Book>(), as: BookRow.self)
    /// ```
    @inlinable
    nonisolated(nonsending) public func fetchAsync<P: ModelProjection>(
        _ request: FetchRequest<P.Model>, as type: P.Type
    ) async throws -> [P] {
        var projections: [P] = []
        if let limit = request.fetchLimit { projections.reserveCapacity(min(limit, 4096)) }
        try await readProjectionsAsync(of: request, properties: P.projectedProperties, named: "\(P.self)") { row in
            projections.append(try P(reading: &row))
        }
        return projections
    }

    /// The rows of a projection fetch, one call of `body` each; `name` is
    /// the projection's, for errors.
    @usableFromInline
    func readProjections<Model: PersistentModel>(
        of request: FetchRequest<Model>, properties: [PartialKeyPath<Model>], named name: @autoclosure () -> String,
        _ body: (inout ProjectionRow) throws -> Void
    ) throws {
        do {
            mergePendingChanges()
            let ordinals = try ordinalsWithColumns(properties) { keyPath, entityName in
                "\(name()) projects \(keyPath), which is not an attribute or to-one relationship of \(entityName)"
            }
            try refuseTransformed(ordinals, of: Model.self, projectedBy: name())
            try fetchValues(request, ordinals: ordinals, body)
        } catch {
            report(error)
            throw error
        }
    }

    /// ``readProjections(of:properties:named:_:)``, awaiting the store.
    @usableFromInline
    nonisolated(nonsending) func readProjectionsAsync<Model: PersistentModel>(
        of request: FetchRequest<Model>, properties: [PartialKeyPath<Model>], named name: String,
        _ body: (inout ProjectionRow) throws -> Void
    ) async throws {
        do {
            mergePendingChanges()
            let ordinals = try ordinalsWithColumns(properties) { keyPath, entityName in
                "\(name) projects \(keyPath), which is not an attribute or to-one relationship of \(entityName)"
            }
            try refuseTransformed(ordinals, of: Model.self, projectedBy: name)
            try await fetchValuesAsync(request, ordinals: ordinals, body)
        } catch {
            report(error)
            throw error
        }
    }
}
