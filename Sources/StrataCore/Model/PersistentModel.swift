import Foundation
import Observation

/// A class whose instances a ``ManagedObjectContext`` manages and saves.
///
/// `@Model` adopts this protocol for you. Without the macro, adopt it by hand: list
/// the persistent properties in ``schemaProperties`` (their order gives each its
/// ordinal) and route every persistent property through ``persistentBacking``
/// with `persistentValue(at:as:)` and `setPersistentValue(_:at:as:)`.
///
/// ```swift
/// final class Tag: PersistentModel {
///     static let schemaProperties: [PropertyMetadata] = [.property("label", \Tag.label)]
///     let persistentBacking: ModelBacking
///     var label: String {
///         get { persistentValue(at: 0, as: String.self) }
///         set { setPersistentValue(newValue, at: 0, as: String.self) }
///     }
///     init(label: String) {
///         persistentBacking = ModelBacking(for: Tag.self)
///         persistentBacking.setInitialValue(label, at: 0, as: String.self)
///     }
///     init(backing: ModelBacking) { persistentBacking = backing }
/// }
/// ```
public protocol PersistentModel: AnyObject, Hashable, Observable, SendableMetatype {
    /// The entity's name in the schema and the store. Defaults to the type's name.
    static var entityName: String { get }
    /// The persistent properties in declaration order.
    static var schemaProperties: [PropertyMetadata] { get }
    /// Compound uniqueness constraints (`#Unique`), as lists of property names.
    static var uniquenessConstraints: [[String]] { get }
    /// Extra indexes (`#Index`), as lists of property names.
    static var indexes: [[String]] { get }
    /// The storage behind the persistent properties.
    var persistentBacking: ModelBacking { get }
    /// Creates an object over storage that Strata provides (used for fetched objects).
    init(backing: ModelBacking)

    // Lifecycle hooks; empty by default.
    /// Called once, when the object is inserted into a context.
    func awakeFromInsert()
    /// Called when a fetched object's values are first loaded.
    func awakeFromFetch()
    /// Called before the object is saved.
    func willSave()
    /// Called after the object was saved.
    func didSave()
    /// Called when the object is deleted from its context, before delete rules apply.
    func prepareForDeletion()

    // Validation hooks; run at save, before anything is written. Throw to veto
    // the save: every failure of one save is reported together.
    /// Checks a new object before its first save.
    func validateForInsert() throws
    /// Checks a changed object before it is saved.
    func validateForUpdate() throws
    /// Checks an object before its deletion is saved.
    func validateForDelete() throws
}

extension PersistentModel {
    /// Objects are equal when they are the same object (identity, as in Core Data).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public static var entityName: String { String(describing: self) }
    public static var uniquenessConstraints: [[String]] { [] }
    public static var indexes: [[String]] { [] }
    public func awakeFromInsert() {}
    public func awakeFromFetch() {
        // Tells a context that asked (see `ContextToken.awakesFromFetch`) that this type keeps the empty default.
        persistentBacking.contextToken?.defaultAwakeFromFetchRan(for: ObjectIdentifier(self))
    }
    public func willSave() {}
    public func didSave() {}
    public func prepareForDeletion() {}
    public func validateForInsert() throws {}
    public func validateForUpdate() throws {}
    public func validateForDelete() throws {}
}

// MARK: - Object state

extension PersistentModel {
    /// The object's identity; temporary until the first save.
    public var objectID: ObjectID { persistentBacking.objectID }

    /// Whether the object was inserted and not saved yet.
    public var isInserted: Bool { persistentBacking.state == .inserted }

    /// Whether the object is deleted and the deletion not saved yet.
    public var isDeleted: Bool { persistentBacking.state == .deleted }

    /// Whether a saved object has unsaved changes to its properties.
    public var isUpdated: Bool {
        let backing = persistentBacking
        return backing.state == .registered && backing.hasChangedOrdinals
    }

    /// Whether the object is inserted, updated or deleted and not saved yet.
    public var hasChanges: Bool { isInserted || isDeleted || isUpdated }

    /// Whether the object's values are not loaded yet.
    public var isFault: Bool { persistentBacking.isFault }

    /// The unsaved values, by property name, of the changed attributes.
    public var changedValues: [String: StoredValue] {
        persistentBacking.changedStoredValues()
    }
}
