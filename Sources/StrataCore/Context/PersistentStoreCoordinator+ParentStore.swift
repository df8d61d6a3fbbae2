import Foundation

// The coordinator as a top-level context's parent store: every answer comes
// from the loaded persistent store, through plans the query compiler makes.
// The row-to-object work stays in the context (its identity map, its hot
// loops); this file says which store call answers which question.

extension PersistentStoreCoordinator: ParentStore {
    package var storeIdentifier: String? { attachedStore?.identifier }

    package func storedRows(
        entityIndex: Int, keys: StoredRowKeys, in context: ManagedObjectContext, _ body: (any StoreRow) throws -> Void
    ) throws {
        let store = try loadedStore()
        switch keys {
        case .keys(let keys): try store.fetchRows(entityIndex: entityIndex, primaryKeys: keys, body)
        case .range(let range): try store.fetchRows(entityIndex: entityIndex, keyRange: range, body)
        }
    }

    package func execute(_ operation: some BatchOperation, in context: ManagedObjectContext) throws -> BatchResult {
        let transaction = BatchTransaction(
            author: context.transactionAuthor, contextName: context.name, origin: ObjectIdentifier(context.originMarker))
        return try operation.measuredWrite(
            to: loadedStore(), schema: schema, transaction: transaction, mergePolicy: context.mergePolicy,
            nested: context.storeOperationDepth > 0)
    }

    package func fetch<T: PersistentModel>(_ request: FetchRequest<T>, in context: ManagedObjectContext) throws -> [T] {
        try measured(.fetch, of: T.self, in: context) { store, report in
            let objects = try context.fetchFromStore(request, store: store)
            report.rows = objects.count
            return objects
        }
    }

    nonisolated(nonsending) package func fetchAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, in context: ManagedObjectContext
    ) async throws -> [T] {
        let store = try loadedStore()
        return try await measured(.fetch, of: T.self, in: context, store: store) { report in
            let objects = try await context.fetchFromStoreAsync(request, store: store)
            report.rows = objects.count
            return objects
        }
    }

    package func fetch<T: PersistentModel>(
        _ request: FetchRequest<T>, batchSize: Int, in context: ManagedObjectContext
    ) throws -> FetchResultsCollection<T> {
        try measured(.fetch, of: T.self, in: context) { store, _ in
            try context.fetchFromStore(request, batchSize: batchSize, store: store)
        }
    }

    package func count<T: PersistentModel>(_ request: FetchRequest<T>, in context: ManagedObjectContext) throws -> Int {
        try measured(.count, of: T.self, in: context) { store, _ in try store.count(plan(for: request)) }
    }

    nonisolated(nonsending) package func countAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, in context: ManagedObjectContext
    ) async throws -> Int {
        let store = try loadedStore()
        return try await measured(.count, of: T.self, in: context, store: store) { _ in
            try await store.awaitable.countAsync(plan(for: request))
        }
    }

    package func fetchIdentifiers<T: PersistentModel>(
        _ request: FetchRequest<T>, in context: ManagedObjectContext
    ) throws -> [ObjectID] {
        let entity = try schema.entity(for: T.self)
        return try measured(.fetch, of: T.self, in: context) { store, report in
            let keys = try store.fetchKeys(plan(for: request))
            report.rows = keys.count
            let space = ObjectIDSpace.named(entity: entity.name, store: store.identifier)
            return keys.map { key in ObjectID(space: space, primaryKey: key) }
        }
    }

    nonisolated(nonsending) package func fetchIdentifiersAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, in context: ManagedObjectContext
    ) async throws -> [ObjectID] {
        let store = try loadedStore()
        let entity = try schema.entity(for: T.self)
        return try await measured(.fetch, of: T.self, in: context, store: store) { report in
            let keys = try await store.awaitable.fetchKeysAsync(plan(for: request))
            report.rows = keys.count
            let space = ObjectIDSpace.named(entity: entity.name, store: store.identifier)
            return keys.map { key in ObjectID(space: space, primaryKey: key) }
        }
    }

    package func aggregate<T: PersistentModel, Value>(
        _ aggregate: Aggregate<T, Value>, of request: FetchRequest<T>, collation: Collation, in context: ManagedObjectContext
    ) throws -> Value {
        try measured(.aggregate, of: T.self, in: context) { store, _ in
            let compiler = try PredicateCompiler(schema: schema, entity: schema.entity(for: T.self))
            let plan = try compiler.plan(for: request)
            let value = try aggregate.keyPath.map { keyPath throws(StrataError) in try compiler.sortValue(keyPath).0 }
            return try aggregate.decode(try store.aggregate(plan, aggregate.function, of: value, collation: collation))
        }
    }

    package func fetchValues<T: PersistentModel>(
        _ request: FetchRequest<T>, ordinals: [Int], in context: ManagedObjectContext,
        _ body: (inout ProjectionRow) throws -> Void
    ) throws {
        let entity = try schema.entity(for: T.self)
        let columns = ordinals.map { StoreExpression.property(.row(0, entity: entity.index), $0) }
        try measured(.fetch, of: T.self, in: context) { store, report in
            let layout = ProjectionLayout(entity: entity, ordinals: ordinals, schema: schema, storeIdentifier: store.identifier)
            var rows = 0
            try store.fetchValues(plan(for: request), columns: columns) { values in
                var row = ProjectionRow(values, layout: layout)
                defer { row.releaseUntaken() }
                try body(&row)
                rows += 1
            }
            report.rows = rows
        }
    }

    nonisolated(nonsending) package func fetchValuesAsync<T: PersistentModel>(
        _ request: FetchRequest<T>, ordinals: [Int], in context: ManagedObjectContext,
        _ body: (inout ProjectionRow) throws -> Void
    ) async throws {
        let store = try loadedStore()
        let entity = try schema.entity(for: T.self)
        let columns = ordinals.map { StoreExpression.property(.row(0, entity: entity.index), $0) }
        let rows = try await measured(.fetch, of: T.self, in: context, store: store) { report in
            let rows = try await store.awaitable.fetchValuesAsync(plan(for: request), columns: columns)
            report.rows = rows.keys.count
            return rows
        }
        let layout = ProjectionLayout(entity: entity, ordinals: ordinals, schema: schema, storeIdentifier: store.identifier)
        try rows.forEach { values in
            var row = ProjectionRow(values, layout: layout)
            defer { row.releaseUntaken() }
            try body(&row)
        }
    }

    package func fetchGroups<T: PersistentModel>(
        _ request: FetchRequest<T>, _ group: GroupedFetch<T>, in context: ManagedObjectContext
    ) throws -> [[StoredValue]] {
        try measured(.aggregate, of: T.self, in: context) { store, report in
            let groups = try store.fetchGroups(plan(for: request), group.query)
            report.rows = groups.count
            return groups
        }
    }

    package func object(with id: ObjectID, in context: ManagedObjectContext) throws -> any PersistentModel {
        let store = try loadedStore()
        guard let pk = id.primaryKey, id.storeIdentifier == store.identifier,
              let entity = schema.entity(named: id.entityName),
              let row = try store.fetchRow(entityIndex: entity.index, primaryKey: pk) else {
            throw StrataError(.objectNotFound, "No object exists for \(id)", entityName: id.entityName, objectIDs: [id])
        }
        return try context.registerRow(entity: entity, primaryKey: pk, values: row.values, version: row.version)
    }

    package func fulfill(_ backing: ModelBacking, in context: ManagedObjectContext) throws {
        try context.fulfillFromStore(backing, store: loadedStore())
    }

    package func currentValues(
        of backing: ModelBacking, in context: ManagedObjectContext
    ) throws -> (values: ContiguousArray<StoredValue>, version: Int64)? {
        guard let entity = backing.entity, let pk = backing.primaryKey else { return nil }
        return try loadedStore().fetchRow(entityIndex: entity.index, primaryKey: pk).map { ($0.values, $0.version) }
    }

    package func readValues(
        entityIndex: Int, primaryKeys: [Int64], in context: ManagedObjectContext, _ body: (StoredRow) throws -> Void
    ) throws {
        try loadedStore().fetchRows(entityIndex: entityIndex, primaryKeys: primaryKeys) { row in try body(row.stored()) }
    }

    package func members(
        of owners: [any PersistentModel], ordinal: Int, everyOwner: Bool, in context: ManagedObjectContext
    ) throws -> [[any PersistentModel]] {
        guard let entity = owners.first?.persistentBacking.entity else { return owners.map { _ in [] } }
        let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
        let store = try loadedStore()
        let keys = owners.map { $0.persistentBacking.primaryKey }
        // A one-to-many's member rows each come once, under their one owner.
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        let membersAreUnique = inverse >= 0 && destination.properties[inverse].hasColumn
        var rows = MemberRows(
            context: context, entity: destination, storeIdentifier: store.identifier, owners: owners.count,
            membersAreUnique: membersAreUnique)
        // Hooks run once the read is over, as after a fetch.
        defer { rows.finishReading() }
        try store.fetchMembers(
            entityIndex: entity.index, ordinal: ordinal, owners: keys.compactMap { $0 }, everyOwner: everyOwner
        ) {
            owner, position, row in
            rows.add(row, owner: owner, position: position)
        }
        return rows.members(of: keys)
    }

    package func save(changesOf context: ManagedObjectContext) throws {
        let store = try loadedStore()
        let nested = context.storeOperationDepth > 0
        context.storeOperationDepth += 1
        defer { context.storeOperationDepth -= 1 }
        try store.telemetry.measure(.save, nested: nested) { report in
            describe(saveOf: context, in: &report)
            try context.saveToStore(store)
        }
    }

    nonisolated(nonsending) package func saveAsync(changesOf context: ManagedObjectContext) async throws {
        let store = try loadedStore()
        let nested = context.storeOperationDepth > 0
        context.storeOperationDepth += 1
        defer { context.storeOperationDepth -= 1 }
        try await store.telemetry.measure(.save, nested: nested) { report in
            describe(saveOf: context, in: &report)
            try await context.saveToStoreAsync(store)
        }
    }

    /// Runs `body` on the loaded store as a measured operation on `T`'s entity.
    private func measured<T: PersistentModel, Result>(
        _ operation: StoreTelemetry.Operation, of type: T.Type, in context: ManagedObjectContext,
        _ body: (any PersistentStore, inout StoreTelemetry.Report) throws -> Result
    ) throws -> Result {
        let store = try loadedStore()
        let nested = context.storeOperationDepth > 0
        context.storeOperationDepth += 1
        defer { context.storeOperationDepth -= 1 }
        return try store.telemetry.measure(operation, collection: try schema.entity(for: T.self).name, nested: nested) { report in
            describe(context, in: &report)
            return try body(store, &report)
        }
    }

    /// ``measured(_:of:in:_:)`` for an operation that awaits its store.
    nonisolated(nonsending) private func measured<T: PersistentModel, Result>(
        _ operation: StoreTelemetry.Operation, of type: T.Type, in context: ManagedObjectContext, store: any PersistentStore,
        _ body: (inout StoreTelemetry.Report) async throws -> Result
    ) async throws -> Result {
        let nested = context.storeOperationDepth > 0
        context.storeOperationDepth += 1
        defer { context.storeOperationDepth -= 1 }
        return try await store.telemetry.measure(operation, collection: try schema.entity(for: T.self).name, nested: nested) {
            report in
            describe(context, in: &report)
            return try await body(&report)
        }
    }

    private func describe(_ context: ManagedObjectContext, in report: inout StoreTelemetry.Report) {
        report.contextName = context.name
        report.author = context.transactionAuthor
    }

    /// What a save is about to write: objects, as the context counts them
    /// before its hooks run.
    private func describe(saveOf context: ManagedObjectContext, in report: inout StoreTelemetry.Report) {
        describe(context, in: &report)
        report.inserted = context.tracker.insertedByKey.count
        report.updated = context.tracker.changed.count
        report.deleted = context.tracker.deleted.count
        report.rows = report.inserted + report.updated + report.deleted
    }

    /// The store-neutral plan for a request.
    private func plan<T: PersistentModel>(for request: FetchRequest<T>) throws(StrataError) -> FetchPlan {
        try PredicateCompiler(schema: schema, entity: schema.entity(for: T.self)).plan(for: request)
    }
}
