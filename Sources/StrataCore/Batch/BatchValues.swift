/// Turns the Swift values of batch requests into checked ``StoredValue``s for
/// one entity: names must be attributes or to-one relationships, values must
/// convert the way the model stores them, and required attributes must be given.
///
/// Error messages name the entity and property, never the values.
struct BatchValues {
    let entity: EntityDescription
    let schema: Schema
    let storeIdentifier: String
    /// What each column's values must be, in column order: read once per
    /// request instead of copying a property description per value.
    private let columns: [ColumnRule]
    /// By column: why a batch may not set it (one side of a one-to-one), apart
    /// from the rules so that those copy no reference.
    private let refusals: [StrataError?]
    /// Properties without a column (to-many relationships), which no batch row may set.
    let ordinalsWithoutColumn: [Int]

    private struct ColumnRule {
        let ordinal: Int
        /// The attribute's type; nil for a to-one relationship.
        let attributeType: AttributeType?
        let isOptional: Bool
        /// Whether a batch may not set this property (see ``refusals``).
        let isRefused: Bool
        /// Whether the attribute is stored through a transformer, which a
        /// value converted as it was set bypassed.
        let isTransformed: Bool
    }

    init(entity: EntityDescription, schema: Schema, storeIdentifier: String) {
        self.entity = entity
        self.schema = schema
        self.storeIdentifier = storeIdentifier
        var columns: [ColumnRule] = []
        var refusals: [StrataError?] = []
        columns.reserveCapacity(entity.columnOrdinals.count)
        for ordinal in entity.columnOrdinals {
            let attribute = entity.attribute(at: ordinal)
            var refusal: StrataError?
            if attribute == nil, schema.isOneToOne(entity, ordinal: ordinal) {
                refusal = StrataError(
                    .validation,
                    "\(entity.name).\(entity.properties[ordinal].name) is one side of a one-to-one relationship, whose "
                        + "other side a batch operation cannot keep in step; set it through a context; nothing was written",
                    entityName: entity.name, propertyName: entity.properties[ordinal].name)
            }
            columns.append(ColumnRule(
                ordinal: ordinal, attributeType: attribute?.type, isOptional: attribute?.isOptional ?? true,
                isRefused: refusal != nil, isTransformed: entity.valueReaders[ordinal]?.encode != nil))
            refusals.append(refusal)
        }
        self.columns = columns
        self.refusals = refusals
        let withColumn = Set(entity.columnOrdinals)
        ordinalsWithoutColumn = entity.properties.indices.filter { !withColumn.contains($0) }
    }

    /// The ordinal of a property a batch insert may set.
    func ordinal(named name: String, allowsRelationships: Bool = true) throws(StrataError) -> Int {
        guard let ordinal = entity.ordinalByName[name] else {
            throw StrataError(
                .validation, "\(entity.name) has no persistent property named \(name); nothing was written",
                entityName: entity.name, propertyName: name)
        }
        if let relationship = entity.relationship(at: ordinal) {
            guard allowsRelationships, !relationship.isToMany else {
                let kind = relationship.isToMany ? "a to-many relationship" : "a relationship"
                let allowed = allowsRelationships ? "attributes and to-one relationships" : "attributes only"
                throw StrataError(
                    .validation,
                    "\(entity.name).\(name) is \(kind); this batch operation sets \(allowed); nothing was written",
                    entityName: entity.name, propertyName: name)
            }
            // Each side of a one-to-one keeps its own key, which a context keeps
            // in step and a batch, writing one table, cannot.
            let column = entity.columnIndexByOrdinal[ordinal]
            if column >= 0, let refusal = refusals[column] { throw refusal }
        }
        return ordinal
    }

    /// The ordinal of a property named by a key path of the model.
    func ordinal(for keyPath: AnyKeyPath) throws(StrataError) -> Int {
        guard let ordinal = entity.ordinal(for: keyPath) else {
            throw StrataError(
                .validation, "A key path of \(entity.name) does not name a persistent property; nothing was written",
                entityName: entity.name)
        }
        return try self.ordinal(named: entity.properties[ordinal].name)
    }

    /// One property's value as stored, checked against the schema.
    func storedValue(_ value: Any, ordinal: Int) throws(StrataError) -> StoredValue {
        switch entity.properties[ordinal] {
        case .attribute(let attribute):
            let stored: StoredValue
            do {
                if let encode = entity.valueReaders[ordinal]?.encode {
                    // A transformer's value, stored in its transformed form.
                    guard let transformed = encode(value) else {
                        throw StrataError(.validation, "expects a value of the type its transformer reads")
                    }
                    stored = transformed
                } else {
                    stored = try StrataCore.storedValue(forPredicateValue: value)
                }
            } catch {
                throw failure(attribute.name, "a value of type \(type(of: value)) cannot be stored", underlying: error)
            }
            return try checked(
                stored, of: type(of: value), ordinal: ordinal, attributeType: attribute.type, isOptional: attribute.isOptional)
        case .relationship(let relationship):
            return try foreignKey(value, relationship: relationship, ordinal: ordinal)
        }
    }

    /// A converted value in the storage class of the column of the attribute at `ordinal`.
    private func checked(
        _ stored: StoredValue, of type: Any.Type, ordinal: Int, attributeType: AttributeType, isOptional: Bool
    ) throws(StrataError) -> StoredValue {
        // The property's name is read only for an error: copying its description per value costs.
        if stored.isNull {
            guard isOptional else { throw failure(entity.properties[ordinal].name, "a value is required, not nil") }
            return .null
        }
        guard let conformed = Self.conform(stored, to: attributeType) else {
            if attributeType.isWideUnsigned, !WideUnsigned.fits(stored) {
                throw failure(entity.properties[ordinal].name, WideUnsigned.refusal)
            }
            throw failure(
                entity.properties[ordinal].name,
                "a value of type \(type) does not fit \(withArticle("\(attributeType)")) attribute")
        }
        return conformed
    }

    /// A value a typed key path converted as it was set, checked against its column's rule.
    private func checked(_ stored: StoredValue, of type: any PersistentValue.Type, rule: ColumnRule) throws(StrataError) -> StoredValue {
        guard let attributeType = rule.attributeType else {
            throw failure(
                entity.properties[rule.ordinal].name,
                "expects an ObjectID or a saved \(entity.relationship(at: rule.ordinal)?.destinationEntityName ?? "object")")
        }
        return try checked(stored, of: type, ordinal: rule.ordinal, attributeType: attributeType, isOptional: rule.isOptional)
    }

    /// A to-one relationship's value: an ``ObjectID`` or a saved model object of
    /// the destination entity in this store, or nil.
    private func foreignKey(
        _ value: Any, relationship: RelationshipDescription, ordinal: Int
    ) throws(StrataError) -> StoredValue {
        var value = value
        while let optional = value as? any PredicateOptionalValue {
            guard let wrapped = optional.predicateWrappedValue else { return .null }
            value = wrapped
        }
        let id: ObjectID
        if let objectID = value as? ObjectID {
            id = objectID
        } else if let model = value as? any PersistentModel {
            id = model.objectID
        } else {
            throw failure(relationship.name, "expects an ObjectID or a saved \(relationship.destinationEntityName)")
        }
        let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
        guard id.entityName == destination.name else {
            throw failure(relationship.name, "expects \(withArticle(destination.name)), not \(withArticle(id.entityName))", objectIDs: [id])
        }
        guard let key = id.primaryKey, id.storeIdentifier == storeIdentifier else {
            throw failure(relationship.name, "refers to an object that is not saved in this store", objectIDs: [id])
        }
        return .integer(key)
    }

    /// A full row in column order from the slots of a row being filled,
    /// leaving every column's slot unset; `given` gets the column indices set.
    /// Missing optional properties are NULL; missing required attributes throw.
    func takeRow(_ slots: inout [BatchSlot], given: inout OrdinalSet) throws(StrataError) -> [StoredValue] {
        var row: [StoredValue] = []
        row.reserveCapacity(columns.count)
        try slots.withUnsafeMutableBufferPointer { (slots) throws(StrataError) in
            for column in columns.indices {
                let rule = columns[column]
                // Moved out, leaving the slot unset: no copy of the value, no pass to clear.
                let slot = (slots.baseAddress! + rule.ordinal).move()
                (slots.baseAddress! + rule.ordinal).initialize(to: .unset)
                switch consume slot {
                case .unset:
                    if rule.attributeType != nil, !rule.isOptional {
                        throw failure(entity.properties[rule.ordinal].name, "a value is required but none was given")
                    }
                    row.append(.null)
                    continue
                case .stored(let stored, let type):
                    if rule.isRefused, let refusal = refusals[column] { throw refusal }
                    if rule.isTransformed, let value = type.init(storedValue: stored) {
                        // The value itself, for its transformer.
                        row.append(try storedValue(value, ordinal: rule.ordinal))
                    } else {
                        row.append(try checked(stored, of: type, rule: rule))
                    }
                case .given(let value):
                    if rule.isRefused, let refusal = refusals[column] { throw refusal }
                    row.append(try storedValue(value, ordinal: rule.ordinal))
                }
                given.insert(column)
            }
        }
        return row
    }

    /// The value in the storage class of the attribute's column, or nil when it does not fit.
    static func conform(_ value: StoredValue, to type: AttributeType) -> StoredValue? {
        switch (type.storageKind, value) {
        case (.integer, .integer(let integer)):
            guard let range = integerRange(type) else { return value }
            return range.contains(integer) ? value : nil
        case (.real, .real), (.text, .text), (.blob, .blob):
            return value
        case (.real, .integer(let integer)):
            return .real(Double(integer))
        default:
            return nil
        }
    }

    private static func integerRange(_ type: AttributeType) -> ClosedRange<Int64>? {
        switch type {
        case .bool: 0...1
        case .int8: Int64(Int8.min)...Int64(Int8.max)
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        case .uint8: 0...Int64(UInt8.max)
        case .uint16: 0...Int64(UInt16.max)
        case .uint32: 0...Int64(UInt32.max)
        case .uint, .uint64: 0...Int64.max
        default: nil
        }
    }

    private func failure(
        _ property: String, _ problem: String, underlying: (any Error & Sendable)? = nil, objectIDs: [ObjectID] = []
    ) -> StrataError {
        StrataError(
            .validation, "\(entity.name).\(property): \(problem); nothing was written",
            entityName: entity.name, propertyName: property, objectIDs: objectIDs, underlyingError: underlying)
    }
}

extension Schema {
    /// Whether the relationship at `ordinal` is one side of a one-to-one.
    package func isOneToOne(_ entity: EntityDescription, ordinal: Int) -> Bool {
        guard let relationship = entity.relationship(at: ordinal), !relationship.isToMany else { return false }
        let inverse = entity.inverseOrdinalByOrdinal[ordinal]
        guard inverse >= 0, let other = entities[entity.destinationIndexByOrdinal[ordinal]].relationship(at: inverse) else {
            return false
        }
        return !other.isToMany
    }

    /// The columns (indices into `columnOrdinals`) a batch upsert writes when
    /// it writes a whole row: all but the keys of one-to-one relationships,
    /// which it cannot set and must not clear.
    package func batchColumns(of entity: EntityDescription) -> [Int] {
        entity.columnOrdinals.indices.filter { !isOneToOne(entity, ordinal: entity.columnOrdinals[$0]) }
    }
}
