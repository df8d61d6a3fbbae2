import Foundation

/// An immutable, `Sendable` copy of an object's attributes and the IDs of its
/// related objects, for handing data to another isolation domain.
///
/// Read properties by key path, as on the object: attributes come back as their
/// Swift values, relationships as ``ObjectID``s.
///
/// ```swift
/// let snapshot = try await container.performBackgroundTask { context in
///     Snapshot(try context.existingObject(with: id, as: Book.self))
/// }
/// snapshot.title       // String
/// snapshot.author      // ObjectID?
/// ```
@dynamicMemberLookup
public struct Snapshot<Model: PersistentModel>: Sendable {
    /// The object's identity when the snapshot was taken.
    public let objectID: ObjectID
    /// The row version the values came from (0 for unsaved objects).
    public let version: Int64
    private let ordinals: [AnyKeyPathBox: Int]
    private let values: [StoredValue]
    private let related: [[ObjectID]]

    /// Copies an object's current values, including unsaved changes.
    public init(_ object: Model) {
        let backing = object.persistentBacking
        backing.willAccess()
        objectID = backing.objectID
        version = backing.version
        let properties = Model.schemaProperties
        ordinals = Dictionary(properties.enumerated().map { (AnyKeyPathBox($1.keyPath), $0) }, uniquingKeysWith: { a, _ in a })
        var values = Array(backing.values)
        if values.count < properties.count {
            values.append(contentsOf: repeatElement(.null, count: properties.count - values.count))
        }
        var related = Array(repeating: [ObjectID](), count: properties.count)
        for (ordinal, property) in properties.enumerated() {
            guard case .relationship(_, let isToMany, _, _, _, _, _) = property.kind else { continue }
            if isToMany {
                related[ordinal] = ObjectGraph.toMany(of: object, at: ordinal).map(\.objectID)
            } else if let target = ObjectGraph.toOne(of: object, at: ordinal) {
                related[ordinal] = [target.objectID]
            }
        }
        self.values = values
        self.related = related
    }

    private func ordinal(_ keyPath: AnyKeyPath) -> Int {
        guard let ordinal = ordinals[AnyKeyPathBox(keyPath)] else {
            preconditionFailure("Strata: \(keyPath) is not a persistent property of \(Model.entityName)")
        }
        return ordinal
    }

    private func stored(_ keyPath: AnyKeyPath) -> StoredValue {
        values[ordinal(keyPath)]
    }

    private func relatedIDs(_ keyPath: AnyKeyPath) -> [ObjectID] {
        related[ordinal(keyPath)]
    }

    /// What the object's accessor reads for a value it cannot read as `V` (one
    /// another program wrote, or a row that was gone): see
    /// ``ModelBacking/unreadableValue(at:as:)``. An optional reads `nil`.
    private func unreadable<V>(_ keyPath: AnyKeyPath, as type: V.Type) -> V {
        let property = Model.schemaProperties[ordinal(keyPath)]
        guard let value = fallbackValue(as: V.self, declared: property.defaultValue, reader: property.valueReader) else {
            preconditionFailure("Strata: the snapshot value of \(keyPath) cannot be read as \(type)")
        }
        return value
    }

    /// The value at `keyPath` read by `read`, or by the property's transformer
    /// when it has one; nil when it cannot be read (or, optional, is `nil`).
    private func read<V>(_ keyPath: AnyKeyPath, _ read: (StoredValue) -> V?) -> V? {
        let ordinal = ordinal(keyPath)
        let stored = values[ordinal]
        if let reader = Model.schemaProperties[ordinal].valueReader, reader.encode != nil {
            return stored.isNull ? nil : reader.decode(stored) as? V
        }
        return read(stored)
    }

    public subscript<V: PersistentValue>(dynamicMember keyPath: KeyPath<Model, V>) -> V {
        read(keyPath) { V(storedValue: $0) } ?? unreadable(keyPath, as: V.self)
    }

    public subscript<V: PersistentValue>(dynamicMember keyPath: KeyPath<Model, V?>) -> V? {
        read(keyPath) { $0.isNull ? nil : V(storedValue: $0) }
    }

    public subscript<V: RawRepresentable>(dynamicMember keyPath: KeyPath<Model, V>) -> V where V.RawValue: PersistentValue {
        read(keyPath) { V.RawValue(storedValue: $0).flatMap(V.init(rawValue:)) } ?? unreadable(keyPath, as: V.self)
    }

    public subscript<V: RawRepresentable>(dynamicMember keyPath: KeyPath<Model, V?>) -> V? where V.RawValue: PersistentValue {
        read(keyPath) { V.RawValue(storedValue: $0).flatMap(V.init(rawValue:)) }
    }

    public subscript<V: RawRepresentable & Codable>(dynamicMember keyPath: KeyPath<Model, V>) -> V
    where V.RawValue: PersistentValue {
        read(keyPath) { V.RawValue(storedValue: $0).flatMap(V.init(rawValue:)) } ?? unreadable(keyPath, as: V.self)
    }

    public subscript<V: RawRepresentable & Codable>(dynamicMember keyPath: KeyPath<Model, V?>) -> V?
    where V.RawValue: PersistentValue {
        read(keyPath) { V.RawValue(storedValue: $0).flatMap(V.init(rawValue:)) }
    }

    public subscript<V: Codable>(dynamicMember keyPath: KeyPath<Model, V>) -> V {
        read(keyPath) { JSONValueCoding.decodeStored($0, as: V.self) } ?? unreadable(keyPath, as: V.self)
    }

    public subscript<V: Codable>(dynamicMember keyPath: KeyPath<Model, V?>) -> V? {
        read(keyPath) { JSONValueCoding.decodeStored($0, as: V.self) }
    }

    /// An attribute of any other type: one stored through a transformer.
    public subscript<V>(dynamicMember keyPath: KeyPath<Model, V>) -> V {
        read(keyPath) { _ in nil } ?? unreadable(keyPath, as: V.self)
    }

    /// An optional attribute of any other type: one stored through a transformer.
    public subscript<V>(dynamicMember keyPath: KeyPath<Model, V?>) -> V? {
        read(keyPath) { _ in nil }
    }

    /// A to-one relationship, as the related object's ID.
    public subscript<D: PersistentModel>(dynamicMember keyPath: KeyPath<Model, D?>) -> ObjectID? {
        relatedIDs(keyPath).first
    }

    /// A to-many relationship, as the related objects' IDs in order.
    public subscript<D: PersistentModel>(dynamicMember keyPath: KeyPath<Model, [D]>) -> [ObjectID] {
        relatedIDs(keyPath)
    }
}

/// A key path as a `Sendable` dictionary key.
struct AnyKeyPathBox: Hashable, @unchecked Sendable {
    // @unchecked: key paths are immutable values.
    let keyPath: AnyKeyPath
    init(_ keyPath: AnyKeyPath) { self.keyPath = keyPath }
}

extension PersistentModel {
    /// An immutable, `Sendable` copy of the object's values and related IDs.
    public func snapshot() -> Snapshot<Self> {
        Snapshot(self)
    }
}

extension Snapshot: Equatable {
    /// Snapshots are equal when they copy the same object at the same values.
    public static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
        lhs.objectID == rhs.objectID && lhs.version == rhs.version && lhs.values == rhs.values && lhs.related == rhs.related
    }
}
