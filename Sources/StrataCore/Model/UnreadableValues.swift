import Foundation

// Values a read cannot turn into its property's type: what an accessor, which
// cannot throw, reports and returns instead.

extension ModelBacking {
    /// What a property accessor, which cannot throw, returns for a stored
    /// value it cannot read as `V`.
    ///
    /// Fetches check every row they load and throw `.valueConversion`, so an
    /// accessor meets such a value only when a fault fired inside it (a
    /// relationship followed, a batched fetch read on). The error is reported
    /// to the context's `logError` and the log, and the accessor returns the
    /// property's declared initial value (`var status: Status = .draft`), else
    /// a value made from nothing: the type's empty value (zero, `false`, `""`,
    /// an empty collection, empty data, the reference date, the nil UUID,
    /// `about:blank`), an enum's first case, or a `Codable` struct of such
    /// values (``standInValue(_:)``). A schema refuses a non-optional property
    /// whose type has none of these and no initial value, so only metadata
    /// written by hand without a reader can reach the stop below. Nothing is
    /// written back unless the property is assigned.
    @usableFromInline package func unreadableValue<V>(at ordinal: Int, as type: V.Type) -> V {
        let error = unreadableValueError(at: ordinal, as: V.self)
        coordinator?.reportUnthrown(error)
        let entity = entity
        if let value = fallbackValue(
            as: V.self, declared: entity.flatMap { ordinal < $0.defaultValues.count ? $0.defaultValues[ordinal] : nil },
            reader: entity.flatMap { ordinal < $0.valueReaders.count ? $0.valueReaders[ordinal] : nil }) {
            return value
        }
        preconditionFailure("Strata: \(error.message)")
    }

    /// ``unreadableValue(at:as:)`` for an optional property: reported, and read as `nil`.
    @usableFromInline package func unreadableOptional<V>(at ordinal: Int, as type: V.Type) -> V? {
        coordinator?.reportUnthrown(unreadableValueError(at: ordinal, as: V.self))
        return nil
    }

    private func unreadableValueError(at ordinal: Int, as type: Any.Type) -> StrataError {
        let values = values
        let value = ordinal < values.count ? values[ordinal] : .null
        return StrataError(
            .valueConversion,
            "\(propertyName(at: ordinal)) of \(objectID) holds \(value.kindDescription) \(value), which cannot be read as \(type)",
            entityName: entity?.name, propertyName: entity.map { $0.properties[ordinal].name }, objectIDs: [objectID])
    }
}

/// A value an accessor can return for a stored value it cannot read (see
/// ``ModelBacking/unreadableValue(at:as:)``): the type's zero or empty value.
package protocol EmptyPersistentValue {
    static var emptyValue: Self { get }
}

/// What a read that cannot throw returns for a stored value it cannot read as
/// `V`: the property's declared initial value (`declared`, read by `reader`),
/// else the type's stand-in (``standInValue(_:)``); nil when `V` has neither,
/// which a validated schema rules out for non-optional properties.
package func fallbackValue<V>(as type: V.Type, declared: StoredValue?, reader: StoredValueReader?) -> V? {
    if let declared, let value = reader?.decode(declared) as? V { return value }
    if let reader { return reader.standIn() as? V }
    return standInValue(V.self)
}

extension Bool: EmptyPersistentValue { package static var emptyValue: Bool { false } }
extension Int: EmptyPersistentValue { package static var emptyValue: Int { 0 } }
extension Int8: EmptyPersistentValue { package static var emptyValue: Int8 { 0 } }
extension Int16: EmptyPersistentValue { package static var emptyValue: Int16 { 0 } }
extension Int32: EmptyPersistentValue { package static var emptyValue: Int32 { 0 } }
extension Int64: EmptyPersistentValue { package static var emptyValue: Int64 { 0 } }
extension UInt8: EmptyPersistentValue { package static var emptyValue: UInt8 { 0 } }
extension UInt16: EmptyPersistentValue { package static var emptyValue: UInt16 { 0 } }
extension UInt32: EmptyPersistentValue { package static var emptyValue: UInt32 { 0 } }
extension UInt: EmptyPersistentValue { package static var emptyValue: UInt { 0 } }
extension UInt64: EmptyPersistentValue { package static var emptyValue: UInt64 { 0 } }
extension Double: EmptyPersistentValue { package static var emptyValue: Double { 0 } }
extension Float: EmptyPersistentValue { package static var emptyValue: Float { 0 } }
extension String: EmptyPersistentValue { package static var emptyValue: String { "" } }
extension Data: EmptyPersistentValue { package static var emptyValue: Data { Data() } }
extension Date: EmptyPersistentValue { package static var emptyValue: Date { Date(timeIntervalSinceReferenceDate: 0) } }
extension UUID: EmptyPersistentValue { package static var emptyValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) } }
extension URL: EmptyPersistentValue { package static var emptyValue: URL { URL(string: "about:blank")! } }
extension Decimal: EmptyPersistentValue { package static var emptyValue: Decimal { 0 } }
extension Array: EmptyPersistentValue { package static var emptyValue: Array { [] } }
extension Set: EmptyPersistentValue { package static var emptyValue: Set { [] } }
extension Dictionary: EmptyPersistentValue { package static var emptyValue: Dictionary { [:] } }
