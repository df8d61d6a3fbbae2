import Foundation

/// Why stores cannot compare values of this Swift type with `<` the way Swift
/// does, or nil when they can.
///
/// Numbers, strings (compared by code point, as `String.<` does for
/// NFC-normalized text), dates and UUIDs order the same in stores and Swift;
/// decimals, stored as text, compare through the decimal collation (see
/// ``PredicateCompilation/ordering(of:in:)``). Enums are stored by raw value
/// and other `Codable` values as JSON, so stored order differs from their
/// `Comparable` order.
func storeOrderingProblem(for type: Any.Type) -> String? {
    let base = predicateBaseType(type)
    if base is any PersistentValue.Type {
        return nil
    }
    if base is any PersistentModel.Type {
        return "model objects have no order"
    }
    return "\(base) values are stored by raw value or as JSON, whose stored order differs from Swift's"
}
