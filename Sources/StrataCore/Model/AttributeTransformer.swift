import Foundation

/// Turns values of a type no store keeps into one it does, and back: what
/// `@Attribute(.transformable(by:))` stores a property through.
///
/// Use it for types that are neither ``PersistentValue``s nor `Codable` (a
/// class from another library, a type with its own binary form), or to store a
/// value in a form of your choosing (compressed, encrypted). The stored form is
/// any ``PersistentValue``, usually `Data`. Strata makes a transformer with
/// `init()` each time it converts a value, so keep it cheap to make (a struct).
///
/// Forward conversion cannot fail: every value has a stored form. Reverse
/// conversion returns nil for a stored form it cannot read (another program
/// wrote it, or the format changed); a fetch then fails with `.valueConversion`,
/// as for any unreadable value.
///
/// ```swift
/// struct Color { var red, green, blue: UInt8 }
///
/// struct ColorTransformer: AttributeTransformer {
///     func transformedValue(_ color: Color) -> Data { Data([color.red, color.green, color.blue]) }
///     func reverseTransformedValue(_ data: Data) -> Color? {
///         data.count == 3 ? Color(red: data[0], green: data[1], blue: data[2]) : nil
///     }
/// }
///
/// @Model final class Swatch {
///     @Attribute(.transformable(by: ColorTransformer.self)) var color: Color
///     @Attribute(.transformable(by: ColorTransformer.self)) var accent: Color?
///     init(color: Color) { self.color = color }
/// }
/// ```
///
/// On Apple platforms a Foundation `ValueTransformer` subclass whose
/// transformed values are `Data` works too: name it in `.transformable(by:)`.
public protocol AttributeTransformer: SendableMetatype {
    /// The property's type (without `Optional`).
    associatedtype Value
    /// The type the store keeps.
    associatedtype Stored: PersistentValue

    init()
    /// The stored form of a value.
    func transformedValue(_ value: Value) -> Stored
    /// The value a stored form holds, or nil when it cannot be read.
    func reverseTransformedValue(_ stored: Stored) -> Value?
}

extension AttributeOption {
    /// The attribute is stored through a transformer (see ``AttributeTransformer``).
    ///
    /// ```swift
    /// @Attribute(.transformable(by: ColorTransformer.self)) var color: Color
    /// ```
    public static func transformable<T: AttributeTransformer>(by transformer: T.Type) -> AttributeOption {
        .transformable
    }

    /// What the schema records of ``transformable(by:)``: the stored form's
    /// type is the attribute's; the transformer is the app's code, not the store's.
    public static let transformable = AttributeOption(rawValue: "transformable")
}

// MARK: - Reading and writing through a transformer

/// The conversions of one transformer, for code that holds values as `Any`.
enum TransformedValues<T: AttributeTransformer> {
    static func value(_ stored: StoredValue) -> T.Value? {
        T.Stored(storedValue: stored).flatMap { T().reverseTransformedValue($0) }
    }

    static func stored(_ value: T.Value) -> StoredValue {
        T().transformedValue(value).storedValue
    }

    /// The stored form of a value given as `Any` (a batch row's, a predicate's
    /// constant): `nil` is `NULL`; nil when it is not a `T.Value`.
    static func stored(any value: Any) -> StoredValue? {
        var value = value
        while let optional = value as? any PredicateOptionalValue {
            guard let wrapped = optional.predicateWrappedValue else { return .null }
            value = wrapped
        }
        return (value as? T.Value).map(stored)
    }

    /// The value of an empty stored form (no bytes, zero, ""), if the
    /// transformer reads one: what an unreadable value falls back to.
    static func standIn() -> T.Value? {
        standInValue(T.Stored.self).flatMap { T().reverseTransformedValue($0) } ?? standInValue(T.Value.self)
    }
}

extension StoredValueReader {
    static func transformed<T: AttributeTransformer>(by transformer: T.Type) -> StoredValueReader {
        StoredValueReader(
            reads: { TransformedValues<T>.value($0) != nil },
            decode: { stored in TransformedValues<T>.value(stored).map { $0 as Any } }, isPlainValue: false,
            typeName: "\(T.Value.self) (through \(T.self))",
            standIn: { TransformedValues<T>.standIn().map { $0 as Any } },
            encode: { TransformedValues<T>.stored(any: $0) })
    }
}

extension PropertyMetadata {
    /// An attribute stored through a transformer.
    public static func property<Root: PersistentModel, T: AttributeTransformer>(
        _ name: String, _ keyPath: KeyPath<Root, T.Value>, transformer: T.Type,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: T.Value? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: T.Stored.attributeType, isOptional: T.Stored.isOptionalValue,
            options: options.union([.transformable]), originalName: originalName),
            valueReader: .transformed(by: T.self),
            defaultValue: defaultValue.map(TransformedValues<T>.stored))
    }

    /// An optional attribute stored through a transformer (`nil` as `NULL`).
    public static func property<Root: PersistentModel, T: AttributeTransformer>(
        _ name: String, _ keyPath: KeyPath<Root, T.Value?>, transformer: T.Type,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: T.Value?? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: T.Stored.attributeType, isOptional: true, options: options.union([.transformable]), originalName: originalName),
            valueReader: .transformed(by: T.self),
            defaultValue: defaultValue.flatMap { $0 }.map(TransformedValues<T>.stored))
    }
}

extension ModelBacking {
    public func setInitialValue<T: AttributeTransformer>(_ value: T.Value, at ordinal: Int, as: T.Value.Type, by transformer: T.Type) {
        storeInitial(TransformedValues<T>.stored(value), at: ordinal)
    }

    public func setInitialValue<T: AttributeTransformer>(_ value: T.Value?, at ordinal: Int, as: T.Value?.Type, by transformer: T.Type) {
        storeInitial(value.map(TransformedValues<T>.stored) ?? .null, at: ordinal)
    }
}

extension PersistentModel {
    public func persistentValue<T: AttributeTransformer>(at ordinal: Int, as: T.Value.Type, by transformer: T.Type) -> T.Value {
        TransformedValues<T>.value(storedValue(at: ordinal)) ?? persistentBacking.unreadableValue(at: ordinal, as: T.Value.self)
    }

    public func setPersistentValue<T: AttributeTransformer>(
        _ newValue: T.Value, at ordinal: Int, as: T.Value.Type, by transformer: T.Type
    ) {
        setStoredValue(TransformedValues<T>.stored(newValue), at: ordinal)
    }

    public func persistentValue<T: AttributeTransformer>(at ordinal: Int, as: T.Value?.Type, by transformer: T.Type) -> T.Value? {
        let stored = storedValue(at: ordinal)
        if stored.isNull { return nil }
        return TransformedValues<T>.value(stored) ?? persistentBacking.unreadableOptional(at: ordinal, as: T.Value.self)
    }

    public func setPersistentValue<T: AttributeTransformer>(
        _ newValue: T.Value?, at ordinal: Int, as: T.Value?.Type, by transformer: T.Type
    ) {
        setStoredValue(newValue.map(TransformedValues<T>.stored) ?? .null, at: ordinal)
    }
}

// MARK: - Foundation's ValueTransformer

#if canImport(ObjectiveC)
/// A Foundation `ValueTransformer` subclass as an ``AttributeTransformer``: its
/// transformed values are stored as `Data` (a `nil` or non-`Data` result as
/// empty data, which reads back as the transformer makes of it).
public struct FoundationValueTransformer<Transformer: ValueTransformer, Value>: AttributeTransformer {
    private let transformer = Transformer()

    public init() {}

    public func transformedValue(_ value: Value) -> Data {
        transformer.transformedValue(value) as? Data ?? Data()
    }

    public func reverseTransformedValue(_ stored: Data) -> Value? {
        transformer.reverseTransformedValue(stored) as? Value
    }
}

extension AttributeOption {
    /// The attribute is stored through a Foundation `ValueTransformer` whose
    /// transformed values are `Data`.
    public static func transformable<T: ValueTransformer>(by transformer: T.Type) -> AttributeOption {
        .transformable
    }
}

extension PropertyMetadata {
    /// An attribute stored through a Foundation `ValueTransformer`.
    public static func property<Root: PersistentModel, T: ValueTransformer, Value>(
        _ name: String, _ keyPath: KeyPath<Root, Value>, transformer: T.Type,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: Value? = nil
    ) -> PropertyMetadata {
        property(
            name, keyPath, transformer: FoundationValueTransformer<T, Value>.self,
            options: options, originalName: originalName, defaultValue: defaultValue)
    }

    /// An optional attribute stored through a Foundation `ValueTransformer`.
    public static func property<Root: PersistentModel, T: ValueTransformer, Value>(
        _ name: String, _ keyPath: KeyPath<Root, Value?>, transformer: T.Type,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: Value?? = nil
    ) -> PropertyMetadata {
        property(
            name, keyPath, transformer: FoundationValueTransformer<T, Value>.self,
            options: options, originalName: originalName, defaultValue: defaultValue)
    }
}

extension ModelBacking {
    public func setInitialValue<T: ValueTransformer, Value>(_ value: Value, at ordinal: Int, as: Value.Type, by transformer: T.Type) {
        setInitialValue(value, at: ordinal, as: Value.self, by: FoundationValueTransformer<T, Value>.self)
    }

    public func setInitialValue<T: ValueTransformer, Value>(_ value: Value?, at ordinal: Int, as: Value?.Type, by transformer: T.Type) {
        setInitialValue(value, at: ordinal, as: Value?.self, by: FoundationValueTransformer<T, Value>.self)
    }
}

extension PersistentModel {
    public func persistentValue<T: ValueTransformer, Value>(at ordinal: Int, as: Value.Type, by transformer: T.Type) -> Value {
        persistentValue(at: ordinal, as: Value.self, by: FoundationValueTransformer<T, Value>.self)
    }

    public func setPersistentValue<T: ValueTransformer, Value>(
        _ newValue: Value, at ordinal: Int, as: Value.Type, by transformer: T.Type
    ) {
        setPersistentValue(newValue, at: ordinal, as: Value.self, by: FoundationValueTransformer<T, Value>.self)
    }

    public func persistentValue<T: ValueTransformer, Value>(at ordinal: Int, as: Value?.Type, by transformer: T.Type) -> Value? {
        persistentValue(at: ordinal, as: Value?.self, by: FoundationValueTransformer<T, Value>.self)
    }

    public func setPersistentValue<T: ValueTransformer, Value>(
        _ newValue: Value?, at ordinal: Int, as: Value?.Type, by transformer: T.Type
    ) {
        setPersistentValue(newValue, at: ordinal, as: Value?.self, by: FoundationValueTransformer<T, Value>.self)
    }
}
#endif
