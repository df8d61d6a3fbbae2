/// One row of a ``BatchInsertRequest`` being filled by its handler: set
/// properties by key path or by name.
///
/// ```swift
/// row[\.title] = "Dune"      // typed: the value must be the property's type
/// row[\.author] = author     // a saved object (or use row["author"] = authorID)
/// row["year"] = 1965         // by name: any value the property can store
/// ```
///
/// Properties left unset are `nil` (optional ones) or an error (required ones).
/// A key path or name that is not an attribute or to-one relationship makes
/// the request throw `.validation` once the handler returns.
///
/// A key path to a ``PersistentValue`` (`String`, `Int`, `Date`, optionals of
/// them …) converts its value as it is set, without boxing it: the fastest way
/// to fill many rows.
public struct BatchRow<Model: PersistentModel> {
    @usableFromInline let entity: EntityDescription
    /// The values set so far, by property ordinal.
    @usableFromInline var slots: [BatchSlot]
    /// The first key path or name that did not name a persistent property.
    @usableFromInline var problem: StrataError?
    /// The key paths set so far with their ordinals: a handler sets the same
    /// few on every row, and finding one here by identity is cheaper than
    /// hashing it. Holding them keeps their identities from being reused.
    private var recentKeyPaths: [(keyPath: AnyKeyPath, ordinal: Int)] = []

    init(entity: EntityDescription) {
        self.entity = entity
        self.slots = Array(repeating: .unset, count: entity.properties.count)
    }

    /// Readies the row for the handler's next call. Taking a row's values
    /// (``BatchValues/takeRow(_:given:)``) leaves its slots unset.
    mutating func clear() {
        problem = nil
    }

    /// The value of a stored-value property, by key path; `nil` when not set yet.
    @inlinable
    public subscript<Value: PersistentValue>(keyPath: KeyPath<Model, Value>) -> Value? {
        get {
            guard let ordinal = entity.ordinal(for: keyPath) else { return nil }
            return slots[ordinal].value(as: Value.self)
        }
        set {
            guard let ordinal = settableOrdinal(for: keyPath) else { return }
            // Converted now, in code specialized for `Value`: no cast when the request runs.
            slots[ordinal] = newValue.map { .stored($0.storedValue, Value.self) } ?? .unset
        }
    }

    /// The value of a property, by key path; `nil` when not set yet.
    @inlinable
    public subscript<Value>(keyPath: KeyPath<Model, Value>) -> Value? {
        get {
            guard let ordinal = entity.ordinal(for: keyPath) else { return nil }
            return slots[ordinal].value(as: Value.self)
        }
        set {
            guard let ordinal = settableOrdinal(for: keyPath) else { return }
            slots[ordinal] = newValue.map { .given($0) } ?? .unset
        }
    }

    /// The ordinal a key path names, or nil after noting the problem.
    @usableFromInline
    mutating func settableOrdinal(for keyPath: AnyKeyPath) -> Int? {
        for recent in recentKeyPaths where recent.keyPath === keyPath { return recent.ordinal }
        guard let ordinal = entity.ordinal(for: keyPath) else {
            problem = problem ?? StrataError(
                .validation, "A key path of \(entity.name) does not name a persistent property; nothing was written",
                entityName: entity.name)
            return nil
        }
        if recentKeyPaths.count < entity.properties.count * 2 { recentKeyPaths.append((keyPath, ordinal)) }
        return ordinal
    }

    /// The value of a property, by name; `nil` when not set yet.
    public subscript(name: String) -> Any? {
        get {
            guard let ordinal = entity.ordinalByName[name] else { return nil }
            return slots[ordinal].value(as: Any.self)
        }
        set {
            guard let ordinal = entity.ordinalByName[name] else {
                problem = problem ?? StrataError(
                    .validation, "\(entity.name) has no persistent property named \(name); nothing was written",
                    entityName: entity.name, propertyName: name)
                return
            }
            slots[ordinal] = newValue.map { .given($0) } ?? .unset
        }
    }
}

/// One property's value in a ``BatchRow``.
@usableFromInline enum BatchSlot {
    case unset
    /// A Swift value, converted and checked when the request runs.
    case given(Any)
    /// A value converted as it was set, with the type it was set as; checked
    /// against the schema when the request runs.
    case stored(StoredValue, any PersistentValue.Type)

    var isSet: Bool {
        if case .unset = self { return false }
        return true
    }

    /// The value as the type it is read as, if it is one.
    @usableFromInline func value<Value>(as type: Value.Type) -> Value? {
        switch self {
        case .unset: nil
        case .given(let value): value as? Value
        case .stored(let stored, let storedType): storedType.init(storedValue: stored).flatMap { $0 as? Value }
        }
    }
}
