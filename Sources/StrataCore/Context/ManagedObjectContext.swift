import Foundation

/// A scratchpad of managed objects: it fetches them, tracks their changes and
/// saves them to the store in one transaction.
///
/// A context and its objects live in one isolation domain and are not
/// `Sendable`; pass ``ObjectID``s between domains. Each stored row appears at
/// most once per context (the identity map).
///
/// ```swift
/// let context = container.viewContext
/// let book = Book(title: "Dune", year: 1965)
/// context.insert(book)
/// try context.save()
/// let recent = try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year > 2000 }))
/// ```
public final class ManagedObjectContext {
    package let coordinator: PersistentStoreCoordinator
    public var schema: Schema { coordinator.schema }
    /// A name for logs and history.
    public var name: String?
    /// The author recorded with this context's saves (history).
    public var transactionAuthor: String?
    /// How saves settle optimistic-locking and uniqueness conflicts (see <doc:MergePolicies>).
    public var mergePolicy: MergePolicy = .error
    /// Whether other contexts' saves are merged in automatically.
    public var automaticallyMergesChangesFromParent: Bool = false {
        didSet {
            guard oldValue != automaticallyMergesChangesFromParent else { return }
            if automaticallyMergesChangesFromParent {
                coordinator.register(inbox)
            } else {
                coordinator.unregister(inbox)
            }
        }
    }
    /// Receives errors the context reports but does not throw.
    package var logError: (@Sendable (any Error) -> Void)?
    /// How many store operations of this context are running: one started
    /// inside another (a fetch in a save's hook) passes the store's gate without
    /// waiting, so closing the store lets the outer one finish.
    @exclusivity(unchecked) var storeOperationDepth = 0
    /// The last error ``report(_:)`` handed on, by type and description.
    var lastReported: String?

    // The identity map and change collections are touched once per object an
    // insert, change, delete, fetch or save handles. The context never
    // overlaps two accesses to one of them, so they are not checked for
    // exclusivity at run time (a runtime call per access otherwise).

    /// Registered (saved or fetched) objects, per entity index, by primary key.
    @exclusivity(unchecked) var registry: [IdentityMap]
    /// Inserted, changed and deleted objects since the last save.
    @exclusivity(unchecked) var tracker = ChangeTracker()
    /// The context a child context reads from and saves into; nil for contexts
    /// over the store.
    public let parent: ManagedObjectContext?
    /// What this context reads from and saves into: the parent context, or
    /// the coordinator (the persistent store) for a top-level context.
    let parentStore: any ParentStore
    /// In a child context: objects the parent inserted and has not saved yet.
    var registeredByTemporaryKey: [UInt64: any PersistentModel] = [:]
    /// The rows that objects saved with temporary IDs became (entity and
    /// primary key, two words with nothing to retain), so child contexts can
    /// still find them.
    @exclusivity(unchecked) var permanentKeysByTemporaryKey: [UInt64: PermanentKey] = [:]
    /// Set while a fault fires inside an accessor after its row failed the
    /// value check: the row loads as it is (see `fulfillFault(_:)`).
    var loadsUnreadableValues = false
    /// The ID spaces of the objects this context makes for its store's rows.
    var idSpaces = ObjectIDSpaces(store: "")
    package let inbox: MergeInbox
    /// Identifies this context's own saves in broadcasts.
    let originMarker = OriginMarker()
    /// What this context's objects hold to reach it; cleared in `deinit`.
    package let contextToken = ContextToken()
    /// How many times the context was reset: batched results reload after one.
    var resetCount = 0
    /// Merges in a row that could not read the rows of the history they took in.
    var failedHistoryMerges = 0
    /// Store metadata to write with the next save (nil: remove the key).
    var pendingMetadata: [String: StoredValue?] = [:]
    /// Who hears the context's events (``onEvent(_:)``, ``events``, controllers).
    var eventListeners: [UUID: (ContextEvent) -> Void] = [:] {
        didSet {
            contextToken.recordsChanges = !eventListeners.isEmpty
            if eventListeners.isEmpty {
                // Nobody to tell: what would have been told goes.
                unprocessedChanges = [:]
                pendingObjectChanges = ObjectChanges()
                tracker.stopJournal()
            }
        }
    }
    /// Objects with property changes for the next change event, and which
    /// properties (see ``processPendingChanges()``); kept while someone listens.
    var unprocessedChanges: [ObjectIdentifier: (object: any PersistentModel, ordinals: OrdinalSet)] = [:]
    /// Refreshes and rollbacks for the next change event.
    var pendingObjectChanges = ObjectChanges()
    var processingScheduled = false
    /// Schedules a prompt ``processPendingChanges()`` in the context's domain (the view context's).
    var processingWakeUp: (() -> Void)?

    /// Records changes for undo and redo while ``isUndoEnabled``.
    public internal(set) var undoManager: ContextUndoManager?

    /// Whether reading a property of this context's objects registers with
    /// Observation (`withObservationTracking`, SwiftUI), so that a change
    /// notifies the reader. On for the container's `viewContext`, off by default
    /// elsewhere: each observed read calls into the Observation runtime, which
    /// contexts that import or process data need not pay. Changes notify
    /// observers in every context.
    ///
    /// ```swift
    /// let context = container.newContext()
    /// context.isObservationEnabled = true
    /// withObservationTracking { _ = book.title } onChange: { print("title changed") }
    /// ```
    public var isObservationEnabled: Bool {
        get { contextToken.observesReads }
        set {
            guard newValue != contextToken.observesReads else { return }
            contextToken.observesReads = newValue
            for entityObjects in registry {
                for object in entityObjects.values { object.persistentBacking.observesReads = newValue }
            }
            for object in tracker.insertedByKey.values { object.persistentBacking.observesReads = newValue }
        }
    }

    /// A context over a coordinator's store.
    public convenience init(coordinator: PersistentStoreCoordinator) {
        self.init(coordinator: coordinator, parent: nil)
    }

    /// A context over `parent`'s state when given one, else over the store.
    init(coordinator: PersistentStoreCoordinator, parent: ManagedObjectContext?) {
        self.parent = parent
        self.parentStore = parent ?? coordinator
        self.coordinator = coordinator
        self.registry = coordinator.schema.entities.map { _ in IdentityMap() }
        self.inbox = MergeInbox(owner: ObjectIdentifier(originMarker))
        contextToken.bind(self)
    }

    deinit {
        contextToken.invalidate()
        coordinator.unregister(inbox)
    }

    // MARK: - Inserting and deleting

    /// Inserts a new object; it is saved with the next ``save()``. Objects it
    /// relates to that are new are inserted too.
    public func insert(_ object: some PersistentModel) {
        undoManager?.beginOperation()
        insertObject(object)
        undoManager?.endOperation()
    }

    func insertObject(_ object: any PersistentModel, temporaryKey: UInt64? = nil) {
        let backing = object.persistentBacking
        switch backing.state {
        case .new:
            break
        case .deleted where backing.coordinator === self:
            // Inserting a deleted object takes the deletion back; changes made
            // before the deletion are unsaved changes again.
            tracker.undelete(object)
            backing.state = .registered
            if !backing.changedOrdinals.isEmpty { tracker.noteChanged(object) }
            recordUndoStep(.insertion(object))
            if hasEventListeners { scheduleProcessing() }
            return
        default:
            return
        }
        guard let entity = try? schema.entity(for: type(of: object)) else {
            preconditionFailure("Strata: \(type(of: object)) is not an entity of this context's schema")
        }
        let id = temporaryKey.map { ObjectID(space: entity.temporaryIDSpace, temporaryKey: $0) }
            ?? ObjectID.makeTemporary(in: entity.temporaryIDSpace)
        backing.prepareForInsertion(entity: entity, objectID: id, coordinator: self)
        tracker.insert(object, key: id.temporaryKey!)
        recordUndoStep(.insertion(object))
        object.awakeFromInsert()
        ObjectGraph.syncInverses(of: object)
        if hasEventListeners { scheduleProcessing() }
    }

    /// Marks an object for deletion at the next save and applies delete rules to
    /// related objects.
    public func delete(_ object: some PersistentModel) {
        undoManager?.beginOperation()
        deleteObject(object)
        undoManager?.endOperation()
    }

    func deleteObject(_ object: any PersistentModel) {
        let backing = object.persistentBacking
        // The token is this context's alone: comparing it spares loading the context.
        guard backing.contextToken === contextToken else { return }
        switch backing.state {
        case .inserted:
            object.prepareForDeletion()
            if undoManager != nil { recordUndoStep(.removal(object, relations: loadedRelations(of: object))) }
            applyDeleteRules(to: object, backing: backing)
            tracker.removeInserted(key: backing.temporaryKey!)
            backing.invalidate()
        case .registered:
            backing.willAccess()
            object.prepareForDeletion()
            if undoManager != nil { recordUndoStep(.removal(object, relations: loadedRelations(of: object))) }
            backing.state = .deleted
            tracker.delete(object)
            applyDeleteRules(to: object, backing: backing)
        default:
            return
        }
        if hasEventListeners { scheduleProcessing() }
    }

    /// Nullifies or cascades relationships of a deleted object, in memory.
    private func applyDeleteRules(to object: any PersistentModel, backing: ModelBacking) {
        guard let entity = backing.entity, !entity.relationshipOrdinals.isEmpty else { return }
        for ordinal in entity.relationshipOrdinals {
            guard case .relationship(let relationship) = entity.properties[ordinal] else { continue }
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            let related: [any PersistentModel] = relationship.isToMany
                ? ObjectGraph.toMany(of: object, at: ordinal)
                : ObjectGraph.toOne(of: object, at: ordinal).map { [$0] } ?? []
            switch relationship.deleteRule {
            case .cascade:
                for member in related where member.persistentBacking.state == .registered || member.persistentBacking.state == .inserted {
                    deleteObject(member)
                }
            case .nullify:
                guard inverse >= 0 else { continue }
                for member in related where !member.isDeleted {
                    ObjectGraph.detach(object, fromInverse: inverse, of: member)
                }
            case .deny, .noAction:
                continue
            }
        }
    }

    // MARK: - State

    /// Whether there are unsaved inserts, changes or deletions.
    public var hasChanges: Bool {
        tracker.hasChanges || !pendingMetadata.isEmpty
    }

    /// Objects inserted since the last save.
    public var insertedObjects: [any PersistentModel] {
        tracker.insertedObjects()
    }

    /// Saved objects with unsaved changes, in the order they were first changed.
    public var updatedObjects: [any PersistentModel] {
        tracker.changed.objects { $0.isUpdated }
    }

    /// Objects deleted since the last save, in the order they were deleted.
    public var deletedObjects: [any PersistentModel] {
        tracker.deleted.objects
    }

    /// Every object the context manages.
    public var registeredObjects: [any PersistentModel] {
        registry.flatMap(\.values) + insertedObjects
    }

    /// The object with this ID if the context already has it (no store access).
    public func registeredObject(for id: ObjectID) -> (any PersistentModel)? {
        if let key = id.temporaryKey { return tracker.insertedByKey[key] ?? registeredByTemporaryKey[key] }
        guard let entity = schema.entity(named: id.entityName), let pk = id.primaryKey else { return nil }
        guard parentStore.storeIdentifier == id.storeIdentifier else { return nil }
        return registry[entity.index][pk]
    }

    /// The object for an ID, loading it from the store when needed; throws
    /// `.objectNotFound` when no such object exists.
    public func existingObject<T: PersistentModel>(with id: ObjectID, as type: T.Type = T.self) throws -> T {
        guard let typed = try existingAnyObject(with: id) as? T else {
            throw StrataError(.objectNotFound, "\(id) is not \(withArticle("\(T.self)"))", entityName: id.entityName, objectIDs: [id])
        }
        return typed
    }

    /// The object for an ID, of whatever model type, loading it when needed.
    func existingAnyObject(with id: ObjectID) throws -> any PersistentModel {
        mergePendingChanges()
        if let object = registeredObject(for: id) {
            if object.persistentBacking.state == .deleted || object.persistentBacking.state == .invalidated {
                throw StrataError(.objectNotFound, "\(id) is deleted", entityName: id.entityName, objectIDs: [id])
            }
            if object.persistentBacking.isFault { try fulfill(object.persistentBacking) }
            return object
        }
        return try parentStore.object(with: id, in: self)
    }

    // MARK: - Identity map

    /// The registered object for a row, refreshed from `values` when it is a
    /// fault, or a new object registered for it.
    func registerRow(
        entity: EntityDescription, primaryKey: Int64, values: ContiguousArray<StoredValue>?, version: Int64
    ) throws(StrataError) -> any PersistentModel {
        if let existing = registry[entity.index][primaryKey] {
            let backing = existing.persistentBacking
            if backing.isFault, let values {
                try load(values: values, version: version, into: backing, entity: entity)
                existing.awakeFromFetch()
            }
            return existing
        }
        if let values, let problem = entity.valueCheck.firstProblem(in: values) {
            let objectID = ObjectID(
                entityName: entity.name, storeIdentifier: parentStore.storeIdentifier ?? "",
                primaryKey: primaryKey)
            throw entity.valueCheck.error(for: problem, entity: entity, objectID: objectID)
        }
        return registerNew(entity: entity, primaryKey: primaryKey, values: values, version: version)
    }

    /// The registered object for a key, or a new fault registered for it:
    /// what following a relationship or a batched fetch needs, which reads
    /// no values and so cannot fail.
    func registerFault(entity: EntityDescription, primaryKey: Int64) -> any PersistentModel {
        if let existing = registry[entity.index][primaryKey] { return existing }
        return registerNew(entity: entity, primaryKey: primaryKey, values: nil, version: 0)
    }

    private func registerNew(
        entity: EntityDescription, primaryKey: Int64, values: ContiguousArray<StoredValue>?, version: Int64
    ) -> any PersistentModel {
        let object = makeObject(
            entity: entity, primaryKey: primaryKey, storeIdentifier: parentStore.storeIdentifier ?? "", values: values,
            version: version)
        registry[entity.index][primaryKey] = object
        if values != nil { object.awakeFromFetch() }
        return object
    }

    /// The space of the IDs of an entity's rows in a store, found once.
    @inline(__always)
    func idSpace(_ entity: EntityDescription, store storeIdentifier: String) -> ObjectIDSpace {
        if idSpaces.storeIdentifier != storeIdentifier { idSpaces = ObjectIDSpaces(store: storeIdentifier) }
        return idSpaces[entity]
    }

    /// A new object of this context for a stored row (a fault when `values` is
    /// nil); the caller registers it.
    @inline(__always)
    func makeObject(
        entity: EntityDescription, primaryKey: Int64, storeIdentifier: String,
        values: ContiguousArray<StoredValue>?, version: Int64
    ) -> any PersistentModel {
        let backing = ModelBacking.stored(
            entity: entity,
            objectID: ObjectID(space: idSpace(entity, store: storeIdentifier), primaryKey: primaryKey),
            coordinator: self, values: values, version: version)
        return entity.modelType.init(backing: backing)
    }

    /// A new object of this context for the row under `row`, its values read
    /// straight into its storage; the caller registers it. Throws
    /// `.valueConversion` when a value cannot be read as its property's type.
    /// `primaryKey` is the row's, when the caller has read it already.
    @inline(__always)
    func makeObject(
        entity: EntityDescription, storeIdentifier: String, row: any StoreRow, primaryKey: Int64? = nil
    ) throws(StrataError) -> any PersistentModel {
        let backing = ModelBacking.stored(
            entity: entity,
            objectID: ObjectID(space: idSpace(entity, store: storeIdentifier), primaryKey: primaryKey ?? row.primaryKey),
            token: contextToken, isFault: false, version: row.version
        ) { values, count in
            // The row and the entity come from the same schema.
            precondition(count == row.propertyCount, "Strata: a stored row does not fit its object")
            row.initializeValues(values)
        }
        try checkValues(of: backing, entity: entity)
        return entity.modelType.init(backing: backing)
    }

    /// Loads a row into the backing of a registered object (a fault, or one
    /// being refreshed): its values replace the backing's, at the row's version.
    /// A row with a value that cannot be read leaves the object a fault.
    @inline(__always)
    func load(_ row: any StoreRow, into backing: ModelBacking) throws(StrataError) {
        row.assignValues(backing.values)
        do {
            try checkValues(of: backing, entity: backing.entity ?? schema.entities[0])
        } catch {
            backing.turnIntoFault()
            throw error
        }
        backing.finishLoading(version: row.version)
    }

    /// Loads stored values into a registered object, as ``load(_:into:)``.
    func load(values: ContiguousArray<StoredValue>, version: Int64, into backing: ModelBacking, entity: EntityDescription)
        throws(StrataError) {
        if !loadsUnreadableValues, let problem = entity.valueCheck.firstProblem(in: values) {
            throw entity.valueCheck.error(for: problem, entity: entity, objectID: backing.objectID)
        }
        backing.load(values: values, version: version)
    }

    /// Throws `.valueConversion` when a value just read into `backing` cannot
    /// be read as its property's type: a fetch or fault fails here, where it
    /// can throw, rather than in an accessor, which cannot.
    @inline(__always)
    func checkValues(of backing: ModelBacking, entity: EntityDescription) throws(StrataError) {
        if !loadsUnreadableValues, let problem = entity.valueCheck.firstProblem(in: backing.values) {
            throw entity.valueCheck.error(for: problem, entity: entity, objectID: backing.objectID)
        }
    }

    func fulfill(_ backing: ModelBacking) throws {
        try parentStore.fulfill(backing, in: self)
    }

    /// Loads a fault from the store: with the rest of its batch when it has
    /// one, else its own row.
    func fulfillFromStore(_ backing: ModelBacking, store: any PersistentStore) throws {
        guard let entity = backing.entity, let pk = backing.primaryKey else { return }
        if let batch = backing.faultBatch {
            try fulfill(batch, entity: entity, store: store)
            if !backing.isFault { return }
        }
        guard let row = try store.fetchRow(entityIndex: entity.index, primaryKey: pk) else {
            throw StrataError(
                .objectNotFound, "\(backing.objectID) no longer exists in the store",
                entityName: entity.name, objectIDs: [backing.objectID])
        }
        try load(values: row.values, version: row.version, into: backing, entity: entity)
        registry[entity.index][pk]?.awakeFromFetch()
    }

    /// Loads every still-faulted object of a batch with one query.
    private func fulfill(_ batch: FaultBatch, entity: EntityDescription, store: any PersistentStore) throws {
        let keys = batch.keys.filter { registry[entity.index][$0]?.persistentBacking.isFault == true }
        guard !keys.isEmpty else { return }
        var loaded: [any PersistentModel] = []
        // Hooks run once the read is over (one that fires another fault must
        // not start a read inside this one), and after a read that failed
        // partway too: what it loaded stays registered.
        defer { for object in loaded { object.awakeFromFetch() } }
        try store.fetchRows(entityIndex: entity.index, primaryKeys: keys) { row in
            guard let object = registry[entity.index][row.primaryKey], object.persistentBacking.isFault else { return }
            try load(row, into: object.persistentBacking)
            loaded.append(object)
        }
    }
}

final class OriginMarker: Sendable {}

extension ManagedObjectContext: ObjectGraphCoordinator {
    package func fulfillFault(_ backing: ModelBacking) {
        do {
            try fulfill(backing)
        } catch let error as StrataError where error.code == .valueConversion {
            // An accessor cannot throw: report, then load the row as it is; the
            // accessor of the value it cannot read falls back (see
            // `ModelBacking.unreadableValue(at:as:)`).
            reportUnthrown(error)
            loadsUnreadableValues = true
            defer { loadsUnreadableValues = false }
            fulfillFault(backing)
        } catch {
            // The row is gone (another process deleted it, or a damaged key
            // names none) or could not be read. An accessor cannot throw: report,
            // and let the object read as values that cannot be read do (the
            // type's empty value, or nil); nothing is written back unless assigned.
            reportUnthrown(error)
            backing.load(values: repeatElement(StoredValue.null, count: backing.values.count), version: backing.version)
        }
    }

    package func object(entityIndex: Int, primaryKey: Int64) -> any PersistentModel {
        registerFault(entity: schema.entities[entityIndex], primaryKey: primaryKey)
    }

    package func noteUpdated(_ object: any PersistentModel) {
        noteChanged(object)
    }

    /// Marks an object changed (see ``ChangeTracker/noteChanged(_:)``).
    func noteChanged(_ object: any PersistentModel) {
        tracker.noteChanged(object)
    }

    package func adopt(_ object: any PersistentModel) {
        insertObject(object)
    }

    package func recordUndo(_ step: UndoStep) {
        undoManager?.record(step)
    }

    package func beginUndoableOperation() {
        undoManager?.beginOperation()
    }

    package func endUndoableOperation() {
        undoManager?.endOperation()
    }
}

extension PersistentModel {
    /// The context that manages the object, if any.
    public var context: ManagedObjectContext? {
        persistentBacking.coordinator as? ManagedObjectContext
    }
}

@available(*, unavailable, message: "A context belongs to one isolation domain; pass ObjectIDs between domains")
extension ManagedObjectContext: Sendable {}
