/// One entity of a ``Schema``: its properties, constraints and model type.
///
/// Entities are built by ``Schema`` from model types and are immutable.
///
/// ```swift
/// let schema = Schema(Author.self, Book.self)
/// let book = try schema.entity(for: Book.self)
/// book.attributes.map(\.name)   // ["title", "year", "rating"]
/// ```
public final class EntityDescription: @unchecked Sendable {
    // @unchecked: every stored property is an immutable `let`; key paths are values.

    /// The entity's name, also its table name.
    public let name: String
    /// The persistent properties, in declaration order (the index is the ordinal).
    public let properties: [PropertyDescription]
    /// Compound uniqueness constraints, by property name.
    public let uniquenessConstraints: [[String]]
    /// Extra indexes, by property name.
    public let indexes: [[String]]
    /// The Swift type of the entity's objects.
    public let modelType: any PersistentModel.Type
    /// The entity's position in its schema.
    package let index: Int
    /// Ordinals of the properties stored in columns, in column order.
    package let columnOrdinals: [Int]
    /// For each ordinal, its column index, or -1.
    package let columnIndexByOrdinal: [Int]
    package let ordinalByName: [String: Int]
    package let ordinalByKeyPath: [AnyKeyPath: Int]
    /// For each relationship ordinal: the destination entity's index and the inverse's ordinal.
    package let destinationIndexByOrdinal: [Int]
    package let inverseOrdinalByOrdinal: [Int]
    /// Ordinals of every relationship, and of the to-one relationships stored in
    /// columns (foreign keys), so hot paths skip entities without any.
    package let relationshipOrdinals: [Int]
    package let toOneColumnOrdinals: [Int]
    /// Whether a relationship's `.deny` rule can refuse deleting an object.
    package let deniesDeletion: Bool
    /// For each ordinal: whether it is a to-one relationship stored in a column.
    package let isToOneColumn: [Bool]
    /// Whether every property is stored in a column, in ordinal order (values
    /// by ordinal are then values by column).
    package let columnsAreOrdinals: Bool
    /// Whether a stored row's values can be read as the properties' types.
    package let valueCheck: StoredValueCheck
    /// Each property's declared initial value in stored form, by ordinal (nil: none declared).
    package let defaultValues: [StoredValue?]
    /// How each attribute's Swift type reads stored values, by ordinal (nil for relationships).
    package let valueReaders: [StoredValueReader?]
    /// The space of the entity's temporary IDs.
    package let temporaryIDSpace: ObjectIDSpace
    /// Ordinals of the `UInt` and `UInt64` attributes, whose values a save
    /// checks against the largest integer a store keeps.
    package let wideUnsignedOrdinals: [Int]

    init(
        name: String, properties: [PropertyDescription], metadata: [PropertyMetadata],
        uniquenessConstraints: [[String]], indexes: [[String]], modelType: any PersistentModel.Type,
        index: Int, destinationIndexByOrdinal: [Int], inverseOrdinalByOrdinal: [Int], defaultValues: [StoredValue?]? = nil
    ) {
        self.name = name
        self.temporaryIDSpace = .named(entity: name, store: "")
        self.properties = properties
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.modelType = modelType
        self.index = index
        var columnOrdinals: [Int] = []
        var columnIndexByOrdinal = Array(repeating: -1, count: properties.count)
        for (ordinal, property) in properties.enumerated() where property.hasColumn {
            columnIndexByOrdinal[ordinal] = columnOrdinals.count
            columnOrdinals.append(ordinal)
        }
        self.columnOrdinals = columnOrdinals
        self.columnIndexByOrdinal = columnIndexByOrdinal
        self.ordinalByName = Dictionary(properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.ordinalByKeyPath = Dictionary(metadata.enumerated().map { ($1.keyPath, $0) }, uniquingKeysWith: { a, _ in a })
        self.valueCheck = StoredValueCheck(properties: properties, metadata: metadata)
        self.defaultValues = defaultValues ?? properties.indices.map { $0 < metadata.count ? metadata[$0].defaultValue : nil }
        self.valueReaders = properties.indices.map { $0 < metadata.count ? metadata[$0].valueReader : nil }
        self.destinationIndexByOrdinal = destinationIndexByOrdinal
        self.inverseOrdinalByOrdinal = inverseOrdinalByOrdinal
        var relationshipOrdinals: [Int] = []
        var toOneColumnOrdinals: [Int] = []
        var isToOneColumn = Array(repeating: false, count: properties.count)
        for (ordinal, property) in properties.enumerated() {
            guard case .relationship = property else { continue }
            relationshipOrdinals.append(ordinal)
            if property.hasColumn {
                toOneColumnOrdinals.append(ordinal)
                isToOneColumn[ordinal] = true
            }
        }
        self.relationshipOrdinals = relationshipOrdinals
        self.toOneColumnOrdinals = toOneColumnOrdinals
        self.deniesDeletion = properties.contains { if case .relationship(let r) = $0 { r.deleteRule == .deny } else { false } }
        self.isToOneColumn = isToOneColumn
        self.columnsAreOrdinals = columnOrdinals.count == properties.count
        self.wideUnsignedOrdinals = properties.indices.filter { ordinal in
            guard case .attribute(let attribute) = properties[ordinal] else { return false }
            return attribute.type.isWideUnsigned
        }
    }

    /// The attributes, in declaration order.
    public var attributes: [AttributeDescription] {
        properties.compactMap { if case .attribute(let a) = $0 { a } else { nil } }
    }

    /// The relationships, in declaration order.
    public var relationships: [RelationshipDescription] {
        properties.compactMap { if case .relationship(let r) = $0 { r } else { nil } }
    }

    /// The attribute with this name.
    public func attribute(named name: String) -> AttributeDescription? {
        guard let ordinal = ordinalByName[name], case .attribute(let a) = properties[ordinal] else { return nil }
        return a
    }

    /// The relationship with this name.
    public func relationship(named name: String) -> RelationshipDescription? {
        guard let ordinal = ordinalByName[name], case .relationship(let r) = properties[ordinal] else { return nil }
        return r
    }

    /// The ordinal of the property a key path names, if it is persistent.
    public func ordinal(for keyPath: AnyKeyPath) -> Int? {
        ordinalByKeyPath[keyPath]
    }

    /// The attribute at an ordinal, if that property is an attribute.
    package func attribute(at ordinal: Int) -> AttributeDescription? {
        if case .attribute(let a) = properties[ordinal] { return a }
        return nil
    }

    /// The relationship at an ordinal, if that property is a relationship.
    package func relationship(at ordinal: Int) -> RelationshipDescription? {
        if case .relationship(let r) = properties[ordinal] { return r }
        return nil
    }

    /// A plain, codable description of the entity (what the store records).
    public var summary: EntitySummary {
        EntitySummary(
            name: name, properties: properties,
            uniquenessConstraints: uniquenessConstraints, indexes: indexes)
    }
}

/// An entity as recorded in a store's metadata, without its Swift type.
///
/// ```swift
/// let json = try JSONEncoder().encode(schema.summary)
/// ```
public struct EntitySummary: Sendable, Hashable, Codable {
    public var name: String
    public var properties: [PropertyDescription]
    public var uniquenessConstraints: [[String]]
    public var indexes: [[String]]
}

extension EntityDescription {
    /// Every uniqueness constraint, as property ordinals: each `.unique`
    /// attribute alone, then each `#Unique` group.
    package var uniqueKeyOrdinals: [[Int]] {
        var keys: [[Int]] = []
        for (ordinal, property) in properties.enumerated() {
            if case .attribute(let attribute) = property, attribute.isUnique { keys.append([ordinal]) }
        }
        for group in uniquenessConstraints {
            let ordinals = group.compactMap { ordinalByName[$0] }
            if ordinals.count == group.count { keys.append(ordinals) }
        }
        return keys
    }

    /// Every uniqueness constraint, as column indices (see ``uniqueKeyOrdinals``).
    package var uniqueKeyColumns: [[Int]] {
        uniqueKeyOrdinals.map { $0.map { columnIndexByOrdinal[$0] } }
    }
}
