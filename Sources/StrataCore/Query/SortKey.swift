import Foundation

/// One key of a fetch request's order as a context applies it to its pending
/// objects: a key path, a direction, and how its stored values compare.
///
/// Stores order stored values (see ``SortTerm``), so an in-memory sort that
/// orders the same stored values the same way gives the same result: raw-value
/// enums by their raw value, decimals numerically, strings by the collation
/// their comparator asks for.
///
/// ```swift
/// let keys = try compiler.sortKeys([SortDescriptor(\Book.title)])
/// keys[0].collation   // .binary
/// ```
package struct SortKey {
    package let keyPath: AnyKeyPath
    package let ascending: Bool
    /// nil for keys that need no collation (numbers, dates).
    package let collation: Collation?

    /// Compares two objects by this key, as stores do.
    package func compare<T: PersistentModel>(_ lhs: T, _ rhs: T) -> ComparisonResult {
        let left = Self.storedValue(of: lhs, at: keyPath)
        let right = Self.storedValue(of: rhs, at: keyPath)
        let result = StoredValueOrder.compare(left, right, collation: collation ?? .binary)
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    private static func storedValue<T: PersistentModel>(of object: T, at keyPath: AnyKeyPath) -> StoredValue {
        guard let value = object[keyPath: keyPath] else { return .null }
        return (try? StrataCore.storedValue(forPredicateValue: value)) ?? .null
    }
}

extension Array where Element == SortKey {
    /// Sorts objects by these keys, ties kept in their original order.
    package func sort<T: PersistentModel>(_ objects: inout [T]) {
        guard !isEmpty else { return }
        let keyed = objects.enumerated().sorted { lhs, rhs in
            switch compare(lhs.element, rhs.element) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: lhs.offset < rhs.offset
            }
        }
        objects = keyed.map(\.element)
    }

    /// How two objects compare by these keys, the first that tells deciding.
    package func compare<T: PersistentModel>(_ lhs: T, _ rhs: T) -> ComparisonResult {
        for key in self {
            let order = key.compare(lhs, rhs)
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }
}

