import Foundation

/// One row of a projection fetch, read value by value in the order of
/// ``ModelProjection/projectedProperties``.
///
/// Each `next(as:)` moves the next value out of the store's row buffer and
/// converts it to the Swift type asked for, with the same rules as a model's
/// accessors (raw-value enums, `Codable` values as JSON, a to-one
/// relationship as the ``ObjectID`` it points to). A value that cannot be
/// read as that type fails the fetch with `.valueConversion`.
///
/// ```swift
/// init(from row: inout ProjectionRow) throws(StrataError) {
///     id = row.objectID
///     title = try row.next(as: String.self)
///     author = try row.next(as: ObjectID?.self)
/// }
/// ```
public struct ProjectionRow: ~Copyable {
    @usableFromInline let row: StoreValueRow
    // Unretained: the fetch that makes rows holds its layout until it ends,
    // and a row cannot outlive the call it is lent to (it cannot be copied).
    @usableFromInline unowned(unsafe) let layout: ProjectionLayout
    /// Set when the row comes from an object of the context rather than the
    /// store: its ID (maybe temporary) and the IDs its to-ones point to.
    @usableFromInline let objectValues: ObjectValues?
    @usableFromInline var position = 0

    @usableFromInline struct ObjectValues {
        let objectID: ObjectID
        /// By column: the object a to-one points to (nil for attributes and empty to-ones).
        let related: [ObjectID?]
    }

    package init(_ row: StoreValueRow, layout: ProjectionLayout) {
        self.row = row
        self.layout = layout
        self.objectValues = nil
    }

    package init(_ row: StoreValueRow, layout: ProjectionLayout, objectID: ObjectID, related: [ObjectID?]) {
        self.row = row
        self.layout = layout
        self.objectValues = ObjectValues(objectID: objectID, related: related)
    }

    /// The ID of the object the row holds.
    public var objectID: ObjectID {
        objectValues?.objectID ?? ObjectID(space: layout.space, primaryKey: row.primaryKey)
    }

    /// The next value, moved out of the row.
    @inlinable @inline(__always)
    mutating func take() throws(StrataError) -> StoredValue {
        guard position < row.values.count else { throw layout.readPastEnd() }
        defer { position += 1 }
        return row.take(position)
    }

    @inlinable
    public mutating func next<V: PersistentValue>(as type: V.Type) throws(StrataError) -> V {
        let stored = try take()
        guard let value = V(storedValue: stored) else { throw layout.unreadable(stored, column: position - 1, as: V.self) }
        return value
    }

    @inlinable
    public mutating func next<V: PersistentValue>(as type: V?.Type) throws(StrataError) -> V? {
        let stored = try take()
        if stored.isNull { return nil }
        guard let value = V(storedValue: stored) else { throw layout.unreadable(stored, column: position - 1, as: V.self) }
        return value
    }

    public mutating func next<V: RawRepresentable>(as type: V.Type) throws(StrataError) -> V where V.RawValue: PersistentValue {
        let stored = try take()
        guard let raw = V.RawValue(storedValue: stored), let value = V(rawValue: raw) else {
            throw layout.unreadable(stored, column: position - 1, as: V.self)
        }
        return value
    }

    public mutating func next<V: RawRepresentable>(as type: V?.Type) throws(StrataError) -> V? where V.RawValue: PersistentValue {
        let stored = try take()
        if stored.isNull { return nil }
        guard let raw = V.RawValue(storedValue: stored), let value = V(rawValue: raw) else {
            throw layout.unreadable(stored, column: position - 1, as: V.self)
        }
        return value
    }

    public mutating func next<V: RawRepresentable & Codable>(as type: V.Type) throws(StrataError) -> V
    where V.RawValue: PersistentValue {
        let stored = try take()
        guard let raw = V.RawValue(storedValue: stored), let value = V(rawValue: raw) else {
            throw layout.unreadable(stored, column: position - 1, as: V.self)
        }
        return value
    }

    public mutating func next<V: RawRepresentable & Codable>(as type: V?.Type) throws(StrataError) -> V?
    where V.RawValue: PersistentValue {
        let stored = try take()
        if stored.isNull { return nil }
        guard let raw = V.RawValue(storedValue: stored), let value = V(rawValue: raw) else {
            throw layout.unreadable(stored, column: position - 1, as: V.self)
        }
        return value
    }

    public mutating func next<V: Codable>(as type: V.Type) throws(StrataError) -> V {
        let stored = try take()
        guard let value = JSONValueCoding.decodeStored(stored, as: V.self) else {
            throw layout.unreadable(stored, column: position - 1, as: V.self)
        }
        return value
    }

    public mutating func next<V: Codable>(as type: V?.Type) throws(StrataError) -> V? {
        let stored = try take()
        if stored.isNull { return nil }
        guard let value = JSONValueCoding.decodeStored(stored, as: V.self) else {
            throw layout.unreadable(stored, column: position - 1, as: V.self)
        }
        return value
    }

    /// The object a to-one relationship points to, or nil.
    public mutating func next(as type: ObjectID?.Type) throws(StrataError) -> ObjectID? {
        let column = position
        let stored = try take()
        guard let destination = layout.destinations[column] else {
            throw layout.unreadable(stored, column: column, as: ObjectID.self)
        }
        if let objectValues { return objectValues.related[column] }
        switch stored {
        case .null: return nil
        case .integer(let key):
            return ObjectID(space: destination, primaryKey: key)
        default: throw layout.unreadable(stored, column: column, as: ObjectID.self)
        }
    }

    /// The object a required to-one relationship points to.
    public mutating func next(as type: ObjectID.Type) throws(StrataError) -> ObjectID {
        let column = position
        guard let id = try next(as: ObjectID?.self) else { throw layout.unreadable(.null, column: column, as: ObjectID.self) }
        return id
    }

    /// Sets the values the reader did not take back to `.null`, as the
    /// store's buffer expects before its next row.
    package mutating func releaseUntaken() {
        while position < row.values.count {
            _ = row.take(position)
            position += 1
        }
    }

    /// The next value as a partial result holds it: a stored attribute value,
    /// or the object a to-one points to.
    package mutating func nextPartialValue() throws(StrataError) -> PartialValue {
        guard position < layout.destinations.count, layout.destinations[position] != nil else { return .stored(try take()) }
        return try next(as: ObjectID?.self).map(PartialValue.object) ?? .stored(.null)
    }
}

/// What a projection fetch knows of its columns, made once per fetch.
@usableFromInline package final class ProjectionLayout: Sendable {
    let entityName: String
    /// The rows' ID space.
    let space: ObjectIDSpace
    /// By column: the property's name.
    let names: [String]
    /// By column: the ID space of a to-one's destination, nil for an attribute.
    let destinations: [ObjectIDSpace?]

    package init(entity: EntityDescription, ordinals: [Int], schema: Schema, storeIdentifier: String) {
        entityName = entity.name
        space = .named(entity: entity.name, store: storeIdentifier)
        names = ordinals.map { entity.properties[$0].name }
        destinations = ordinals.map { ordinal in
            guard entity.relationship(at: ordinal) != nil else { return nil }
            return .named(entity: schema.entities[entity.destinationIndexByOrdinal[ordinal]].name, store: storeIdentifier)
        }
    }

    @usableFromInline func unreadable<V>(_ stored: StoredValue, column: Int, as type: V.Type) -> StrataError {
        let name = column < names.count ? names[column] : "?"
        return StrataError(
            .valueConversion, "\(entityName).\(name) holds \(stored), which cannot be read as \(V.self)",
            entityName: entityName, propertyName: name)
    }

    @usableFromInline func readPastEnd() -> StrataError {
        StrataError(
            .unsupportedPredicate,
            "A projection of \(entityName) read more values than it lists in projectedProperties (\(names.count))",
            entityName: entityName)
    }
}
