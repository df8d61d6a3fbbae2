import Foundation

// A value of a property's type made from nothing: what a read that cannot
// throw returns for a stored value it cannot read, when the property declares
// no initial value. Schemas refuse a non-optional property whose type has none
// (see `SchemaBuilder`), so an accessor always has one.

/// A value of `V` made without a stored value, or nil when Strata cannot make
/// one: the type's empty value (zero of any number, `""`, an empty collection, …), else a
/// `CaseIterable` enum's first case, else what `V`'s `Decodable`
/// initializer makes of empty input (a struct of such values), else, for a
/// one-byte type (an enum without payloads, whatever its raw values), its
/// first case.
///
/// ```swift
/// standInValue(Int.self)                       // 0
/// standInValue(Address.self)                   // Address(street: "", number: 0)
/// standInValue(Genre.self)                     // .fiction, the first case
/// ```
package func standInValue<V>(_ type: V.Type) -> V? {
    standInValue(V.self, depth: 0)
}

private func standInValue<V>(_ type: V.Type, depth: Int) -> V? {
    if let empty = (V.self as? any EmptyPersistentValue.Type)?.emptyValue as? V { return empty }
    // Every other number (`UInt`, `UInt64`, `Float16`, …): zero.
    if let zero = (V.self as? any AdditiveArithmetic.Type)?.zero as? V { return zero }
    if let cases = V.self as? any CaseIterable.Type, let first = firstCase(of: cases) as? V { return first }
    if let decodable = V.self as? any Decodable.Type, depth < StandInDecoder.maximumDepth,
       let value = try? decodable.init(from: StandInDecoder(depth: depth + 1)) as? V {
        return value
    }
    return firstCaseByLayout(V.self)
}

private func firstCase<C: CaseIterable>(of type: C.Type) -> C? { type.allCases.first }

/// The first case of an enum without payloads that is not `CaseIterable`
/// (`enum Genre: String { case fiction, poetry }`), which Swift offers no
/// other way to name: such an enum is one byte holding the case's index, so
/// zero is its first case. Every one-byte type (`Bool`, `UInt8`, small enums
/// and structs of them) reads zero as a valid value; a raw-value type of no
/// bytes (a single-case enum) has just one value. Larger types get nil.
private func firstCaseByLayout<V>(_ type: V.Type) -> V? {
    let size = MemoryLayout<V>.size
    // Zero bytes: only a raw-value type is known to have a value (an empty enum has none).
    guard size == 1 || (size == 0 && V.self is any RawRepresentable.Type) else { return nil }
    return withUnsafeTemporaryAllocation(byteCount: 1, alignment: 1) { buffer in
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        return buffer.baseAddress!.load(as: V.self)
    }
}

/// A decoder of empty input: every number is zero, every string empty, every
/// collection and optional empty, and every nested value the stand-in of its
/// type. A `Decodable` struct of such values decodes from it; a type that
/// checks what it reads (a URL from a string) fails.
private struct StandInDecoder: Decoder {
    static let maximumDepth = 16

    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(depth: depth) }

    static func value<T>(_ type: T.Type, depth: Int, path: [any CodingKey]) throws -> T {
        guard let value = standInValue(T.self, depth: depth) else {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: path, debugDescription: "no stand-in value"))
        }
        return value
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let depth: Int
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { false }
        func decodeNil(forKey key: Key) throws -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try StandInDecoder.value(T.self, depth: depth, path: [key])
        }
        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(Keyed<NestedKey>(depth: depth))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { Unkeyed() }
        func superDecoder() throws -> any Decoder { StandInDecoder(depth: depth) }
        func superDecoder(forKey key: Key) throws -> any Decoder { StandInDecoder(depth: depth) }
    }

    /// An empty list: asking it for an element fails.
    struct Unkeyed: UnkeyedDecodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }

        func failure(_ type: Any.Type) -> DecodingError {
            .valueNotFound(type, .init(codingPath: [], debugDescription: "the list is empty"))
        }
        mutating func decodeNil() throws -> Bool { throw failure(Never.self) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw failure(T.self) }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws -> KeyedDecodingContainer<NestedKey> { throw failure(NestedKey.self) }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw failure(Never.self) }
        mutating func superDecoder() throws -> any Decoder { throw failure(Never.self) }
    }

    struct Single: SingleValueDecodingContainer {
        let depth: Int
        var codingPath: [any CodingKey] { [] }

        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try StandInDecoder.value(T.self, depth: depth, path: [])
        }
    }
}
