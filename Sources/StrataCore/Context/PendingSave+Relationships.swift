extension PendingSave {
    /// Adds the to-many writes of this save to `request`.
    ///
    /// Only owners whose loaded to-many changed (or that are new) are written,
    /// with their members in the app's order. A one-to-many member that joined
    /// an owner whose relationship is not loaded is appended after the owner's
    /// stored members, which is where `loadToMany` showed it.
    func addRelationshipWrites(to request: inout SaveRequest) {
        guard schemaHasRelationships else { return }
        var written = Set<OwnerSlot>()
        for (objects, isNew) in [(inserted, true), (updated, false)] {
            for object in objects {
                let backing = object.persistentBacking
                guard let entity = backing.entity, !entity.relationshipOrdinals.isEmpty,
                      let owner = Self.reference(to: object) else { continue }
                for ordinal in entity.relationshipOrdinals where !entity.properties[ordinal].hasColumn {
                    guard isNew || backing.changedOrdinals.contains(ordinal), ordinal < backing.relations.count,
                          case .toMany(let members) = backing.relations[ordinal] else { continue }
                    let references = members.compactMap(Self.reference(to:))
                    if isNew, references.isEmpty { continue }
                    request.toManyWrites.append(ToManyWrite(
                        entityIndex: entity.index, ordinal: ordinal, owner: owner, members: references))
                    written.insert(OwnerSlot(object: ObjectIdentifier(object), ordinal: ordinal))
                }
            }
        }
        for (objects, isNew) in [(inserted, true), (updated, false)] {
            for object in objects {
                let backing = object.persistentBacking
                guard let entity = backing.entity, !entity.toOneColumnOrdinals.isEmpty,
                      let schema = backing.coordinator?.schema, let member = Self.reference(to: object) else { continue }
                for ordinal in entity.toOneColumnOrdinals {
                    let inverse = entity.inverseOrdinalByOrdinal[ordinal]
                    guard inverse >= 0, isNew || backing.changedOrdinals.contains(ordinal),
                          ordinal < backing.relations.count, case .toOne(let target?) = backing.relations[ordinal],
                          !schema.entities[entity.destinationIndexByOrdinal[ordinal]].properties[inverse].hasColumn,
                          !written.contains(OwnerSlot(object: ObjectIdentifier(target), ordinal: inverse)),
                          let owner = Self.reference(to: target) else { continue }
                    request.toManyAppends.append(ToManyAppend(
                        entityIndex: entity.destinationIndexByOrdinal[ordinal], ordinal: inverse, owner: owner, member: member))
                }
            }
        }
    }

    /// The row an object is saved as; nil for objects that are not (or no longer) stored.
    static func reference(to object: any PersistentModel) -> RowReference? {
        let backing = object.persistentBacking
        guard backing.state == .registered || backing.state == .inserted else { return nil }
        if let key = backing.primaryKey { return .stored(key) }
        return backing.temporaryKey.map { .pending($0) }
    }

    /// One relationship of one object.
    private struct OwnerSlot: Hashable {
        let object: ObjectIdentifier
        let ordinal: Int
    }
}
