/// How a store keeps the members of a to-many relationship, whatever the store.
///
/// - One-to-many (the inverse is a to-one): each member's key column names its
///   owner, and a position beside it keeps the owner's order.
/// - Many-to-many and to-many without an inverse: pairs of owner and member in
///   a join, each with a position for each side. A many-to-many's two sides
///   share one join, named after its canonical side (the smaller
///   `Entity.relationship`), whose owner is the `source` of each pair.
package enum ToManyShape: Sendable, Hashable {
    case foreignKey(destinationIndex: Int, inverseOrdinal: Int)
    case join(JoinKey, ownerIsSource: Bool, destinationIndex: Int)

    package var destinationIndex: Int {
        switch self {
        case .foreignKey(let destination, _), .join(_, _, let destination): destination
        }
    }
}

/// A join's identity: its canonical side's entity and relationship ordinal.
package struct JoinKey: Sendable, Hashable {
    package var entityIndex: Int
    package var ordinal: Int
}

extension Schema {
    /// How the to-many relationship at `ordinal` of an entity is kept; nil for
    /// other properties.
    package func toManyShape(entityIndex: Int, ordinal: Int) -> ToManyShape? {
        let entity = entities[entityIndex]
        guard case .relationship(let relationship) = entity.properties[ordinal], relationship.isToMany else { return nil }
        let destinationIndex = entity.destinationIndexByOrdinal[ordinal]
        guard destinationIndex >= 0 else { return nil }
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        guard inverse >= 0 else {
            return .join(JoinKey(entityIndex: entityIndex, ordinal: ordinal), ownerIsSource: true, destinationIndex: destinationIndex)
        }
        let destination = entities[destinationIndex]
        guard case .relationship(let back) = destination.properties[inverse] else { return nil }
        if !back.isToMany {
            return .foreignKey(destinationIndex: destinationIndex, inverseOrdinal: inverse)
        }
        let isCanonical = (entity.name, relationship.name) <= (destination.name, back.name)
        let key = isCanonical
            ? JoinKey(entityIndex: entityIndex, ordinal: ordinal)
            : JoinKey(entityIndex: destinationIndex, ordinal: inverse)
        return .join(key, ownerIsSource: isCanonical, destinationIndex: destinationIndex)
    }

    /// The to-one columns whose inverse is an ordered one-to-many: the member's
    /// position among its owner's members goes with them.
    package func orderedToOneOrdinals(of entityIndex: Int) -> [Int] {
        let entity = entities[entityIndex]
        return entity.columnOrdinals.filter { ordinal in
            guard entity.relationship(at: ordinal) != nil else { return false }
            let owner = entity.destinationIndexByOrdinal[ordinal]
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            guard owner >= 0, inverse >= 0 else { return false }
            if case .foreignKey? = toManyShape(entityIndex: owner, ordinal: inverse) { return true }
            return false
        }
    }
}
