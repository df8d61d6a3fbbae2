/// The changes one save committed: `Sendable`, so other contexts can merge them.
///
/// ```swift
/// for change in changeSet.updated {
///     print(change.objectID, change.propertyNames)     // ["title", "rating"]
///     if case .text(let title)? = change.value(forProperty: "title") { print(title) }
/// }
/// ```
public struct ChangeSet: Sendable {
    /// One changed row: its object, the properties the change wrote and their
    /// new values as stored.
    public struct Row: Sendable {
        public var objectID: ObjectID
        /// The row's entity (its properties give the ordinals their names).
        package let entity: EntityDescription
        /// Ordinals of the properties whose new values are in ``values``.
        package var ordinals: [Int]
        /// The new values, in the order of ``propertyNames``. A to-one
        /// relationship's value is the destination's primary key (or `.null`).
        public var values: [StoredValue]
        /// The row's version after the change (0 for deletions).
        public var version: Int64

        package init(objectID: ObjectID, entity: EntityDescription, ordinals: [Int], values: [StoredValue], version: Int64) {
            self.objectID = objectID
            self.entity = entity
            self.ordinals = ordinals
            self.values = values
            self.version = version
        }

        package var entityIndex: Int { entity.index }

        /// The entity's name.
        public var entityName: String { entity.name }

        /// The names of the properties whose new values are in ``values``, in
        /// the same order: every stored property for an insertion, the changed
        /// ones for an update, none for a deletion.
        public var propertyNames: [String] { ordinals.map { entity.properties[$0].name } }

        /// The new value of a property, or nil when the change did not write it.
        public func value(forProperty name: String) -> StoredValue? {
            guard let ordinal = entity.ordinalByName[name], let position = ordinals.firstIndex(of: ordinal),
                  position < values.count else { return nil }
            return values[position]
        }

        /// The new values by property name.
        public var valuesByName: [String: StoredValue] {
            Dictionary(zip(propertyNames, values), uniquingKeysWith: { _, last in last })
        }
    }

    /// The store that committed the changes.
    public var storeIdentifier: String
    public var inserted: [Row] = []
    public var updated: [Row] = []
    public var deleted: [Row] = []
    /// To-many relationships whose members or order changed.
    public var toManyChanges: [ToManyChange] = []
    /// The author and context name of the save, if set.
    public var author: String?
    public var contextName: String?
    /// A token unique to the context that saved, so it can skip its own changes.
    package var originToken: ObjectIdentifier?
    /// The history transaction the save recorded; nil when history tracking is off.
    public var historyToken: HistoryToken?

    package init(storeIdentifier: String) {
        self.storeIdentifier = storeIdentifier
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && toManyChanges.isEmpty }
}
