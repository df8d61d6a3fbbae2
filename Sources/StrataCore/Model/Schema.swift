import Foundation

/// The set of entities a container manages, built from model types.
///
/// Building a schema validates it: names, types and inverse relationships. A
/// `PersistentContainer` refuses an invalid schema with ``StrataError/Code/invalidSchema``.
///
/// ```swift
/// let schema = Schema(Author.self, Book.self)
/// try schema.validate()
/// schema.entities.map(\.name)   // ["Author", "Book"]
/// ```
public final class Schema: Sendable {
    /// The entities, in the order their types were given.
    public let entities: [EntityDescription]
    /// Every problem found while building, or empty when the schema is valid.
    public let problems: [StrataError]
    /// The version this schema is, when it was made from a ``VersionedSchema``.
    /// Stores record it; migration plans find a store's version by it.
    public let version: Version?
    /// Whether some entity has a relationship (else a save writes none).
    package let hasRelationships: Bool
    /// Whether some relationship's `.deny` rule can refuse a deletion (else a
    /// save looks at no deleted object for one).
    package let deniesDeletion: Bool
    /// By entity: its uniqueness constraints as property ordinals (see
    /// `EntityDescription.uniqueKeyOrdinals`), worked out once for every save.
    package let uniqueKeys: [[[Int]]]
    /// Whether some entity has a uniqueness constraint (else a save reads no holders).
    package let hasUniqueKeys: Bool
    /// Whether some entity has a `UInt` or `UInt64` attribute (else a save
    /// looks for no value above `Int64.max`).
    package let hasWideUnsignedAttributes: Bool
    /// By entity: whether a deleted row leaves a tombstone in history (some
    /// attribute is `.preserveValueOnDeletion`).
    package let preservesValuesOnDeletion: [Bool]
    /// The to-one keys whose target's deletion cascades to their rows, and
    /// those whose target a `.deny` rule keeps (see ``ForeignKeyEdge``).
    package let cascadeEdges: [ForeignKeyEdge]
    package let denyEdges: [ForeignKeyEdge]
    private let entityIndexByName: [String: Int]
    private let entityIndexByType: [ObjectIdentifier: Int]

    /// Builds a schema from model types.
    public convenience init(_ types: any PersistentModel.Type...) {
        self.init(types)
    }

    /// Builds a schema from an array of model types.
    public convenience init(_ types: [any PersistentModel.Type]) {
        self.init(types, version: nil)
    }

    /// Builds a schema of a given version from an array of model types.
    public convenience init(_ types: [any PersistentModel.Type], version: Version?) {
        var builder = SchemaBuilder(types: types)
        let built = builder.build()
        self.init(entities: built.entities, problems: built.problems, version: version)
    }

    /// A schema of entities built elsewhere (from model types, or from what a store records).
    package init(entities: [EntityDescription], problems: [StrataError], version: Version?) {
        self.version = version
        self.entities = entities
        self.problems = problems
        hasRelationships = entities.contains { !$0.relationshipOrdinals.isEmpty }
        deniesDeletion = entities.contains(where: \.deniesDeletion)
        uniqueKeys = entities.map(\.uniqueKeyOrdinals)
        hasUniqueKeys = uniqueKeys.contains { !$0.isEmpty }
        hasWideUnsignedAttributes = entities.contains { !$0.wideUnsignedOrdinals.isEmpty }
        preservesValuesOnDeletion = entities.map { entity in
            entity.attributes.contains { $0.options.contains(.preserveValueOnDeletion) }
        }
        let edges = ForeignKeyEdge.all(in: entities)
        cascadeEdges = edges.filter { $0.rule == .cascade }
        denyEdges = edges.filter { $0.rule == .deny }
        entityIndexByName = Dictionary(entities.map { ($0.name, $0.index) }, uniquingKeysWith: { a, _ in a })
        entityIndexByType = Dictionary(
            entities.map { (ObjectIdentifier($0.modelType), $0.index) }, uniquingKeysWith: { a, _ in a })
    }

    /// Throws the schema's problems as one ``StrataError`` (code `.invalidSchema`).
    public func validate() throws(StrataError) {
        guard let first = problems.first else { return }
        if problems.count == 1 { throw first }
        let list = problems.map(\.message).joined(separator: "; ")
        throw StrataError(
            .invalidSchema, "The schema has \(problems.count) problems: \(list)",
            entityName: first.entityName, propertyName: first.propertyName, detailedErrors: problems)
    }

    /// The entity with this name.
    public func entity(named name: String) -> EntityDescription? {
        entityIndexByName[name].map { entities[$0] }
    }

    /// The entity of a model type; throws when the type is not part of the schema.
    public func entity(for type: any PersistentModel.Type) throws(StrataError) -> EntityDescription {
        guard let index = entityIndexByType[ObjectIdentifier(type)] else {
            throw StrataError(
                .invalidSchema, "\(type.entityName) is not an entity of this schema",
                entityName: type.entityName)
        }
        return entities[index]
    }

    package func entityIndex(for type: any PersistentModel.Type) -> Int? {
        entityIndexByType[ObjectIdentifier(type)]
    }

    /// The plain description recorded in a store.
    public var summary: SchemaSummary {
        SchemaSummary(entities: entities.map(\.summary))
    }

    /// A stable fingerprint of the schema's stored shape.
    public var fingerprint: String { summary.fingerprint }
}

/// A schema as recorded in a store's metadata: entities without Swift types.
///
/// ```swift
/// let data = try JSONEncoder().encode(schema.summary)
/// let summary = try JSONDecoder().decode(SchemaSummary.self, from: data)
/// ```
public struct SchemaSummary: Sendable, Hashable, Codable {
    public var entities: [EntitySummary]

    /// Decodes a summary and refuses one that names an entity twice, or a
    /// property twice within an entity: no schema records that, so the text
    /// was damaged or written by hand.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entities = try container.decode([EntitySummary].self, forKey: .entities)
        var entityNames = Set<String>()
        for entity in entities {
            var propertyNames = Set<String>()
            guard entityNames.insert(entity.name).inserted,
                  entity.properties.allSatisfy({ propertyNames.insert($0.name).inserted }) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: [CodingKeys.entities],
                    debugDescription: "The schema names \(entity.name) or one of its properties twice"))
            }
        }
    }

    package init(entities: [EntitySummary]) {
        self.entities = entities
    }

    /// A schema of no entities.
    package static let empty = SchemaSummary(entities: [])

    /// The canonical JSON form (sorted keys), used for fingerprints and metadata.
    public func canonicalJSON() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain value types cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// A 64-bit FNV-1a hash of the canonical JSON, as 16 hex digits.
    public var fingerprint: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonicalJSON() {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
