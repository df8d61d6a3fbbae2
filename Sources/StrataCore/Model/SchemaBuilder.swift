/// Turns model types into validated entity descriptions.
struct SchemaBuilder {
    let types: [any PersistentModel.Type]
    private var problems: [StrataError] = []

    init(types: [any PersistentModel.Type]) {
        self.types = types
    }

    /// Names must be plain identifiers; names starting with `_` and the name `pk`
    /// are reserved for Strata's own columns and tables.
    static func isValidIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    static let reservedPropertyNames: Set<String> = ["pk"]

    mutating func build() -> (entities: [EntityDescription], problems: [StrataError]) {
        let metadata = types.map { $0.schemaProperties }
        let names = types.map { $0.entityName }
        var indexByType: [ObjectIdentifier: Int] = [:]
        var seenNames: Set<String> = []
        for (index, type) in types.enumerated() {
            let name = names[index]
            if !Self.isValidIdentifier(name) {
                fail(name, nil, "entity name '\(name)' must start with a letter and hold only letters, digits and underscores")
            }
            if !seenNames.insert(name.lowercased()).inserted {
                fail(name, nil, "entity name '\(name)' is used twice")
            }
            if indexByType.updateValue(index, forKey: ObjectIdentifier(type)) != nil {
                fail(name, nil, "the model type \(name) is listed twice")
            }
        }
        if types.isEmpty {
            problems.append(StrataError(.invalidSchema, "the schema has no entities"))
        }

        // Properties of each entity.
        var properties: [[PropertyDescription]] = []
        for (index, list) in metadata.enumerated() {
            let entity = names[index]
            var seen: Set<String> = []
            var descriptions: [PropertyDescription] = []
            for property in list {
                if !Self.isValidIdentifier(property.name) || Self.reservedPropertyNames.contains(property.name.lowercased()) {
                    fail(entity, property.name, "property name '\(property.name)' is reserved or not a plain identifier")
                }
                if !seen.insert(property.name.lowercased()).inserted {
                    fail(entity, property.name, "property '\(property.name)' is declared twice")
                }
                switch property.kind {
                case let .attribute(type, isOptional, options, originalName):
                    if !isOptional, let reader = property.valueReader, !Self.hasFallback(property, reader) {
                        let remedy = options.contains(.transformable)
                            ? "have the transformer read an empty stored form" : "make the type CaseIterable"
                        fail(entity, property.name,
                             "has nothing to read in place of a stored value it cannot read (one another program "
                                 + "wrote), as Strata cannot make a \(reader.typeName) from nothing; give the property "
                                 + "an initial value, declare it optional, or \(remedy)")
                    }
                    descriptions.append(.attribute(AttributeDescription(
                        name: property.name, type: type, isOptional: isOptional,
                        options: options, originalName: originalName)))
                case let .relationship(destination, isToMany, deleteRule, _, minimum, maximum, originalName):
                    if indexByType[ObjectIdentifier(destination)] == nil {
                        fail(entity, property.name,
                             "the type \(destination.entityName) is not an entity of this schema; add it to the schema")
                    }
                    descriptions.append(.relationship(RelationshipDescription(
                        name: property.name, destinationEntityName: destination.entityName, isToMany: isToMany,
                        deleteRule: deleteRule, inverseName: nil, minimumModelCount: minimum,
                        maximumModelCount: maximum, originalName: originalName)))
                }
            }
            properties.append(descriptions)
        }

        // Inverses: explicit ones first, then inferred where exactly one candidate exists.
        var inverse = metadata.map { Array(repeating: -1, count: $0.count) }
        var destinationIndex = metadata.map { Array(repeating: -1, count: $0.count) }
        for (entityIndex, list) in metadata.enumerated() {
            for (ordinal, property) in list.enumerated() {
                guard case let .relationship(destination, _, _, inverseKeyPath, _, _, _) = property.kind,
                      let target = indexByType[ObjectIdentifier(destination)] else { continue }
                destinationIndex[entityIndex][ordinal] = target
                guard let inverseKeyPath else { continue }
                guard let inverseOrdinal = metadata[target].firstIndex(where: { $0.keyPath == inverseKeyPath }),
                      case let .relationship(back, _, _, _, _, _, _) = metadata[target][inverseOrdinal].kind,
                      ObjectIdentifier(back) == ObjectIdentifier(types[entityIndex]) else {
                    fail(names[entityIndex], property.name,
                         "its inverse is not a relationship of \(names[target]) that points back to \(names[entityIndex])")
                    continue
                }
                link(&inverse, entityIndex, ordinal, target, inverseOrdinal, names, metadata)
            }
        }
        for (entityIndex, list) in metadata.enumerated() {
            for (ordinal, property) in list.enumerated() where inverse[entityIndex][ordinal] == -1 {
                guard case .relationship = property.kind else { continue }
                let target = destinationIndex[entityIndex][ordinal]
                guard target >= 0 else { continue }
                let candidates = metadata[target].indices.filter { candidate in
                    guard inverse[target][candidate] == -1,
                          !(target == entityIndex && candidate == ordinal),
                          case let .relationship(back, _, _, _, _, _, _) = metadata[target][candidate].kind else {
                        return false
                    }
                    return ObjectIdentifier(back) == ObjectIdentifier(types[entityIndex])
                }
                let mirrored = metadata[entityIndex].indices.filter { other in
                    guard inverse[entityIndex][other] == -1,
                          case let .relationship(dest, _, _, _, _, _, _) = metadata[entityIndex][other].kind else {
                        return false
                    }
                    return ObjectIdentifier(dest) == ObjectIdentifier(types[target])
                }
                if candidates.count == 1, mirrored.count == 1 {
                    link(&inverse, entityIndex, ordinal, target, candidates[0], names, metadata)
                }
            }
        }

        // Stored shapes: to-one (with or without inverse), one-to-many (foreign key
        // plus position column), many-to-many and to-many without an inverse
        // (join tables; see RelationshipLayout).
        for (entityIndex, list) in properties.enumerated() {
            for (ordinal, property) in list.enumerated() {
                guard case .relationship(var relationship) = property else { continue }
                let inverseOrdinal = inverse[entityIndex][ordinal]
                let target = destinationIndex[entityIndex][ordinal]
                if inverseOrdinal >= 0, target >= 0 {
                    let inverseProperty = metadata[target][inverseOrdinal]
                    relationship.inverseName = inverseProperty.name
                    if relationship.isToMany, target == entityIndex, inverseOrdinal == ordinal {
                        fail(names[entityIndex], relationship.name,
                             "a to-many relationship cannot be its own inverse; declare a second relationship as the inverse")
                    }
                }
                if let minimum = relationship.minimumModelCount, let maximum = relationship.maximumModelCount, minimum > maximum {
                    fail(names[entityIndex], relationship.name, "minimumModelCount is larger than maximumModelCount")
                }
                properties[entityIndex][ordinal] = .relationship(relationship)
            }
        }

        // Constraints and indexes must name attributes or to-one relationships;
        // an index may also name a string attribute's folded form (`title.folded`).
        for (index, type) in types.enumerated() {
            for group in type.uniquenessConstraints + type.indexes {
                if group.isEmpty { fail(names[index], nil, "a #Unique or #Index lists no properties") }
            }
            for group in type.uniquenessConstraints {
                for name in group where !properties[index].contains(where: { $0.name == name && $0.hasColumn }) {
                    fail(names[index], name, "#Unique names '\(name)', which is not a stored attribute")
                }
            }
            for group in type.indexes {
                for name in group {
                    if let attribute = IndexKey(name).foldedAttribute {
                        guard properties[index].contains(where: { property in
                            if case .attribute(let stored) = property, stored.name == attribute, stored.type == .string { true } else { false }
                        }) else {
                            fail(names[index], name, "#Index names '\(name)', but only a String attribute has a folded form")
                            continue
                        }
                    } else if !properties[index].contains(where: { $0.name == name && $0.hasColumn }) {
                        fail(names[index], name, "#Index names '\(name)', which is not a stored attribute")
                    }
                }
            }
        }

        let entities = types.enumerated().map { index, type in
            EntityDescription(
                name: names[index], properties: properties[index], metadata: metadata[index],
                uniquenessConstraints: type.uniquenessConstraints, indexes: type.indexes, modelType: type,
                index: index, destinationIndexByOrdinal: destinationIndex[index],
                inverseOrdinalByOrdinal: inverse[index])
        }
        checkGeneratedNames(entities)
        return (entities, problems)
    }

    /// Stores name the indexes and join tables they make after an entity and
    /// its properties joined by underscores (`Entity_a_b`); two different
    /// groups may not join to the same name, or the store could not hold both.
    private mutating func checkGeneratedNames(_ entities: [EntityDescription]) {
        var seen: [String: String] = [:]
        for entity in entities {
            var groups: [(kind: String, names: [String])] = []
            for property in entity.properties {
                switch property {
                case .attribute(let attribute) where attribute.isUnique: groups.append(("unique", [attribute.name]))
                case .relationship(let relationship) where !relationship.isToMany: groups.append(("key", [relationship.name]))
                case .relationship(let relationship): groups.append(("join", [relationship.name]))
                default: break
                }
            }
            groups += entity.uniquenessConstraints.map { ("unique", $0) } + entity.indexes.map { ("index", $0) }
            for group in groups {
                let name = ([entity.name] + group.names).joined(separator: "_")
                let owner = "\(group.kind) \(entity.name)(\(group.names.joined(separator: ", ")))"
                if let other = seen["\(group.kind) \(name)"], other != owner {
                    fail(entity.name, group.names.first,
                         "the \(owner) and the \(other) would share the stored name \(name); rename one of them")
                } else {
                    seen["\(group.kind) \(name)"] = owner
                }
            }
        }
    }

    private mutating func link(
        _ inverse: inout [[Int]], _ entity: Int, _ ordinal: Int, _ target: Int, _ targetOrdinal: Int,
        _ names: [String], _ metadata: [[PropertyMetadata]]
    ) {
        let existing = inverse[target][targetOrdinal]
        if existing >= 0, existing != ordinal {
            fail(names[entity], metadata[entity][ordinal].name,
                 "\(names[target]).\(metadata[target][targetOrdinal].name) is already the inverse of another relationship")
            return
        }
        if let current = Optional(inverse[entity][ordinal]), current >= 0, current != targetOrdinal {
            fail(names[entity], metadata[entity][ordinal].name, "the relationship has two different inverses")
            return
        }
        inverse[entity][ordinal] = targetOrdinal
        inverse[target][targetOrdinal] = ordinal
    }

    /// Whether an accessor, which cannot throw, has a value to return for a
    /// stored value it cannot read: the declared initial value, else one made
    /// from nothing (see `ModelBacking.unreadableValue(at:as:)`).
    private static func hasFallback(_ property: PropertyMetadata, _ reader: StoredValueReader) -> Bool {
        if let declared = property.defaultValue, reader.decode(declared) != nil { return true }
        return reader.hasStandIn
    }

    private mutating func fail(_ entity: String, _ property: String?, _ message: String) {
        let place = property.map { "\(entity).\($0)" } ?? entity
        problems.append(StrataError(.invalidSchema, "\(place): \(message)", entityName: entity, propertyName: property))
    }
}

/// One entry of an `#Index`: a stored property's name, or `name.folded` for
/// the folded form of a string attribute (``Swift/String/folded``).
///
/// ```swift
/// IndexKey("title.folded").foldedAttribute   // "title"
/// IndexKey("year").foldedAttribute           // nil
/// ```
package struct IndexKey {
    package let name: String

    package init(_ name: String) { self.name = name }

    /// The attribute whose folded form the entry indexes, or nil for a plain property.
    package var foldedAttribute: String? {
        name.hasSuffix(".folded") ? String(name.dropLast(".folded".count)) : nil
    }
}
