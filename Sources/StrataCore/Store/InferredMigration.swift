/// What an inferred (lightweight) migration step does to move rows stored
/// with one schema to the next, worked out from the two schemas alone before
/// any row moves, and every reason it cannot be inferred.
///
/// It is the same for every store: which stored entity and property each new
/// property takes its values from, through which lossless conversion, or
/// which value rows that predate it get. A store carries it out in its own
/// terms (the SQLite store rebuilds the tables that changed).
///
/// ```swift
/// let step = InferredMigration(from: storedSummary, to: schema)
/// guard step.problems.isEmpty else { throw … }   // every entity and property at fault
/// step.entities[0].columns                        // where each new column comes from
/// ```
package struct InferredMigration: Sendable {
    /// Where a new column's values come from.
    package enum ColumnSource: Sendable, Equatable {
        /// The stored column of this name, converted.
        case column(String, Conversion, whenNull: StoredValue?)
        /// The same value for every row (a declared default).
        case value(StoredValue)
        /// No value.
        case null
        /// The other key of the stored pair whose `rowIsSource` column is the
        /// row's key, from the pairs kept under `entity.relationship`: a to-many
        /// that becomes a to-one. The store fails the step when a row has more
        /// than one pair (it would drop all but one).
        case pairedKey(entity: String, relationship: String, rowIsSource: Bool)
    }

    /// A lossless change of stored type.
    package enum Conversion: Sendable, Equatable {
        case none
        /// An integer becomes a real number.
        case toReal
        /// A number, or text that already is text, becomes text.
        case toText
        /// `true` or `false`.
        case boolToText
        /// JSON text of a whole number becomes that integer: a `UInt` or
        /// `UInt64` kept as JSON before they were stored as integers. The
        /// store fails the step when a row's text is not such a number or
        /// exceeds `Int64.max`.
        case jsonToInteger
    }

    /// Why a `.jsonToInteger` conversion fails for the rows `keys` name.
    package static func notWholeNumbers(_ entity: String, _ property: String, keys: [Int64]) -> StrataError {
        StrataError(
            .migrationFailed,
            "\(entity).\(property) becomes an unsigned integer, but rows with keys "
                + keys.map(String.init).joined(separator: ", ")
                + " hold no whole number from 0 to 9223372036854775807; nothing was migrated",
            entityName: entity, propertyName: property)
    }

    /// One entity of the new schema.
    package struct EntityStep: Sendable {
        package let entityIndex: Int
        /// The stored entity whose rows it takes; nil for a new entity.
        package let source: String?
        /// By new ordinal, for every property stored in a column.
        package let columns: [Int: ColumnSource]
        /// The stored name of each to-one relationship the new schema keeps,
        /// by new ordinal (for the position columns that go with them).
        package let toOneSources: [Int: String]
    }

    /// A to-many relationship of the new schema kept in a join table, and
    /// where its pairs come from.
    package struct JoinStep: Sendable {
        /// The canonical side (whose entity and relationship name the table).
        package let ownerEntity: Int
        package let ordinal: Int
        package enum Source: Sendable, Equatable {
            /// Stored pairs, kept under the canonical side `entity.relationship`
            /// of the stored schema; `swapped` when that side is the other one now.
            case pairs(entity: String, relationship: String, swapped: Bool)
            /// A stored one-to-many: the member entity's to-one relationship.
            case foreignKey(memberEntity: String, toOne: String)
            /// A stored to-one of the owner itself, now to-many: each owner's one member.
            case ownerToOne(String)
            /// New: no pairs.
            case none
        }
        package let source: Source
    }

    package let entities: [EntityStep]
    package let joins: [JoinStep]
    /// Stored entities the new schema does not have.
    package let removedEntities: [String]
    /// Why the step cannot be inferred, one entry per entity or property at fault.
    package let problems: [String]

    /// `replacesEverything`: whether a step may drop every stored entity
    /// (a stage whose code carries the data across); without it, a schema
    /// that shares no entity with the store is refused.
    package init(from stored: SchemaSummary, to schema: Schema, replacesEverything: Bool = false) {
        var problems: [String] = []
        let old = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var entities: [EntityStep] = []
        var joins: [JoinStep] = []
        for entity in schema.entities {
            guard let before = old[entity.name] else {
                let columns = Dictionary(uniqueKeysWithValues: entity.columnOrdinals.map { ($0, ColumnSource.null) })
                entities.append(EntityStep(entityIndex: entity.index, source: nil, columns: columns, toOneSources: [:]))
                continue
            }
            var columns: [Int: ColumnSource] = [:]
            var toOneSources: [Int: String] = [:]
            for ordinal in entity.columnOrdinals {
                let property = entity.properties[ordinal]
                let was = Self.storedProperty(for: property, in: before)
                switch property {
                case .attribute(let attribute):
                    columns[ordinal] = Self.attributeSource(
                        attribute, was: was, default: entity.defaultValues[ordinal], entity: entity.name, &problems)
                case .relationship(let relationship):
                    switch was {
                    case .relationship(let stored)? where !stored.isToMany:
                        if stored.destinationEntityName != relationship.destinationEntityName {
                            problems.append("\(entity.name).\(relationship.name) now leads to \(relationship.destinationEntityName), not \(stored.destinationEntityName)")
                        }
                        columns[ordinal] = .column(stored.name, .none, whenNull: nil)
                        toOneSources[ordinal] = stored.name
                    case .relationship(let stored)?:
                        if let source = Self.pairedKey(for: stored, of: before, old: old) {
                            columns[ordinal] = source
                        } else {
                            problems.append("\(entity.name).\(relationship.name) was the to-many side of a one-to-many relationship and is now to-one, which could drop members")
                            columns[ordinal] = .null
                        }
                    case .attribute?:
                        problems.append("\(entity.name).\(relationship.name) was an attribute and is now a relationship")
                        columns[ordinal] = .null
                    case nil:
                        // A new to-one whose owner's to-many kept its pairs without an inverse.
                        columns[ordinal] = Self.pairsOfNewInverse(entity, ordinal, schema: schema, old: old) ?? .null
                    }
                }
            }
            entities.append(EntityStep(entityIndex: entity.index, source: before.name, columns: columns, toOneSources: toOneSources))
        }
        for entity in schema.entities {
            for (ordinal, property) in entity.properties.enumerated() {
                guard case .relationship(let relationship) = property, relationship.isToMany,
                      case .join(_, let ownerIsSource, let destinationIndex)? = schema.toManyShape(entityIndex: entity.index, ordinal: ordinal),
                      ownerIsSource else { continue }
                joins.append(JoinStep(
                    ownerEntity: entity.index, ordinal: ordinal,
                    source: Self.joinSource(entity, ordinal, destination: schema.entities[destinationIndex], schema: schema, old: old, &problems)))
            }
            // A to-many that was kept in a join table and is now one-to-many could drop pairs.
            for (ordinal, property) in entity.properties.enumerated() {
                guard case .relationship(let relationship) = property, relationship.isToMany,
                      case .foreignKey? = schema.toManyShape(entityIndex: entity.index, ordinal: ordinal),
                      let before = old[entity.name],
                      case .relationship(let stored)? = Self.storedProperty(for: property, in: before), stored.isToMany,
                      Self.storedInverse(of: stored, owner: before, old: old)?.isToMany != false else { continue }
                // The members' new to-one takes the pairs (see `pairedKey`), unless it cannot.
                let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
                let inverse = entity.inverseOrdinalByOrdinal[ordinal]
                let taken = entities.first { $0.entityIndex == destination.index }?.columns[inverse]
                if case .pairedKey? = taken { continue }
                problems.append("\(entity.name).\(relationship.name) was many-to-many and is now one-to-many, which could drop pairs")
            }
        }
        // A store that shares no entity with the schema is another model
        // entirely: inferring would drop all of it.
        let shared = schema.entities.contains { old[$0.name] != nil }
        if !shared, !replacesEverything, !stored.entities.isEmpty, !schema.entities.isEmpty {
            problems.append(
                "the stored schema shares no entity with this one ("
                    + SchemaDifference.between(stored: stored, current: schema.summary).map(\.description).joined(separator: "; ")
                    + "), so migrating would drop every stored row")
        }
        self.entities = entities
        self.joins = joins
        self.removedEntities = stored.entities.map(\.name).filter { schema.entity(named: $0) == nil }.sorted()
        self.problems = problems
    }

    /// The stored property a new one continues: same name, or its `originalName`.
    static func storedProperty(for property: PropertyDescription, in entity: EntitySummary) -> PropertyDescription? {
        if let same = entity.properties.first(where: { $0.name == property.name }) { return same }
        let original: String? = switch property {
        case .attribute(let attribute): attribute.originalName
        case .relationship(let relationship): relationship.originalName
        }
        guard let original else { return nil }
        return entity.properties.first { $0.name == original }
    }

    private static func attributeSource(
        _ attribute: AttributeDescription, was: PropertyDescription?, default value: StoredValue?, entity: String,
        _ problems: inout [String]
    ) -> ColumnSource {
        let name = "\(entity).\(attribute.name)"
        guard case .attribute(let stored)? = was else {
            if case .relationship? = was { problems.append("\(name) was a relationship and is now an attribute") }
            if attribute.isOptional { return value.map(ColumnSource.value) ?? .null }
            guard let value else {
                problems.append("\(name) is new and required but declares no default value for the rows already stored")
                return .null
            }
            return .value(value)
        }
        guard let conversion = conversion(from: stored.type, to: attribute.type) else {
            problems.append("\(name) changes from \(stored.type.rawValue) to \(attribute.type.rawValue), which could lose values")
            return .null
        }
        var whenNull: StoredValue?
        if stored.isOptional, !attribute.isOptional {
            guard let value else {
                problems.append("\(name) becomes required but declares no default value for rows that have none")
                return .null
            }
            whenNull = value
        }
        return .column(stored.name, conversion, whenNull: whenNull)
    }

    /// Lossless changes of stored type, or nil.
    static func conversion(from old: AttributeType, to new: AttributeType) -> Conversion? {
        if old == new { return Conversion.none }
        let integerWidth: [AttributeType: (bits: Int, signed: Bool)] = [
            .int8: (8, true), .int16: (16, true), .int32: (32, true), .int64: (64, true), .int: (64, true),
            .uint8: (8, false), .uint16: (16, false), .uint32: (32, false), .uint: (64, false), .uint64: (64, false),
        ]
        if let from = integerWidth[old], let to = integerWidth[new] {
            let fits = from.signed ? (to.signed && to.bits >= from.bits) : (to.bits > from.bits || (!to.signed && to.bits >= from.bits))
            return fits ? Conversion.none : nil
        }
        if integerWidth[old] != nil, new == .double { return .toReal }
        if old == .codable, new.isWideUnsigned { return .jsonToInteger }
        if old == .float, new == .double { return Conversion.none }
        if new == .string {
            switch old {
            case .uuid, .url, .decimal: return Conversion.none
            case .bool: return .boolToText
            case .int8, .int16, .int32, .int64, .int, .uint8, .uint16, .uint32, .uint, .uint64, .double, .float: return .toText
            default: return nil
            }
        }
        return nil
    }

    /// Where a to-one takes its value from the pairs of the stored to-many it
    /// continues (`stored`, on the same entity): a many-to-many, or a to-many
    /// without an inverse. Nil for the to-many side of a one-to-many.
    private static func pairedKey(
        for stored: RelationshipDescription, of entity: EntitySummary, old: [String: EntitySummary]
    ) -> ColumnSource? {
        guard let inverse = storedInverse(of: stored, owner: entity, old: old) else {
            return .pairedKey(entity: entity.name, relationship: stored.name, rowIsSource: true)
        }
        guard inverse.isToMany else { return nil }
        let rowIsSource = (entity.name, stored.name) <= (stored.destinationEntityName, inverse.name)
        return rowIsSource
            ? .pairedKey(entity: entity.name, relationship: stored.name, rowIsSource: true)
            : .pairedKey(entity: stored.destinationEntityName, relationship: inverse.name, rowIsSource: false)
    }

    /// A new to-one's values when its inverse to-many kept its pairs in a join
    /// table of its own (it had no inverse before).
    private static func pairsOfNewInverse(
        _ entity: EntityDescription, _ ordinal: Int, schema: Schema, old: [String: EntitySummary]
    ) -> ColumnSource? {
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        let ownerIndex = entity.destinationIndexByOrdinal[ordinal]
        guard inverse >= 0, ownerIndex >= 0 else { return nil }
        let owner = schema.entities[ownerIndex]
        guard let storedOwner = old[owner.name],
              case .relationship(let stored)? = storedProperty(for: owner.properties[inverse], in: storedOwner),
              stored.isToMany, stored.destinationEntityName == entity.name,
              storedInverse(of: stored, owner: storedOwner, old: old) == nil else { return nil }
        return .pairedKey(entity: owner.name, relationship: stored.name, rowIsSource: false)
    }

    /// The inverse a stored relationship had: the one it named, the one that
    /// named it, or the only one pointing back.
    private static func storedInverse(
        of relationship: RelationshipDescription, owner: EntitySummary, old: [String: EntitySummary]
    ) -> RelationshipDescription? {
        guard let destination = old[relationship.destinationEntityName] else { return nil }
        let back = destination.properties.compactMap { property -> RelationshipDescription? in
            if case .relationship(let other) = property, other.destinationEntityName == owner.name { return other }
            return nil
        }
        if let named = relationship.inverseName { return back.first { $0.name == named } }
        if let pointing = back.first(where: { $0.inverseName == relationship.name }) { return pointing }
        return back.count == 1 && back[0].inverseName == nil ? back[0] : nil
    }

    /// Where the pairs of a new join table come from.
    private static func joinSource(
        _ owner: EntityDescription, _ ordinal: Int, destination: EntityDescription, schema: Schema,
        old: [String: EntitySummary], _ problems: inout [String]
    ) -> JoinStep.Source {
        guard let storedOwner = old[owner.name],
              case .relationship(let stored)? = storedProperty(for: owner.properties[ordinal], in: storedOwner),
              stored.destinationEntityName == destination.name else { return .none }
        if !stored.isToMany { return .ownerToOne(stored.name) }
        guard let storedInverse = storedInverse(of: stored, owner: storedOwner, old: old) else {
            return .pairs(entity: owner.name, relationship: stored.name, swapped: false)
        }
        if !storedInverse.isToMany {
            // One-to-many before: the pairs are the member's to-one column.
            return .foreignKey(memberEntity: destination.name, toOne: storedInverse.name)
        }
        // Stored pairs were kept under the side whose `Entity.relationship` sorted first.
        let ownerWasCanonical = (owner.name, stored.name) <= (destination.name, storedInverse.name)
        return ownerWasCanonical
            ? .pairs(entity: owner.name, relationship: stored.name, swapped: false)
            : .pairs(entity: destination.name, relationship: storedInverse.name, swapped: true)
    }
}
