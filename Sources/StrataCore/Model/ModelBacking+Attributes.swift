import Foundation

// The typed entry points `@Model` generates calls to. Each kind of value has
// one overload; Swift picks the most specific one from the `as:` type, so
// `String` goes straight to its column, an enum to its raw value and any other
// `Codable` type to JSON.

package enum JSONValueCoding {
    /// JSON text with sorted keys, so equal values store equal text (predicates
    /// bind `Codable` values the same way). Infinities and NaN, which JSON has
    /// no number for, are written as the strings below rather than failing.
    package static func storedText<V: Encodable>(_ value: V) throws -> StoredValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: positiveInfinity, negativeInfinity: negativeInfinity, nan: notANumber)
        return .text(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    private static let positiveInfinity = "Infinity", negativeInfinity = "-Infinity", notANumber = "NaN"

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: positiveInfinity, negativeInfinity: negativeInfinity, nan: notANumber)
        return decoder
    }

    static func encode<V: Encodable>(_ value: V, for backing: ModelBacking, at ordinal: Int) -> StoredValue {
        // Only an `encode(to:)` of the app's own that throws gets here.
        guard let stored = try? storedText(value) else {
            preconditionFailure("Strata: the value of \(backing.propertyName(at: ordinal)) cannot be encoded as JSON")
        }
        return stored
    }

    /// The value JSON text decodes to, or nil.
    static func decodeStored<V: Decodable>(_ stored: StoredValue, as type: V.Type) -> V? {
        switch stored {
        case .text(let text): try? decoder.decode(V.self, from: Data(text.utf8))
        case .blob(let blob): try? decoder.decode(V.self, from: blob)
        default: nil
        }
    }

    static func decode<V: Decodable>(_ stored: StoredValue, as type: V.Type, for backing: ModelBacking, at ordinal: Int) -> V {
        decodeStored(stored, as: V.self) ?? backing.unreadableValue(at: ordinal, as: V.self)
    }
}

// MARK: - Initial values (from init accessors, before `self` exists)

extension ModelBacking {
    @inlinable @inline(__always)
    func storeInitial(_ value: StoredValue, at ordinal: Int) {
        values[checked: ordinal] = value
    }

    @inlinable
    public func setInitialValue<V: PersistentValue>(_ value: V, at ordinal: Int, as: V.Type) {
        storeInitial(value.storedValue, at: ordinal)
    }

    @inlinable
    public func setInitialValue<V: PersistentValue>(_ value: V?, at ordinal: Int, as: V?.Type) {
        storeInitial(value?.storedValue ?? .null, at: ordinal)
    }

    public func setInitialValue<V: RawRepresentable>(_ value: V, at ordinal: Int, as: V.Type)
    where V.RawValue: PersistentValue {
        storeInitial(value.rawValue.storedValue, at: ordinal)
    }

    public func setInitialValue<V: RawRepresentable>(_ value: V?, at ordinal: Int, as: V?.Type)
    where V.RawValue: PersistentValue {
        storeInitial(value?.rawValue.storedValue ?? .null, at: ordinal)
    }

    public func setInitialValue<V: RawRepresentable & Codable>(_ value: V, at ordinal: Int, as: V.Type)
    where V.RawValue: PersistentValue {
        storeInitial(value.rawValue.storedValue, at: ordinal)
    }

    public func setInitialValue<V: RawRepresentable & Codable>(_ value: V?, at ordinal: Int, as: V?.Type)
    where V.RawValue: PersistentValue {
        storeInitial(value?.rawValue.storedValue ?? .null, at: ordinal)
    }

    public func setInitialValue<V: Codable>(_ value: V, at ordinal: Int, as: V.Type) {
        storeInitial(JSONValueCoding.encode(value, for: self, at: ordinal), at: ordinal)
    }

    public func setInitialValue<V: Codable>(_ value: V?, at ordinal: Int, as: V?.Type) {
        storeInitial(value.map { JSONValueCoding.encode($0, for: self, at: ordinal) } ?? .null, at: ordinal)
    }
}

// MARK: - Reading and writing attributes

extension PersistentModel {
    @inlinable @inline(__always)
    func storedValue(at ordinal: Int) -> StoredValue {
        // Read `persistentBacking` again after a fault fires rather than holding
        // it across the call, so the common path retains nothing.
        if persistentBacking.isFault { persistentBacking.fireFault() }
        if persistentBacking.observesReads { persistentBacking.observeRead(of: self, at: ordinal) }
        return persistentBacking.values[checked: ordinal]
    }

    /// Writes a stored value, recording the change when it differs.
    @inlinable @inline(__always)
    package func setStoredValue(_ stored: StoredValue, at ordinal: Int) {
        let backing = persistentBacking
        backing.willAccess()
        guard backing.values[checked: ordinal] != stored else { return }
        backing.change(to: stored, at: ordinal, owner: self)
    }

    @inlinable
    public func persistentValue<V: PersistentValue>(at ordinal: Int, as: V.Type) -> V {
        guard let value = V(storedValue: storedValue(at: ordinal)) else {
            return persistentBacking.unreadableValue(at: ordinal, as: V.self)
        }
        return value
    }

    @inlinable
    public func setPersistentValue<V: PersistentValue>(_ newValue: V, at ordinal: Int, as: V.Type) {
        setStoredValue(newValue.storedValue, at: ordinal)
    }

    @inlinable
    public func persistentValue<V: PersistentValue>(at ordinal: Int, as: V?.Type) -> V? {
        let stored = storedValue(at: ordinal)
        if stored.isNull { return nil }
        guard let value = V(storedValue: stored) else {
            return persistentBacking.unreadableOptional(at: ordinal, as: V.self)
        }
        return value
    }

    @inlinable
    public func setPersistentValue<V: PersistentValue>(_ newValue: V?, at ordinal: Int, as: V?.Type) {
        setStoredValue(newValue?.storedValue ?? .null, at: ordinal)
    }

    public func persistentValue<V: RawRepresentable>(at ordinal: Int, as: V.Type) -> V where V.RawValue: PersistentValue {
        guard let raw = V.RawValue(storedValue: storedValue(at: ordinal)), let value = V(rawValue: raw) else {
            return persistentBacking.unreadableValue(at: ordinal, as: V.self)
        }
        return value
    }

    public func setPersistentValue<V: RawRepresentable>(_ newValue: V, at ordinal: Int, as: V.Type)
    where V.RawValue: PersistentValue {
        setStoredValue(newValue.rawValue.storedValue, at: ordinal)
    }

    public func persistentValue<V: RawRepresentable>(at ordinal: Int, as: V?.Type) -> V? where V.RawValue: PersistentValue {
        let stored = storedValue(at: ordinal)
        if stored.isNull { return nil }
        guard let raw = V.RawValue(storedValue: stored), let value = V(rawValue: raw) else {
            return persistentBacking.unreadableOptional(at: ordinal, as: V.self)
        }
        return value
    }

    public func setPersistentValue<V: RawRepresentable>(_ newValue: V?, at ordinal: Int, as: V?.Type)
    where V.RawValue: PersistentValue {
        setStoredValue(newValue?.rawValue.storedValue ?? .null, at: ordinal)
    }

    public func persistentValue<V: RawRepresentable & Codable>(at ordinal: Int, as: V.Type) -> V
    where V.RawValue: PersistentValue {
        guard let raw = V.RawValue(storedValue: storedValue(at: ordinal)), let value = V(rawValue: raw) else {
            return persistentBacking.unreadableValue(at: ordinal, as: V.self)
        }
        return value
    }

    public func setPersistentValue<V: RawRepresentable & Codable>(_ newValue: V, at ordinal: Int, as: V.Type)
    where V.RawValue: PersistentValue {
        setStoredValue(newValue.rawValue.storedValue, at: ordinal)
    }

    public func persistentValue<V: RawRepresentable & Codable>(at ordinal: Int, as: V?.Type) -> V?
    where V.RawValue: PersistentValue {
        let stored = storedValue(at: ordinal)
        if stored.isNull { return nil }
        guard let raw = V.RawValue(storedValue: stored), let value = V(rawValue: raw) else {
            return persistentBacking.unreadableOptional(at: ordinal, as: V.self)
        }
        return value
    }

    public func setPersistentValue<V: RawRepresentable & Codable>(_ newValue: V?, at ordinal: Int, as: V?.Type)
    where V.RawValue: PersistentValue {
        setStoredValue(newValue?.rawValue.storedValue ?? .null, at: ordinal)
    }

    public func persistentValue<V: Codable>(at ordinal: Int, as: V.Type) -> V {
        JSONValueCoding.decode(storedValue(at: ordinal), as: V.self, for: persistentBacking, at: ordinal)
    }

    public func setPersistentValue<V: Codable>(_ newValue: V, at ordinal: Int, as: V.Type) {
        setStoredValue(JSONValueCoding.encode(newValue, for: persistentBacking, at: ordinal), at: ordinal)
    }

    public func persistentValue<V: Codable>(at ordinal: Int, as: V?.Type) -> V? {
        let stored = storedValue(at: ordinal)
        if stored.isNull { return nil }
        return JSONValueCoding.decodeStored(stored, as: V.self)
            ?? persistentBacking.unreadableOptional(at: ordinal, as: V.self)
    }

    public func setPersistentValue<V: Codable>(_ newValue: V?, at ordinal: Int, as: V?.Type) {
        let stored = newValue.map { JSONValueCoding.encode($0, for: persistentBacking, at: ordinal) } ?? .null
        setStoredValue(stored, at: ordinal)
    }
}
