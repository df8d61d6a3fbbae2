import Foundation

/// Whether the values of a stored row can be read as their properties' Swift
/// types: the check every row passes as a context loads it, so a value another
/// program wrote (text in an `Int` column, an unknown enum case, JSON that no
/// longer decodes) fails the fetch with `.valueConversion` instead of reaching
/// a property accessor, which cannot throw.
///
/// Values Strata wrote pass with one comparison of storage classes; only types
/// whose conversion can fail for a value of the right class (narrow integers,
/// UUIDs, URLs, decimals, enums, `Codable` values) try the conversion itself.
///
/// ```swift
/// if let problem = entity.valueCheck.firstProblem(in: values) {
///     throw entity.valueCheck.error(for: problem, objectID: id)
/// }
/// ```
package struct StoredValueCheck: Sendable {
    struct Column: @unchecked Sendable {
        // @unchecked: `reads` only converts the value it is given, capturing nothing but metatypes.
        let ordinal: Int
        let kind: StoredValue.Kind
        let isOptional: Bool
        /// Tries the conversion the accessor makes; nil when a value of the
        /// right storage class always converts.
        let reads: ((StoredValue) -> Bool)?
        let typeName: String
    }

    let columns: [Column]
    /// The hot loop's data, in plain arrays (no closure or string to retain
    /// per row): each checked column's ordinal, its storage class, and
    /// whether its type must try the conversion even for the right class.
    private let ordinals: [Int]
    private let kinds: [StoredValue.Kind]
    private let triesConversion: [Bool]

    /// A row's value that cannot be read: its property's ordinal and the value.
    package struct Problem {
        package let ordinal: Int
        package let value: StoredValue
    }

    init(properties: [PropertyDescription], metadata: [PropertyMetadata]) {
        var columns: [Column] = []
        for (ordinal, property) in properties.enumerated() where property.hasColumn {
            switch property {
            case .attribute(let attribute):
                let reader = ordinal < metadata.count ? metadata[ordinal].valueReader : nil
                let exact = reader?.isPlainValue ?? true && attribute.type.alwaysConvertsFromItsStorageClass
                columns.append(Column(
                    ordinal: ordinal, kind: attribute.type.storageKind, isOptional: attribute.isOptional,
                    reads: exact ? nil : reader?.reads ?? attribute.type.reads,
                    typeName: reader?.typeName ?? attribute.type.rawValue))
            case .relationship(let relationship):
                columns.append(Column(
                    ordinal: ordinal, kind: .integer, isOptional: true, reads: nil,
                    typeName: "a key of \(relationship.destinationEntityName)"))
            }
        }
        self.columns = columns
        ordinals = columns.map(\.ordinal)
        kinds = columns.map(\.kind)
        triesConversion = columns.map { $0.reads != nil }
    }

    /// The first value of `values` (by ordinal) its property cannot read.
    @inline(__always)
    package func firstProblem(in values: UnsafeMutableBufferPointer<StoredValue>) -> Problem? {
        let count = ordinals.count
        return ordinals.withUnsafeBufferPointer { ordinals in
            kinds.withUnsafeBufferPointer { kinds in
                triesConversion.withUnsafeBufferPointer { triesConversion in
                    for index in 0..<count where triesConversion[index] || !values[ordinals[index]].has(kinds[index]) {
                        if !readable(values[ordinals[index]], columns[index]) {
                            return Problem(ordinal: ordinals[index], value: values[ordinals[index]])
                        }
                    }
                    return nil
                }
            }
        }
    }

    /// ``firstProblem(in:)`` for values in an array.
    package func firstProblem(in values: ContiguousArray<StoredValue>) -> Problem? {
        var values = values
        return values.withUnsafeMutableBufferPointer { firstProblem(in: $0) }
    }

    @inline(never)
    private func readable(_ value: StoredValue, _ column: Column) -> Bool {
        if value.isNull { return column.isOptional }
        if let reads = column.reads { return reads(value) }
        return value.kind == column.kind
    }

    /// The error for a problem: the entity, property, row and what the value is.
    package func error(for problem: Problem, entity: EntityDescription, objectID: ObjectID) -> StrataError {
        let property = entity.properties[problem.ordinal].name
        let typeName = columns.first { $0.ordinal == problem.ordinal }?.typeName ?? "its type"
        return StrataError(
            .valueConversion,
            "\(entity.name).\(property) of \(objectID) holds \(problem.value.kindDescription) \(problem.value), "
                + "which cannot be read as \(typeName); another program wrote it, or the model changed without a migration",
            entityName: entity.name, propertyName: property, objectIDs: [objectID])
    }
}

/// How a property's Swift type reads stored values, recorded by the
/// ``PropertyMetadata`` factory methods, which know the type.
package struct StoredValueReader: @unchecked Sendable {
    // @unchecked: the closures only convert or make values of the type, capturing nothing but metatypes.
    package let reads: (StoredValue) -> Bool
    /// The stored value as the property's Swift type (unwrapped), or nil when it cannot be read.
    package let decode: (StoredValue) -> Any?
    /// A ``PersistentValue`` itself, or a transformer's stored form (not an
    /// enum's raw value or JSON).
    package let isPlainValue: Bool
    package let typeName: String
    /// A value of the type made from nothing (``standInValue(_:)``), for a
    /// read that cannot throw; nil when Strata cannot make one.
    package let standIn: () -> Any?
    /// The stored form of a value of the type given as `Any`, when it differs
    /// from what ``storedValue(forPredicateValue:)`` makes of it (a
    /// transformer's); nil when it does not.
    package let encode: ((Any) -> StoredValue?)?

    /// Whether Strata can make a value of the type from nothing.
    package var hasStandIn: Bool { standIn() != nil }

    init(
        reads: @escaping (StoredValue) -> Bool, decode: @escaping (StoredValue) -> Any?, isPlainValue: Bool,
        typeName: String, standIn: @escaping () -> Any?, encode: ((Any) -> StoredValue?)? = nil
    ) {
        self.reads = reads
        self.decode = decode
        self.isPlainValue = isPlainValue
        self.typeName = typeName
        self.standIn = standIn
        self.encode = encode
    }

    static func plain<V: PersistentValue>(_ type: V.Type) -> StoredValueReader {
        StoredValueReader(
            // Each `decode` boxes the value itself: an optional of the type
            // converted to `Any?` goes through the runtime's dynamic cast.
            reads: { V(storedValue: $0) != nil }, decode: { stored in V(storedValue: stored).map { $0 as Any } },
            isPlainValue: true, typeName: "\(V.self)",
            standIn: { standInValue(V.self).map { $0 as Any } })
    }

    static func raw<V: RawRepresentable>(_ type: V.Type) -> StoredValueReader where V.RawValue: PersistentValue {
        StoredValueReader(
            reads: { V.RawValue(storedValue: $0).flatMap(V.init(rawValue:)) != nil },
            decode: { stored in V.RawValue(storedValue: stored).flatMap(V.init(rawValue:)).map { $0 as Any } }, isPlainValue: false,
            typeName: "\(V.self)", standIn: { standInValue(V.self).map { $0 as Any } })
    }

    static func json<V: Decodable>(_ type: V.Type) -> StoredValueReader {
        StoredValueReader(
            reads: { JSONValueCoding.decodeStored($0, as: V.self) != nil },
            decode: { stored in JSONValueCoding.decodeStored(stored, as: V.self).map { $0 as Any } }, isPlainValue: false,
            typeName: "\(V.self) (JSON)",
            standIn: { standInValue(V.self).map { $0 as Any } })
    }
}

extension StoredValue {
    /// Whether the value is of storage class `kind` (never for `.null`).
    @inline(__always)
    func has(_ kind: Kind) -> Bool {
        switch self {
        case .integer: kind == .integer
        case .real: kind == .real
        case .text: kind == .text
        case .blob: kind == .blob
        case .null: false
        }
    }

    /// The value's storage class; `.null` has none and matches no column's.
    var kind: Kind? {
        switch self {
        case .null: nil
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }

    var kindDescription: String {
        switch self {
        case .null: "no value,"
        case .integer: "the integer"
        case .real: "the real number"
        case .text: "the text"
        case .blob: "a blob:"
        }
    }
}

extension AttributeType {
    /// Whether every value of this type's storage class converts to it.
    var alwaysConvertsFromItsStorageClass: Bool {
        switch self {
        case .bool, .int, .int64, .double, .float, .string, .date, .data: true
        case .int8, .int16, .int32, .uint8, .uint16, .uint32, .uint, .uint64, .uuid, .url, .decimal, .codable: false
        }
    }

    /// The conversion of this type, for descriptions made without metadata.
    var reads: (StoredValue) -> Bool {
        switch self {
        case .bool: { Bool(storedValue: $0) != nil }
        case .int: { Int(storedValue: $0) != nil }
        case .int8: { Int8(storedValue: $0) != nil }
        case .int16: { Int16(storedValue: $0) != nil }
        case .int32: { Int32(storedValue: $0) != nil }
        case .int64: { Int64(storedValue: $0) != nil }
        case .uint8: { UInt8(storedValue: $0) != nil }
        case .uint16: { UInt16(storedValue: $0) != nil }
        case .uint32: { UInt32(storedValue: $0) != nil }
        case .uint: { UInt(storedValue: $0) != nil }
        case .uint64: { UInt64(storedValue: $0) != nil }
        case .double: { Double(storedValue: $0) != nil }
        case .float: { Float(storedValue: $0) != nil }
        case .string: { String(storedValue: $0) != nil }
        case .date: { Date(storedValue: $0) != nil }
        case .data: { Data(storedValue: $0) != nil }
        case .uuid: { UUID(storedValue: $0) != nil }
        case .url: { URL(storedValue: $0) != nil }
        case .decimal: { Decimal(storedValue: $0) != nil }
        case .codable: { $0.kind == .text || $0.kind == .blob }
        }
    }
}
