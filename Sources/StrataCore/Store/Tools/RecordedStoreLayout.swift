/// The tables and columns of a SQLite store, worked out from the schema it
/// records, for the tools that read and write rows without the app's models
/// (`strata fetch`, `export`, `import`). It follows the same rules as the
/// store (``RelationshipLayout``), through a ``Schema`` rebuilt from the summary.
///
/// ```swift
/// let layout = RecordedStoreLayout(summary)
/// layout.entities[0].columns.map(\.name)   // the stored attributes and to-ones
/// ```
package struct RecordedStoreLayout: Sendable {
    /// A column of an entity's table after `pk` and the version.
    package struct Column: Sendable {
        package let name: String
        /// The attribute's type; nil for a to-one relationship (a key).
        package let type: AttributeType?
        package let isOptional: Bool
    }

    /// Where the members of a to-many relationship are kept.
    package enum ToManyStorage: Sendable {
        /// In the member table: its key column and the position column beside it.
        case foreignKey(memberTable: String, keyColumn: String, positionColumn: String)
        /// In a join table: the owner's and member's columns and positions.
        case joinTable(table: String, ownerColumn: String, memberColumn: String, ownerPosition: String, memberPosition: String)
    }

    package struct ToMany: Sendable {
        package let name: String
        package let destination: String
        package let storage: ToManyStorage
    }

    package struct Entity: Sendable {
        package let name: String
        package let columns: [Column]
        package let toMany: [ToMany]
    }

    package let entities: [Entity]

    package init(_ summary: SchemaSummary) {
        let schema = Schema(recorded: summary, assumedDefault: nil)
        entities = schema.entities.map { entity in
            var columns: [Column] = []
            var toMany: [ToMany] = []
            for (ordinal, property) in entity.properties.enumerated() {
                switch property {
                case .attribute(let attribute):
                    columns.append(Column(name: attribute.name, type: attribute.type, isOptional: attribute.isOptional))
                case .relationship(let relationship) where !relationship.isToMany:
                    columns.append(Column(name: relationship.name, type: nil, isOptional: true))
                case .relationship(let relationship):
                    guard let shape = schema.toManyShape(entityIndex: entity.index, ordinal: ordinal) else { continue }
                    let destination = relationship.destinationEntityName
                    switch shape {
                    case .foreignKey(let destinationIndex, let inverse):
                        let keyColumn = schema.entities[destinationIndex].properties[inverse].name
                        toMany.append(ToMany(name: relationship.name, destination: destination, storage: .foreignKey(
                            memberTable: destination, keyColumn: keyColumn,
                            positionColumn: StorageNaming.positionColumn(forToOne: keyColumn))))
                    case .join(let key, let ownerIsSource, _):
                        let canonical = schema.entities[key.entityIndex]
                        let table = StorageNaming.joinTableName(
                            entity: canonical.name, relationship: canonical.properties[key.ordinal].name)
                        let (owner, member) = ownerIsSource ? ("source", "target") : ("target", "source")
                        toMany.append(ToMany(name: relationship.name, destination: destination, storage: .joinTable(
                            table: table, ownerColumn: owner, memberColumn: member,
                            ownerPosition: owner + "_position", memberPosition: member + "_position")))
                    }
                }
            }
            return Entity(name: entity.name, columns: columns, toMany: toMany)
        }
    }

    package func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }
}
