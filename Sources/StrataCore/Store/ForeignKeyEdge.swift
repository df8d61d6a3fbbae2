/// A to-one relationship stored as a key, and what every store does to it
/// when the referenced row goes.
///
/// The action comes from the delete rule of the to-many (or to-one) inverse on
/// the referenced entity: `.cascade` deletes the row too, `.nullify` (and no
/// inverse) clears the key, `.deny` refuses the deletion while the row points
/// at it, `.noAction` does nothing (the key may dangle). SQLite stores declare
/// these as foreign-key actions (`ON DELETE CASCADE`, `SET NULL`, `RESTRICT`).
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

    package static func all(in schema: Schema) -> [ForeignKeyEdge] {
        var edges: [ForeignKeyEdge] = []
        for entity in schema.entities {
            for ordinal in entity.columnOrdinals where entity.relationship(at: ordinal) != nil {
                let parent = entity.destinationIndexByOrdinal[ordinal]
                guard parent >= 0 else { continue }
                edges.append(ForeignKeyEdge(
                    childIndex: entity.index, ordinal: ordinal, columnName: entity.properties[ordinal].name,
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

extension ForeignKeyEdge {
    /// The entities of `present` in the order a save deletes their rows: each
    /// after the entities its rows cascade to, else in the given order.
    ///
    /// `ON DELETE CASCADE` takes a deleted parent's children at once (SQLite)
    /// or when the statement ends (PostgreSQL), so deleting the parents first
    /// would leave fewer child rows than the save expects: its version check
    /// would fail and the save run again, checking first. Entities that
    /// cascade to each other in a cycle keep their order.
    ///
    /// ```swift
    /// ForeignKeyEdge.deletionOrder(of: [author, book], cascades: layout.cascadeEdges)  // [book, author]
    /// ```
    package static func deletionOrder(of present: [Int], cascades: [ForeignKeyEdge]) -> [Int] {
        let edges = cascades.filter {
            $0.childIndex != $0.parentIndex && present.contains($0.childIndex) && present.contains($0.parentIndex)
        }
        guard !edges.isEmpty else { return present }
        var remaining = present
        var order: [Int] = []
        while !remaining.isEmpty {
            let next = remaining.firstIndex { entity in
                !edges.contains { $0.parentIndex == entity && remaining.contains($0.childIndex) }
            }
            guard let next else { return order + remaining }
            order.append(remaining.remove(at: next))
        }
        return order
    }
}
