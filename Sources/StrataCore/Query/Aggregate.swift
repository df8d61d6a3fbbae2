import Foundation

/// One value computed from a fetch request's matches: a count, a sum, the
/// smallest or largest value, an average. A store computes it in one
/// statement; typed by the attribute it reads.
///
/// ```swift
/// let request = FetchRequest<Book>(predicate: #Predicate { $0.year >= 1900 })
/// let books = try context.aggregate(.count, of: request)                    // Int
/// let pages = try context.aggregate(.sum(\.pages), of: request)             // Int
/// let first = try context.aggregate(.min(\.year), of: request)              // Int?
/// let name = try context.aggregate(.max(\.author?.name), of: request)      // String?
/// let mean = try context.aggregate(.average(\.rating), of: request)         // Double?
/// ```
///
/// NULLs (`nil` values) are skipped, as in SQL and Core Data. A sum of no
/// values is zero; the minimum, maximum and average of no values are `nil`.
/// An integer sum that overflows its type fails with `.unsupportedPredicate`.
public struct Aggregate<Model: PersistentModel, Value> {
    let function: AggregateFunction
    let keyPath: AnyKeyPath?
    /// Reads the result from the store's value and from values of unsaved objects.
    let read: (Model) -> StoredValue
    let decode: (StoredValue) throws(StrataError) -> Value
}

extension Aggregate where Value == Int {
    /// How many objects match.
    public static var count: Aggregate {
        Aggregate(function: .count, keyPath: nil, read: { _ in .null }, decode: { value throws(StrataError) in
            try decodeInteger(value, Int.self, function: "count")
        })
    }

    /// How many different values the matches hold, `nil` not counted.
    public static func count<V: PersistentValue>(distinct keyPath: KeyPath<Model, V>) -> Aggregate {
        Aggregate(function: .countDistinct, keyPath: keyPath, read: { $0[keyPath: keyPath].storedValue },
                  decode: { value throws(StrataError) in try decodeInteger(value, Int.self, function: "count") })
    }
}

extension Aggregate where Value: PersistentValue & AdditiveArithmetic {
    /// The sum of an attribute over the matches; zero when none match.
    public static func sum(_ keyPath: KeyPath<Model, Value>) -> Aggregate {
        Aggregate(function: .sum, keyPath: keyPath, read: { $0[keyPath: keyPath].storedValue }, decode: { value throws(StrataError) in
            if value.isNull { return .zero }
            guard let result = Value(storedValue: value) else { throw CheckedArithmetic.overflow }
            return result
        })
    }
}

extension Aggregate {
    /// The smallest value of an attribute (also through to-one relationships);
    /// `nil` when no match has one.
    public static func min<V: PersistentValue & Comparable>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, V?> {
        extreme(.minimum, keyPath)
    }

    /// The smallest value of an optional attribute, or one reached through an optional to-one.
    public static func min<V: PersistentValue & Comparable>(_ keyPath: KeyPath<Model, V?>) -> Aggregate<Model, V?> {
        extreme(.minimum, keyPath)
    }

    /// The largest value of an attribute (also through to-one relationships);
    /// `nil` when no match has one.
    public static func max<V: PersistentValue & Comparable>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, V?> {
        extreme(.maximum, keyPath)
    }

    /// The largest value of an optional attribute, or one reached through an optional to-one.
    public static func max<V: PersistentValue & Comparable>(_ keyPath: KeyPath<Model, V?>) -> Aggregate<Model, V?> {
        extreme(.maximum, keyPath)
    }

    /// The mean of a numeric attribute over the matches that have one; `nil` when none do.
    public static func average<V: PersistentValue & Numeric>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, Double?> {
        Aggregate<Model, Double?>(function: .average, keyPath: keyPath, read: { $0[keyPath: keyPath].storedValue }, decode: decodeAverage)
    }

    /// The mean of an optional numeric attribute over the matches that have one.
    public static func average<V: PersistentValue & Numeric>(_ keyPath: KeyPath<Model, V?>) -> Aggregate<Model, Double?> {
        Aggregate<Model, Double?>(function: .average, keyPath: keyPath, read: { $0[keyPath: keyPath].storedValue }, decode: decodeAverage)
    }

    private static func extreme<Stored: PersistentValue, V>(
        _ function: AggregateFunction, _ keyPath: KeyPath<Model, Stored>
    ) -> Aggregate<Model, V?> {
        Aggregate<Model, V?>(function: function, keyPath: keyPath, read: { $0[keyPath: keyPath].storedValue }, decode: { value throws(StrataError) in
            if value.isNull { return nil }
            guard let result = (V.self as? any PersistentValue.Type)?.init(storedValue: value) as? V else {
                throw StrataError(.valueConversion, "The \(function.rawValue) of \(keyPath) could not be read as \(V.self)")
            }
            return result
        })
    }

}

private func decodeAverage(_ value: StoredValue) throws(StrataError) -> Double? {
    switch value {
    case .null: nil
    case .integer(let number): Double(number)
    case .real(let number): number
    default: throw StrataError(.valueConversion, "An average could not be read as a number")
    }
}

private func decodeInteger<I: FixedWidthInteger>(_ value: StoredValue, _ type: I.Type, function: String) throws(StrataError) -> I {
    guard case .integer(let number) = value, let result = I(exactly: number) else {
        throw StrataError(.valueConversion, "The \(function) could not be read as \(I.self)")
    }
    return result
}
