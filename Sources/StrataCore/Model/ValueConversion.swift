import Foundation

/// Converts a value captured by a predicate to the ``StoredValue`` its column holds,
/// the same way attributes are stored, so a bound value compares equal to the
/// stored one.
///
/// - `PersistentValue` types use their `storedValue` (`Bool` → 0/1, `Date` →
///   seconds since 2001, `UUID` → its string, …); `nil` becomes `.null`.
/// - `RawRepresentable` types whose raw value is a `PersistentValue` use the raw value.
/// - A model object or an ``ObjectID`` becomes its row's primary key; it throws
///   when the object was never saved (no row can match it).
/// - Any other `Encodable` value becomes JSON text with sorted keys (meaningful
///   for equality only).
///
/// ```swift
/// try storedValue(forPredicateValue: Date(timeIntervalSinceReferenceDate: 10))  // .real(10)
/// try storedValue(forPredicateValue: Optional<Int>.none)               // .null
/// ```
package func storedValue(forPredicateValue value: Any) throws(StrataError) -> StoredValue {
    // The commonest types first: a cast to a concrete type compares type
    // metadata, where a cast to an existential searches conformances (most of
    // a batch insert's time, one value at a time). Each gives what its
    // `PersistentValue` conformance gives; a wrapped optional unwraps as below.
    if let number = value as? Int { return number.storedValue }
    if let text = value as? String { return text.storedValue }
    if let number = value as? Double { return number.storedValue }
    if let date = value as? Date { return date.storedValue }
    if let flag = value as? Bool { return flag.storedValue }
    // Optionals first: `Optional<Enum>` is neither a PersistentValue nor RawRepresentable.
    if let optional = value as? any PredicateOptionalValue {
        guard let wrapped = optional.predicateWrappedValue else { return .null }
        return try storedValue(forPredicateValue: wrapped)
    }
    // Above `Int64.max` no stored integer equals it; as a real number it
    // still compares above every stored one.
    if let number = value as? UInt64, number > UInt64(Int64.max) { return .real(Double(number)) }
    if let number = value as? UInt, number > UInt(Int64.max) { return .real(Double(number)) }
    if let persistent = value as? any PersistentValue {
        return persistent.storedValue
    }
    if let model = value as? any PersistentModel {
        return .integer(try primaryKey(of: model.objectID, entityName: type(of: model).entityName))
    }
    if let objectID = value as? ObjectID {
        return .integer(try primaryKey(of: objectID, entityName: objectID.entityName))
    }
    if let raw = value as? any RawRepresentable {
        let rawValue = predicateRawValue(of: raw)
        if let persistent = rawValue as? any PersistentValue {
            return persistent.storedValue
        }
        throw StrataError(
            .unsupportedPredicate,
            "the raw value type \(type(of: rawValue)) of \(type(of: value)) cannot be stored, so it cannot be compared in a predicate")
    }
    if let encodable = value as? any Encodable {
        return try predicateJSON(encodable)
    }
    throw StrataError(
        .unsupportedPredicate, "a value of type \(type(of: value)) cannot be compared with stored values")
}

/// The primary key of a saved object; unsaved objects have no row to compare with.
func primaryKey(of objectID: ObjectID, entityName: String) throws(StrataError) -> Int64 {
    guard let key = objectID.primaryKey else {
        throw StrataError(
            .unsupportedPredicate,
            "a predicate compares with an unsaved \(entityName) object; save it first",
            entityName: entityName, objectIDs: [objectID])
    }
    return key
}

private func predicateRawValue<R: RawRepresentable>(of value: R) -> Any {
    value.rawValue
}

/// JSON text with sorted keys: the same encoding `ModelBacking` uses for `Codable` attributes.
private func predicateJSON<E: Encodable>(_ value: E) throws(StrataError) -> StoredValue {
    do {
        return try JSONValueCoding.storedText(value)
    } catch {
        throw StrataError(
            .unsupportedPredicate, "a predicate value of type \(E.self) cannot be encoded as JSON",
            underlyingError: error)
    }
}

// MARK: - Optionals seen through `Any`

/// Lets code holding an `Any` (or a metatype) see through `Optional`.
protocol PredicateOptionalValue {
    var predicateWrappedValue: Any? { get }
    static var predicateWrappedType: Any.Type { get }
}

extension Optional: PredicateOptionalValue {
    var predicateWrappedValue: Any? { self.map { $0 as Any } }
    static var predicateWrappedType: Any.Type { Wrapped.self }
}

/// The type with every level of `Optional` removed.
func predicateBaseType(_ type: Any.Type) -> Any.Type {
    if let optional = type as? any PredicateOptionalValue.Type {
        return predicateBaseType(optional.predicateWrappedType)
    }
    return type
}

/// Whether values of this type are `nil`-able in Swift.
func isPredicateOptional(_ type: Any.Type) -> Bool {
    type is any PredicateOptionalValue.Type
}
