import Foundation
import Observation

/// The stand-in storage `@Model` gives each persistent property, so that
/// definite initialisation can track it; the value itself lives in the
/// object's ``ModelBacking``. Hand-written models do not need it.
///
/// ```swift
/// // What @Model generates beside `var title: String`:
/// private var _title: PersistedPropertyStorage
/// ```
public struct PersistedPropertyStorage: Sendable {
    public init() {}
}

/// What a context does for the objects it manages: load faults, resolve
/// relationships, track changes. ``ManagedObjectContext`` adopts it.
package protocol ObjectGraphCoordinator: AnyObject {
    var schema: Schema { get }
    /// The token its objects hold to reach it (see ``ContextToken``).
    var contextToken: ContextToken { get }
    /// Loads the stored values of a fault.
    func fulfillFault(_ backing: ModelBacking)
    /// The object for a row: registered, or a new fault.
    func object(entityIndex: Int, primaryKey: Int64) -> any PersistentModel
    /// The current members of a to-many relationship, including unsaved changes.
    func loadToMany(of owner: any PersistentModel, ordinal: Int) -> [any PersistentModel]
    /// An object of this context changed its first property since it was saved or fetched.
    func noteUpdated(_ object: any PersistentModel)
    /// A new object became related to one of this context's objects: insert it.
    func adopt(_ object: any PersistentModel)
    /// An accessor met a stored value it cannot read (see ``ModelBacking/unreadableValue(at:as:)``).
    func reportUnthrown(_ error: any Error)
    /// A property of an object changed, for the context's next change event
    /// (called while ``ContextToken/recordsChanges``).
    func recordPropertyChange(of object: any PersistentModel, at ordinal: Int)
    /// A change to take back on undo (called while ``ContextToken/recordsUndo``).
    func recordUndo(_ step: UndoStep)
    /// Brackets one operation (a relationship set with its inverses) so that
    /// its steps form one undo group.
    func beginUndoableOperation()
    func endUndoableOperation()
}

/// The lifecycle state of a managed object.
package enum ObjectState: UInt8, Sendable {
    /// Created, not inserted in any context.
    case new
    /// Inserted, not saved yet.
    case inserted
    /// Saved or fetched, managed by a context.
    case registered
    /// Deleted, deletion not saved yet.
    case deleted
    /// Deleted and saved, or its context was reset.
    case invalidated
}

/// The loaded state of one relationship of one object.
package enum RelationSlot {
    case unloaded
    case toOne((any PersistentModel)?)
    case toMany([any PersistentModel])
}

/// The fields of a ``ModelBacking`` beside its values (its storage's header).
@usableFromInline package struct BackingFields {
    let modelType: any PersistentModel.Type
    var entity: EntityDescription?
    var objectID: ObjectID
    var contextToken: ContextToken?
    var state: ObjectState
    var isFault: Bool
    /// Whether reads register with Observation: set from the context's token
    /// when the object joins it (sits in padding beside `isFault`).
    var observesReads = false
    let valueCount: Int
    var originals: ContiguousArray<(ordinal: Int, value: StoredValue)> = []
    var version: Int64 = 0
    var changedOrdinals = OrdinalSet()
    var relations: ContiguousArray<RelationSlot> = []
    var needsInverseSync = false
    var faultBatch: FaultBatch?
    var changedPosition: Int32 = -1
    var deletedPosition: Int32 = -1
    /// Made on the first read that Observation may track (see ``ContextToken/observesReads``).
    var observation: ObservationBox?
}

/// The storage behind a model object's persistent properties.
///
/// Values are kept as ``StoredValue``s indexed by property ordinal, beside the
/// last saved values, so change tracking, rollback and saving need no
/// reflection. `@Model` routes properties here; hand-written models do the same.
///
/// ```swift
/// var title: String {
///     get { persistentValue(at: 0, as: String.self) }
///     set { setPersistentValue(newValue, at: 0, as: String.self) }
/// }
/// ```
///
/// A backing is a reference to storage of its own: copies of it are the same
/// backing. The values live in the same allocation as the other fields, so an
/// object costs two allocations, itself and its storage, and reading a value
/// follows one pointer fewer.
public struct ModelBacking {
    @usableFromInline package let storage: BackingStorage

    @inlinable init(storage: BackingStorage) {
        self.storage = storage
    }

    /// Storage for a new object of a model type.
    ///
    /// ```swift
    /// init(label: String) {
    ///     persistentBacking = ModelBacking(for: Tag.self)
    ///     self.label = label
    /// }
    /// ```
    public init(for modelType: any PersistentModel.Type) {
        self = Self.makeNew(for: modelType)
    }

    // Fields are reached through the header's address, which involves no
    // run-time exclusivity check. Strata never overlaps two accesses to one of
    // them (no field is passed `inout` while another access to it runs).
    @inline(__always) private var fields: UnsafeMutablePointer<BackingFields> {
        storage.withUnsafeMutablePointerToHeader { $0 }
    }

    package var modelType: any PersistentModel.Type { fields.pointee.modelType }
    package var entity: EntityDescription? {
        get { fields.pointee.entity }
        nonmutating set { fields.pointee.entity = newValue }
    }
    package var objectID: ObjectID {
        get { fields.pointee.objectID }
        nonmutating set { fields.pointee.objectID = newValue }
    }
    /// The object's primary key once its ID is permanent (``objectID`` without
    /// copying it).
    package var primaryKey: Int64? { fields.pointee.objectID.primaryKey }
    /// The object's temporary key while it has one.
    package var temporaryKey: UInt64? { fields.pointee.objectID.temporaryKey }
    /// The token of the managing context; nil while new or once invalidated.
    package var contextToken: ContextToken? {
        get { fields.pointee.contextToken }
        nonmutating set { fields.pointee.contextToken = newValue }
    }
    /// The managing context, if it still exists.
    package var coordinator: (any ObjectGraphCoordinator)? {
        get { contextToken?.coordinator }
        nonmutating set { contextToken = newValue?.contextToken }
    }
    package var state: ObjectState {
        get { fields.pointee.state }
        nonmutating set { fields.pointee.state = newValue }
    }
    // Every attribute accessor, inlined into the app, reads `isFault` and `values`.
    @usableFromInline package var isFault: Bool {
        get { fields.pointee.isFault }
        nonmutating set { fields.pointee.isFault = newValue }
    }
    /// Current values by ordinal (a to-one relationship holds its foreign key),
    /// one per property of the model; `.null` while a fault.
    ///
    /// A view of the backing's own storage, valid while the backing lives: copy
    /// it (`ContiguousArray(backing.values)`) to keep the values of a moment.
    @usableFromInline package var values: UnsafeMutableBufferPointer<StoredValue> {
        storage.withUnsafeMutablePointers { fields, values in
            UnsafeMutableBufferPointer(start: values, count: fields.pointee.valueCount)
        }
    }
    /// For each property changed since the object was last read from or
    /// written to the store, its value from then, in the order of first change.
    /// Empty for unchanged objects, so a first change copies nothing (see ``committed``).
    package var originals: ContiguousArray<(ordinal: Int, value: StoredValue)> {
        get { fields.pointee.originals }
        nonmutating _modify { yield &fields.pointee.originals }
    }
    /// The row version last read from or written to the store.
    package var version: Int64 {
        get { fields.pointee.version }
        nonmutating set { fields.pointee.version = newValue }
    }
    /// Ordinals whose values differ from the committed ones (relationships included).
    package var changedOrdinals: OrdinalSet {
        get { fields.pointee.changedOrdinals }
        nonmutating _modify { yield &fields.pointee.changedOrdinals }
    }
    /// Whether any ordinal changed, read in place (without copying the set).
    package var hasChangedOrdinals: Bool { !fields.pointee.changedOrdinals.isEmpty }
    /// Loaded relationship members, by ordinal; empty until a relationship is used.
    package var relations: ContiguousArray<RelationSlot> {
        get { fields.pointee.relations }
        nonmutating _modify { yield &fields.pointee.relations }
    }
    /// Relationships were set before the object joined a context; their inverses
    /// are brought up to date on insert.
    package var needsInverseSync: Bool {
        get { fields.pointee.needsInverseSync }
        nonmutating set { fields.pointee.needsInverseSync = newValue }
    }
    /// For faults from a `fetchBatchSize` fetch: the keys that load together.
    package var faultBatch: FaultBatch? {
        get { fields.pointee.faultBatch }
        nonmutating set { fields.pointee.faultBatch = newValue }
    }
    /// Where the object was last put in its context's changed and deleted
    /// lists (-1: never); see `ObjectList`.
    package var changedPosition: Int32 {
        get { fields.pointee.changedPosition }
        nonmutating set { fields.pointee.changedPosition = newValue }
    }
    package var valueCount: Int { fields.pointee.valueCount }

    package var observation: ObservationBox? {
        get { fields.pointee.observation }
        nonmutating set { fields.pointee.observation = newValue }
    }

    @usableFromInline package var observesReads: Bool {
        get { fields.pointee.observesReads }
        nonmutating set { fields.pointee.observesReads = newValue }
    }

    package var deletedPosition: Int32 {
        get { fields.pointee.deletedPosition }
        nonmutating set { fields.pointee.deletedPosition = newValue }
    }

    /// A backing with room for `valueCount` values, which `initializeValues`
    /// must initialise (all of them). The fields are made in place.
    @inline(__always)
    static func make(
        valueCount: Int, fields: () -> BackingFields, initializeValues: (UnsafeMutablePointer<StoredValue>, Int) -> Void
    ) -> ModelBacking {
        // The values are written while the buffer is made, before its header:
        // written after, through the finished storage, they cost it a retain
        // and a release around the writer's calls.
        let buffer = BackingStorage.create(minimumCapacity: valueCount) { buffer in
            buffer.withUnsafeMutablePointerToElements { initializeValues($0, valueCount) }
            return fields()
        }
        // `create` makes an instance of the class it is called on.
        return ModelBacking(storage: unsafeDowncast(buffer, to: BackingStorage.self))
    }

    /// Storage for a new object of a model type: one `.null` per property.
    static func makeNew(for modelType: any PersistentModel.Type) -> ModelBacking {
        let count = modelType.schemaProperties.count
        return make(
            valueCount: count,
            fields: {
                BackingFields(
                    modelType: modelType, objectID: .unassigned, state: .new,
                    isFault: false, valueCount: count)
            },
            initializeValues: { values, count in values.initialize(repeating: .null, count: count) })
    }

    /// The backing in `slot`, created there first when the slot is empty.
    ///
    /// `@Model` keeps an object's backing in an optional that starts empty, so
    /// that objects made for fetched rows (`init(backing:)`) create none to
    /// throw away; a new object creates its own with its first initial value.
    public static func resolve(_ slot: inout ModelBacking?, for modelType: any PersistentModel.Type) -> ModelBacking {
        if let backing = slot { return backing }
        let backing = makeNew(for: modelType)
        slot = backing
        return backing
    }

    /// Storage for a stored row, loaded now (`values` given) or later (a fault).
    package static func stored(
        entity: EntityDescription, objectID: ObjectID, coordinator: any ObjectGraphCoordinator,
        values: ContiguousArray<StoredValue>?, version: Int64
    ) -> ModelBacking {
        stored(entity: entity, objectID: objectID, token: coordinator.contextToken, isFault: values == nil, version: version) {
            target, count in
            guard let values else { return target.initialize(repeating: .null, count: count) }
            initialize(target, count: count, from: values)
        }
    }

    /// Storage for a stored row of the context that `token` stands for, its
    /// values written in place by `initializeValues`. The ID is made in place
    /// (so its text is retained once, for the object).
    @inline(__always)
    package static func stored(
        entity: EntityDescription, objectID: @autoclosure () -> ObjectID, token: ContextToken, isFault: Bool, version: Int64,
        initializeValues: (UnsafeMutablePointer<StoredValue>, Int) -> Void
    ) -> ModelBacking {
        let count = entity.properties.count
        return make(
            valueCount: count,
            fields: {
                BackingFields(
                    modelType: entity.modelType, entity: entity, objectID: objectID(), contextToken: token,
                    state: .registered, isFault: isFault, observesReads: token.observesReads, valueCount: count, version: version)
            },
            initializeValues: initializeValues)
    }

    /// Initialises `count` values from `source`, padding with `.null`.
    private static func initialize(_ target: UnsafeMutablePointer<StoredValue>, count: Int, from source: ContiguousArray<StoredValue>) {
        let copied = Swift.min(count, source.count)
        source.withUnsafeBufferPointer { target.initialize(from: $0.baseAddress!, count: copied) }
        if copied < count { (target + copied).initialize(repeating: .null, count: count - copied) }
    }

    /// Makes sure the values are loaded.
    @inlinable @inline(__always)
    package func willAccess() {
        if isFault { fireFault() }
    }

    @usableFromInline func fireFault() {
        guard let coordinator else {
            preconditionFailure("Strata: \(objectID) is a fault whose context no longer exists")
        }
        coordinator.fulfillFault(self)
    }

    /// Fills a fault (or refreshes an object) with stored values.
    package func load(values newValues: some Collection<StoredValue>, version newVersion: Int64) {
        assign(newValues)
        finishLoading(version: newVersion)
    }

    /// Marks values just written in place as loaded at `newVersion`.
    package func finishLoading(version newVersion: Int64) {
        originals = []
        version = newVersion
        isFault = false
        changedOrdinals.removeAll()
        relations = []
        faultBatch = nil
    }

    /// The object leaves its context for good: its deletion was saved or
    /// merged, its insertion rolled back, or the context reset. It keeps the
    /// values it had, but has no context and no loaded relationships.
    package func invalidate() {
        contextToken?.hasInvalidatedObjects = true
        state = .invalidated
        relations = []
        faultBatch = nil
        contextToken = nil
    }

    /// Turns the object back into a fault, dropping unsaved changes.
    package func turnIntoFault() {
        values.update(repeating: .null)
        originals = []
        relations = []
        changedOrdinals.removeAll()
        isFault = true
    }

    /// Makes room for every property once the entity is known.
    package func prepareForInsertion(entity: EntityDescription, objectID: ObjectID, coordinator: any ObjectGraphCoordinator) {
        self.entity = entity
        self.objectID = objectID
        self.coordinator = coordinator
        self.state = .inserted
        self.observesReads = coordinator.contextToken.observesReads
        let count = entity.properties.count
        precondition(values.count == count, "Strata: \(modelType) lists \(values.count) properties; its entity has \(count)")
        // Entities without relationships never need the relationship slots.
        guard !entity.relationshipOrdinals.isEmpty else { return }
        ensureRelations(count: count)
        for ordinal in entity.relationshipOrdinals {
            guard case .unloaded = relations[ordinal], let relationship = entity.relationship(at: ordinal) else { continue }
            relations[ordinal] = relationship.isToMany ? .toMany([]) : .toOne(nil)
        }
    }

    /// Replaces every value with those of `newValues` (padded with `.null`).
    package func assign(_ newValues: some Collection<StoredValue>) {
        let values = values
        var index = 0
        for value in newValues where index < values.count {
            values[index] = value
            index += 1
        }
        if index < values.count { values[index...].update(repeating: .null) }
    }

    package func ensureRelations(count: Int) {
        if relations.count < count {
            relations.append(contentsOf: repeatElement(.unloaded, count: count - relations.count))
        }
    }

    /// Records that a property changed, and tells the context the first time.
    ///
    /// A deleted object keeps track too, so its changes are unsaved changes
    /// again if the deletion is taken back.
    @usableFromInline package func noteChange(at ordinal: Int, owner: any PersistentModel, forceChanged: Bool = false) {
        if state != .new { propertyDidChange(at: ordinal, owner: owner) }
        guard state == .registered || state == .deleted else { return }
        let wasClean = changedOrdinals.isEmpty
        if forceChanged || committedValue(at: ordinal) != values[ordinal] {
            changedOrdinals.insert(ordinal)
        } else {
            changedOrdinals.remove(ordinal)
        }
        if wasClean, !changedOrdinals.isEmpty, state == .registered {
            coordinator?.noteUpdated(owner)
        }
    }

    /// The changed attribute values, by name.
    package func changedStoredValues() -> [String: StoredValue] {
        guard let entity else { return [:] }
        var result: [String: StoredValue] = [:]
        for ordinal in changedOrdinals.elements where entity.properties[ordinal].hasColumn {
            result[entity.properties[ordinal].name] = values[ordinal]
        }
        return result
    }

    /// The name of a property, for messages.
    package func propertyName(at ordinal: Int) -> String {
        if let entity { return "\(entity.name).\(entity.properties[ordinal].name)" }
        let properties = modelType.schemaProperties
        return ordinal < properties.count ? "\(modelType.entityName).\(properties[ordinal].name)" : "\(modelType.entityName)#\(ordinal)"
    }
}

/// The allocation behind a ``ModelBacking``: its fields as the header, one
/// value per property as the elements.
@usableFromInline package final class BackingStorage: ManagedBuffer<BackingFields, StoredValue> {
    deinit {
        _ = withUnsafeMutablePointers { fields, values in values.deinitialize(count: fields.pointee.valueCount) }
    }
}

extension UnsafeMutableBufferPointer where Element == StoredValue {
    /// The value at `ordinal`, its range checked in every build: the
    /// accessors of a hand-written model pass ordinals Strata cannot vouch for.
    @inlinable @inline(__always)
    package subscript(checked ordinal: Int) -> StoredValue {
        get {
            precondition(UInt(bitPattern: ordinal) < UInt(count), "Strata: no property has ordinal \(ordinal)")
            return self[ordinal]
        }
        nonmutating set {
            precondition(UInt(bitPattern: ordinal) < UInt(count), "Strata: no property has ordinal \(ordinal)")
            self[ordinal] = newValue
        }
    }
}

/// Faults from one `fetchBatchSize` fetch that load together.
package final class FaultBatch {
    package let keys: ArraySlice<Int64>

    package init(keys: ArraySlice<Int64>) {
        self.keys = keys
    }

    package static func make(keys: [Int64], size: Int) -> [FaultBatch] {
        stride(from: 0, to: keys.count, by: size).map { start in
            FaultBatch(keys: keys[start..<min(start + size, keys.count)])
        }
    }
}
