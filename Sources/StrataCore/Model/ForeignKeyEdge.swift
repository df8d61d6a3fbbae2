/// A to-one relationship stored as a key, and what every store does to it
/// when the referenced row goes.
///
/// The action comes from the delete rule of the to-many (or to-one) inverse on
/// the referenced entity: `.cascade` deletes the row too, `.nullify` (and no
/// inverse) clears the key, `.deny` refuses the deletion while the row points
/// at it, `.noAction` does nothing (the key may dangle). SQLite stores declare
/// these as foreign-key actions (`ON DELETE CASCADE`, `SET NULL`, `RESTRICT`).
/// A schema lists its own in ``Schema/cascadeEdges`` and ``Schema/denyEdges``.
package struct ForeignKeyEdge: Sendable {
    /// The entity holding the column, the to-one's ordinal and its column.
    package let childIndex: Int
    package let ordinal: Int
    /// The column's name, unquoted (a SQL store quotes it).
    package let columnName: String
    /// The referenced entity, and the ordinal of the inverse that declares the rule (-1: none).
    package let parentIndex: Int
    package let inverseOrdinal: Int
    package let rule: DeleteRule

    package static func all(in schema: Schema) -> [ForeignKeyEdge] { all(in: schema.entities) }

    static func all(in entities: [EntityDescription]) -> [ForeignKeyEdge] {
        var edges: [ForeignKeyEdge] = []
        for entity in entities {
            for ordinal in entity.columnOrdinals where entity.relationship(at: ordinal) != nil {
                let parent = entity.destinationIndexByOrdinal[ordinal]
                guard parent >= 0 else { continue }
                edges.append(ForeignKeyEdge(
                    childIndex: entity.index, ordinal: ordinal, columnName: entity.properties[ordinal].name,
                    parentIndex: parent, inverseOrdinal: entity.inverseOrdinalByOrdinal[ordinal],
                    rule: Schema.deleteRule(ofToOneAt: ordinal, of: entity, in: entities)))
            }
        }
        return edges
    }
}

extension Schema {
    /// What happens to the to-one at `ordinal` of `entity` when the row it
    /// points at goes: the delete rule of its inverse, or `.nullify`.
    package func deleteRule(ofToOneAt ordinal: Int, of entity: EntityDescription) -> DeleteRule {
        Self.deleteRule(ofToOneAt: ordinal, of: entity, in: entities)
    }

    static func deleteRule(ofToOneAt ordinal: Int, of entity: EntityDescription, in entities: [EntityDescription]) -> DeleteRule {
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        let parent = entity.destinationIndexByOrdinal[ordinal]
        guard inverse >= 0, parent >= 0 else { return .nullify }
        return entities[parent].relationship(at: inverse)?.deleteRule ?? .nullify
    }
}
