/// A persistent attribute of an entity, as recorded in the schema.
///
/// ```swift
/// let title = schema.entity(named: "Book")?.attribute(named: "title")
/// title?.type        // .string
/// title?.isOptional  // false
/// ```
public struct AttributeDescription: Sendable, Hashable, Codable {
    /// The attribute's name, also its column name.
    public var name: String
    /// The stored type.
    public var type: AttributeType
    /// Whether `nil` is a valid value.
    public var isOptional: Bool
    /// Options given with `@Attribute`.
    public var options: Set<AttributeOption>
    /// The attribute's name in an earlier schema version, for migration.
    public var originalName: String?

    public init(
        name: String, type: AttributeType, isOptional: Bool = false,
        options: Set<AttributeOption> = [], originalName: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.options = options
        self.originalName = originalName
    }

    /// Whether the attribute carries `.unique`.
    public var isUnique: Bool { options.contains(.unique) }
}

/// A relationship of an entity, as recorded in the schema.
///
/// ```swift
/// let books = schema.entity(named: "Author")?.relationship(named: "books")
/// books?.isToMany          // true
/// books?.inverseName       // "author"
/// ```
public struct RelationshipDescription: Sendable, Hashable, Codable {
    /// The relationship's name. A to-one relationship's column has this name.
    public var name: String
    /// The entity at the other end.
    public var destinationEntityName: String
    /// Whether the relationship holds many objects.
    public var isToMany: Bool
    /// What deleting the source object does to the destination objects.
    public var deleteRule: DeleteRule
    /// The relationship on the destination entity that points back.
    public var inverseName: String?
    /// The least number of objects a to-many must hold at save.
    public var minimumModelCount: Int?
    /// The most objects a to-many may hold at save.
    public var maximumModelCount: Int?
    /// The relationship's name in an earlier schema version.
    public var originalName: String?

    public init(
        name: String, destinationEntityName: String, isToMany: Bool, deleteRule: DeleteRule = .nullify,
        inverseName: String? = nil, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
        originalName: String? = nil
    ) {
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.isToMany = isToMany
        self.deleteRule = deleteRule
        self.inverseName = inverseName
        self.minimumModelCount = minimumModelCount
        self.maximumModelCount = maximumModelCount
        self.originalName = originalName
    }

    /// Whether the relationship is stored as a foreign-key column on this entity.
    public var hasColumn: Bool { !isToMany }
}

/// A persistent property: an attribute or a relationship.
public enum PropertyDescription: Sendable, Hashable, Codable {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)

    /// The property's name.
    public var name: String {
        switch self {
        case .attribute(let attribute): attribute.name
        case .relationship(let relationship): relationship.name
        }
    }

    /// Whether the property is stored in a column of the entity's table.
    public var hasColumn: Bool {
        switch self {
        case .attribute: true
        case .relationship(let relationship): relationship.hasColumn
        }
    }
}
