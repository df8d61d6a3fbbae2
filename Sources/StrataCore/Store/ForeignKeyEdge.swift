/// A to-one relationship stored as a key, and what every store does to it
/// when the referenced row goes.
///
/// The action comes from the delete rule of the to-many (or to-one) inverse on
/// the referenced entity: `.cascade` deletes the row too, `.nullify` (and no
/// inverse) clears the key, `.deny` refuses the deletion while the row points
/// at it, `.noAction` does nothing (the key may dangle). SQLite stores declare
/// these as foreign-key actions (`ON DELETE CASCADE`, `SET NULL`, `RESTRICT`).
package struct ForeignKeyEdge: Sendable {
    /// The entity holding the column, the to-one's ordinal and its quoted column.
    package let childIndex: Int
    package let ordinal: Int
    /// The quoted column name.
    package let column: String
    /// The referenced entity, and the ordinal of the inverse that declares the rule (-1: none).
    package let parentIndex: Int
    package let inverseOrdinal: Int
    package let rule: DeleteRule

    package static func all(in schema: Schema) -> [ForeignKeyEdge] {
        var edges: [ForeignKeyEdge] = []
        for entity in schema.entities {
            for ordinal in entity.columnOrdinals where entity.relationship(at: ordinal) != nil {
                let parent = entity.destinationIndexByOrdinal[ordinal]
                guard parent >= 0 else { continue }
                edges.append(ForeignKeyEdge(
                    childIndex: entity.index, ordinal: ordinal, column: quote(entity.properties[ordinal].name),
                    parentIndex: parent, inverseOrdinal: entity.inverseOrdinalByOrdinal[ordinal],
                    rule: schema.deleteRule(ofToOneAt: ordinal, of: entity)))
            }
        }
        return edges
    }
}

extension Schema {
    /// What happens to the to-one at `ordinal` of `entity` when the row it
    /// points at goes: the delete rule of its inverse, or `.nullify`.
    package func deleteRule(ofToOneAt ordinal: Int, of entity: EntityDescription) -> DeleteRule {
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        let parent = entity.destinationIndexByOrdinal[ordinal]
        guard inverse >= 0, parent >= 0 else { return .nullify }
        return entities[parent].relationship(at: inverse)?.deleteRule ?? .nullify
    }
}

extension DeleteRule {
    /// The SQL foreign-key action that carries the rule out (`ON DELETE …`),
    /// or nil for `.noAction`, which declares none.
    package var foreignKeyAction: String? {
        switch self {
        case .nullify: "SET NULL"
        case .cascade: "CASCADE"
        case .deny: "RESTRICT"
        case .noAction: nil
        }
    }
}
