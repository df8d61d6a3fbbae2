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
    /// The quoted column name (SQLite).
    let column: String
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
                let inverse = entity.inverseOrdinalByOrdinal[ordinal]
                let rule = (inverse >= 0 ? schema.entities[parent].relationship(at: inverse)?.deleteRule : nil) ?? .nullify
                edges.append(ForeignKeyEdge(
                    childIndex: entity.index, ordinal: ordinal, column: quote(entity.properties[ordinal].name),
                    parentIndex: parent, inverseOrdinal: inverse, rule: rule))
            }
        }
        return edges
    }
}
