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
/// conversion runs when the property is read, not when its object is
/// fetched, and returns nil for a stored form it cannot read (another program
/// wrote it, or the format changed): the accessor, which cannot throw, then
/// reports `.valueConversion` to the container's `logError` and returns the
/// property's initial value (or what the transformer reads from an empty
/// stored form). A stored value not even of the stored form's type fails the
/// fetch, as for any attribute.
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

/// The value a stored form holds, read by `T`; nil when it cannot be read.
/// Free functions rather than statics of a generic type, so that code not
/// specialized for `T` looks up no metadata of that type per call.
@inlinable
func transformedValue<T: AttributeTransformer>(_ stored: StoredValue, by transformer: T.Type) -> T.Value? {
    guard let form = T.Stored(storedValue: stored) else { return nil }
    return T().reverseTransformedValue(form)
}

/// The stored form `T` gives a value.
@inlinable
func storedForm<T: AttributeTransformer>(_ value: T.Value, by transformer: T.Type) -> StoredValue {
    T().transformedValue(value).storedValue
}

/// The stored form of a value given as `Any` (a batch row's, a predicate's
/// constant): `nil` is `NULL`; nil when it is not a `T.Value`.
func storedForm<T: AttributeTransformer>(any value: Any, by transformer: T.Type) -> StoredValue? {
    var value = value
    while let optional = value as? any PredicateOptionalValue {
        guard let wrapped = optional.predicateWrappedValue else { return .null }
        value = wrapped
    }
    return (value as? T.Value).map { storedForm($0, by: T.self) }
}

/// The value of an empty stored form (no bytes, zero, ""), if the transformer
/// reads one, else one made from nothing: what an unreadable value falls back to.
func transformedStandIn<T: AttributeTransformer>(by transformer: T.Type) -> T.Value? {
    standInValue(T.Stored.self).flatMap { T().reverseTransformedValue($0) } ?? standInValue(T.Value.self)
}

extension StoredValueReader {
    static func transformed<T: AttributeTransformer>(by transformer: T.Type) -> StoredValueReader {
        StoredValueReader(
            // A load checks only that the stored form reads as its type: the
            // transformer runs when the value is used, not for every row fetched.
            reads: { T.Stored(storedValue: $0) != nil },
            decode: { stored in transformedValue(stored, by: T.self).map { $0 as Any } }, isPlainValue: true,
            typeName: "\(T.Value.self) (through \(T.self))",
            standIn: { transformedStandIn(by: T.self).map { $0 as Any } },
            encode: { storedForm(any: $0, by: T.self) })
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
            defaultValue: defaultValue.map { storedForm($0, by: T.self) })
    }

    /// An optional attribute stored through a transformer (`nil` as `NULL`).
    public static func property<Root: PersistentModel, T: AttributeTransformer>(
        _ name: String, _ keyPath: KeyPath<Root, T.Value?>, transformer: T.Type,
        options: Set<AttributeOption> = [], originalName: String? = nil, defaultValue: T.Value?? = nil
    ) -> PropertyMetadata {
        PropertyMetadata(name: name, keyPath: keyPath, kind: .attribute(
            type: T.Stored.attributeType, isOptional: true, options: options.union([.transformable]), originalName: originalName),
            valueReader: .transformed(by: T.self),
            defaultValue: defaultValue.flatMap { $0 }.map { storedForm($0, by: T.self) })
    }
}

extension ModelBacking {
    @inlinable
    public func setInitialValue<T: AttributeTransformer>(_ value: T.Value, at ordinal: Int, as: T.Value.Type, by transformer: T.Type) {
        storeInitial(storedForm(value, by: T.self), at: ordinal)
    }

    @inlinable
    public func setInitialValue<T: AttributeTransformer>(_ value: T.Value?, at ordinal: Int, as: T.Value?.Type, by transformer: T.Type) {
        storeInitial(value.map { storedForm($0, by: T.self) } ?? .null, at: ordinal)
    }
}

extension PersistentModel {
    @inlinable
    public func persistentValue<T: AttributeTransformer>(at ordinal: Int, as: T.Value.Type, by transformer: T.Type) -> T.Value {
        transformedValue(storedValue(at: ordinal), by: T.self) ?? persistentBacking.unreadableValue(at: ordinal, as: T.Value.self)
    }

    @inlinable
    public func setPersistentValue<T: AttributeTransformer>(
        _ newValue: T.Value, at ordinal: Int, as: T.Value.Type, by transformer: T.Type
    ) {
        setStoredValue(storedForm(newValue, by: T.self), at: ordinal)
    }

    @inlinable
    public func persistentValue<T: AttributeTransformer>(at ordinal: Int, as: T.Value?.Type, by transformer: T.Type) -> T.Value? {
        let stored = storedValue(at: ordinal)
        if stored.isNull { return nil }
        return transformedValue(stored, by: T.self) ?? persistentBacking.unreadableOptional(at: ordinal, as: T.Value.self)
    }

    @inlinable
    public func setPersistentValue<T: AttributeTransformer>(
        _ newValue: T.Value?, at ordinal: Int, as: T.Value?.Type, by transformer: T.Type
    ) {
        setStoredValue(newValue.map { storedForm($0, by: T.self) } ?? .null, at: ordinal)
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
