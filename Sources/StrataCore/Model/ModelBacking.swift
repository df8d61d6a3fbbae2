import Foundation

/// Placeholder storage that `@Model` gives each persistent property, so the
/// compiler sees it initialised; the value itself lives in ``ModelBacking``.
public struct _StrataNoStorage: Sendable {
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
}

/// How a context's objects reach it without a weak reference each.
///
/// Every object of a context holds this one small object strongly (a plain
/// retain, no weak side-table entry per object); the context clears it in
/// `deinit`, so objects that outlive their context see no coordinator.
package final class ContextToken {
    private unowned(unsafe) var target: (any ObjectGraphCoordinator)?

    package init() {}

    /// The context, or nil once it is gone.
    package var coordinator: (any ObjectGraphCoordinator)? { target }

    /// Binds the token to its context (once, when the context is created).
    package func bind(_ coordinator: any ObjectGraphCoordinator) { target = coordinator }

    /// Called from the context's `deinit`: its objects no longer reach it.
    package func invalidate() { target = nil }
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

/// The storage behind a model object's persistent properties.
///
/// Values are kept as ``StoredValue``s indexed by property ordinal, beside the
/// last saved values, so change tracking, rollback and saving need no
/// reflection. `@Model` routes properties here; hand-written models do the same.
///
/// ```swift
/// var title: String {
///     get { _$value(at: 0, as: String.self) }
///     set { _$setValue(newValue, at: 0, as: String.self) }
/// }
/// ```
public final class ModelBacking {
    // A backing's fields are read and written for every object a fetch, a save
    // or an accessor touches. Strata never overlaps two accesses to one of them
    // (no field is passed `inout` while another access to it runs), so they
    // are not checked for exclusivity at run time, which would cost a runtime
    // call per access.
    package let modelType: any PersistentModel.Type
    @exclusivity(unchecked) package var entity: EntityDescription?
    @exclusivity(unchecked) package var objectID: ObjectID
    /// The token of the managing context; nil while new or once invalidated.
    @exclusivity(unchecked) package var contextToken: ContextToken?
    /// The managing context, if it still exists.
    package var coordinator: (any ObjectGraphCoordinator)? {
        get { contextToken?.coordinator }
        set { contextToken = newValue?.contextToken }
    }
    @exclusivity(unchecked) package var state: ObjectState
    // Every attribute accessor, inlined into the app, reads `isFault` and `values`.
    @exclusivity(unchecked) @usableFromInline package var isFault: Bool
    /// Current values by ordinal (a to-one relationship holds its foreign key).
    @exclusivity(unchecked) @usableFromInline package var values: ContiguousArray<StoredValue>
    /// For each property changed since the object was last read from or
    /// written to the store, its value from then, in the order of first change.
    /// Empty for unchanged objects, so reading and saving keep one values array
    /// and a first change copies nothing (see ``committed``).
    @exclusivity(unchecked) package var originals: ContiguousArray<(ordinal: Int, value: StoredValue)> = []
    /// The row version last read from or written to the store.
    @exclusivity(unchecked) package var version: Int64 = 0
    /// Ordinals whose values differ from the committed ones (relationships included).
    @exclusivity(unchecked) package var changedOrdinals = OrdinalSet()
    /// Loaded relationship members, by ordinal; empty until a relationship is used.
    @exclusivity(unchecked) package var relations: ContiguousArray<RelationSlot> = []
    /// Relationships were set before the object joined a context; their inverses
    /// are brought up to date on insert.
    @exclusivity(unchecked) package var needsInverseSync = false
    /// For faults from a `fetchBatchSize` fetch: the keys that load together.
    @exclusivity(unchecked) package var faultBatch: FaultBatch?
    /// Where the object was last put in its context's changed and deleted
    /// lists (-1: never); see `ObjectList`.
    @exclusivity(unchecked) package var changedPosition: Int32 = -1
    @exclusivity(unchecked) package var deletedPosition: Int32 = -1

    /// Storage for a new object of a model type.
    public init(for modelType: any PersistentModel.Type) {
        self.modelType = modelType
        self.objectID = ObjectID(entityName: "", temporaryKey: 0)
        self.state = .new
        self.isFault = false
        self.values = []
    }

    /// The backing in `slot`, created there first when the slot is empty.
    ///
    /// `@Model` keeps an object's backing in an optional that starts empty, so
    /// that objects made for fetched rows (`init(backing:)`) create none to
    /// throw away; a new object creates its own with its first initial value.
    public static func resolve(_ slot: inout ModelBacking?, for modelType: any PersistentModel.Type) -> ModelBacking {
        if let backing = slot { return backing }
        let backing = ModelBacking(for: modelType)
        slot = backing
        return backing
    }

    /// Storage for a stored row, loaded now (`values` given) or later (a fault).
    package convenience init(
        entity: EntityDescription, objectID: ObjectID, coordinator: any ObjectGraphCoordinator,
        values: ContiguousArray<StoredValue>?, version: Int64
    ) {
        self.init(entity: entity, objectID: objectID, token: coordinator.contextToken, values: values, version: version)
    }

    /// Storage for a stored row of the context that `token` stands for.
    package init(
        entity: EntityDescription, objectID: ObjectID, token: ContextToken,
        values: ContiguousArray<StoredValue>?, version: Int64
    ) {
        self.modelType = entity.modelType
        self.entity = entity
        self.objectID = objectID
        self.contextToken = token
        self.state = .registered
        self.isFault = values == nil
        self.values = values ?? []
        self.version = version
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
    package func load(values newValues: ContiguousArray<StoredValue>, version newVersion: Int64) {
        values = newValues
        originals = []
        version = newVersion
        isFault = false
        changedOrdinals.removeAll()
        relations = []
        faultBatch = nil
    }

    /// Turns the object back into a fault, dropping unsaved changes.
    package func turnIntoFault() {
        values = []
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
        let count = entity.properties.count
        if values.count < count {
            values.append(contentsOf: repeatElement(.null, count: count - values.count))
        }
        // Entities without relationships never need the relationship slots.
        guard !entity.relationshipOrdinals.isEmpty else { return }
        ensureRelations(count: count)
        for ordinal in entity.relationshipOrdinals {
            guard case .unloaded = relations[ordinal], let relationship = entity.relationship(at: ordinal) else { continue }
            relations[ordinal] = relationship.isToMany ? .toMany([]) : .toOne(nil)
        }
    }

    package func ensureRelations(count: Int) {
        if relations.count < count {
            relations.append(contentsOf: repeatElement(.unloaded, count: count - relations.count))
        }
    }

    /// Records that a property changed, and tells the context the first time.
    @usableFromInline package func noteChange(at ordinal: Int, owner: any PersistentModel, forceChanged: Bool = false) {
        guard state == .registered else { return }
        let wasClean = changedOrdinals.isEmpty
        if forceChanged || ordinal >= values.count || committedValue(at: ordinal) != values[ordinal] {
            changedOrdinals.insert(ordinal)
        } else {
            changedOrdinals.remove(ordinal)
        }
        if wasClean, !changedOrdinals.isEmpty {
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

    @usableFromInline package func conversionFailure(at ordinal: Int, to type: Any.Type) -> Never {
        preconditionFailure("Strata: the stored value of \(propertyName(at: ordinal)) cannot be read as \(type)")
    }
}

@available(*, unavailable, message: "Model objects and their storage belong to one context's isolation domain; pass ObjectIDs instead")
extension ModelBacking: Sendable {}

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
