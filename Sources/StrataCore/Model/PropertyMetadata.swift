import Foundation

/// One persistent property as a model type declares it.
///
/// `@Model` writes these for you in `schemaProperties`. Hand-written models list
/// them with the overloaded `property(_:_:…)` factories, which
/// pick the attribute or relationship kind from the property's type.
///
/// ```swift
/// static let schemaProperties: [PropertyMetadata] = [
///     .property("title", \Book.title),
///     .property("author", \Book.author, inverse: \Author.books),
/// ]
/// ```
public struct PropertyMetadata: @unchecked Sendable {
    // @unchecked: `AnyKeyPath` is an immutable value; the metatype is Sendable.

    /// The property's name.
    public let name: String
    /// The key path of the property on its model type.
    public let keyPath: AnyKeyPath
    /// What the property is.
    public let kind: Kind
    /// How the attribute's Swift type reads stored values (nil for
    /// relationships and for metadata made with the public initializer).
    package let valueReader: StoredValueReader?
    /// The stored form of the property's declared initial value (`var
    /// priority = 3`), which migration gives rows that predate the property.
    package let defaultValue: StoredValue?

    /// The two kinds of persistent property.
    public enum Kind: @unchecked Sendable {
        // @unchecked: payloads are immutable values and metatypes.
        case attribute(type: AttributeType, isOptional: Bool, options: Set<AttributeOption>, originalName: String?)
        case relationship(
            destination: any PersistentModel.Type, isToMany: Bool, deleteRule: DeleteRule,
            inverse: AnyKeyPath?, minimumModelCount: Int?, maximumModelCount: Int?, originalName: String?)
    }

    /// Creates property metadata directly.
    public init(name: String, keyPath: AnyKeyPath, kind: Kind) {
        self.init(name: name, keyPath: keyPath, kind: kind, valueReader: nil)
    }

    package init(
        name: String, keyPath: AnyKeyPath, kind: Kind, valueReader: StoredValueReader?, defaultValue: StoredValue? = nil
    ) {
        self.name = name
        self.keyPath = keyPath
        self.kind = kind
        self.valueReader = valueReader
        self.defaultValue = defaultValue
    }
}

// MARK: - Attributes

extension PropertyMetadata {
    /// An attribute stored directly (`String`, `Int`, `Date`, … and their optionals).
    ///
    /// `defaultValue` is the property's declared initial value (`@Model` passes
    /// it): migration gives it to rows stored before the property existed.
    public static func property<Root: PersistentModel, Value: PersistentValue>(
        _ name: String, _ keyPath: KeyPath<Root, Value>,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: Value? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: Value.attributeType, isOptional: Value.isOptionalValue, options: options, originalName: originalName),
            valueReader: .plain(Value.self),
            defaultValue: defaultValue.map(\.storedValue))
    }

    /// An optional attribute stored directly (preferred over JSON for `String?`, `Int?`, …).
    public static func property<Root: PersistentModel, Value: PersistentValue>(
        _ name: String, _ keyPath: KeyPath<Root, Value?>,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: Value?? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: Value.attributeType, isOptional: true, options: options, originalName: originalName),
            valueReader: .plain(Value.self),
            defaultValue: defaultValue.flatMap { $0 }.map(\.storedValue))
    }

    /// An attribute stored by its raw value.
    public static func property<Root: PersistentModel, Value: RawRepresentable>(
        _ name: String, _ keyPath: KeyPath<Root, Value>,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: Value? = nil
    ) -> PropertyMetadata where Value.RawValue: PersistentValue {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: Value.RawValue.attributeType, isOptional: false, options: options, originalName: originalName),
            valueReader: .raw(Value.self),
            defaultValue: defaultValue.map(\.rawValue.storedValue))
    }

    /// An optional attribute stored by its raw value.
    public static func property<Root: PersistentModel, Value: RawRepresentable>(
        _ name: String, _ keyPath: KeyPath<Root, Value?>,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: Value?? = nil
    ) -> PropertyMetadata where Value.RawValue: PersistentValue {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: Value.RawValue.attributeType, isOptional: true, options: options, originalName: originalName),
            valueReader: .raw(Value.self),
            defaultValue: defaultValue.flatMap { $0 }.map(\.rawValue.storedValue))
    }

    /// A `Codable` enum stored by its raw value (preferred over JSON).
    public static func property<Root: PersistentModel, Value: RawRepresentable & Codable>(
        _ name: String, _ keyPath: KeyPath<Root, Value>,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: Value? = nil
    ) -> PropertyMetadata where Value.RawValue: PersistentValue {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: Value.RawValue.attributeType, isOptional: false, options: options, originalName: originalName),
            valueReader: .raw(Value.self),
            defaultValue: defaultValue.map(\.rawValue.storedValue))
    }

    /// An optional `Codable` enum stored by its raw value.
    public static func property<Root: PersistentModel, Value: RawRepresentable & Codable>(
        _ name: String, _ keyPath: KeyPath<Root, Value?>,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: Value?? = nil
    ) -> PropertyMetadata where Value.RawValue: PersistentValue {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: Value.RawValue.attributeType, isOptional: true, options: options, originalName: originalName),
            valueReader: .raw(Value.self),
            defaultValue: defaultValue.flatMap { $0 }.map(\.rawValue.storedValue))
    }

    /// Any other `Codable` value, stored as JSON.
    public static func property<Root: PersistentModel, Value: Codable>(
        _ name: String, _ keyPath: KeyPath<Root, Value>,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: Value? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: .codable, isOptional: false, options: options, originalName: originalName),
            valueReader: .json(Value.self),
            defaultValue: defaultValue.flatMap { try? JSONValueCoding.storedText($0) })
    }

    /// An optional `Codable` value, stored as JSON (`nil` as SQL `NULL`).
    public static func property<Root: PersistentModel, Value: Codable>(
        _ name: String, _ keyPath: KeyPath<Root, Value?>,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: Value?? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: .codable, isOptional: true, options: options, originalName: originalName),
            valueReader: .json(Value.self),
            defaultValue: defaultValue.flatMap { $0 }.flatMap { try? JSONValueCoding.storedText($0) })
    }
}

// MARK: - Relationships

extension PropertyMetadata {
    /// A to-one relationship.
    public static func property<Root: PersistentModel, Destination: PersistentModel>(
        _ name: String, _ keyPath: KeyPath<Root, Destination?>,
        deleteRule: DeleteRule = .nullify, inverse: AnyKeyPath? = nil,
        minimumModelCount: Int? = nil, maximumModelCount: Int? = nil, originalName: String? = nil,
        defaultValue: Destination?? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .relationship(
            destination: Destination.self, isToMany: false, deleteRule: deleteRule, inverse: inverse,
            minimumModelCount: minimumModelCount, maximumModelCount: maximumModelCount, originalName: originalName))
    }

    /// A to-many relationship.
    public static func property<Root: PersistentModel, Destination: PersistentModel>(
        _ name: String, _ keyPath: KeyPath<Root, [Destination]>,
        deleteRule: DeleteRule = .nullify, inverse: AnyKeyPath? = nil,
        minimumModelCount: Int? = nil, maximumModelCount: Int? = nil, originalName: String? = nil,
        defaultValue: [Destination]? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .relationship(
            destination: Destination.self, isToMany: true, deleteRule: deleteRule, inverse: inverse,
            minimumModelCount: minimumModelCount, maximumModelCount: maximumModelCount, originalName: originalName))
    }
}
