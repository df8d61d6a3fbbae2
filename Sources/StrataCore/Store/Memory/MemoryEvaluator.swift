import Foundation

/// Evaluates Strata's store-neutral query form over the rows of a
/// ``MemoryDatabase``, in Swift, with the meaning every store gives it:
/// SQL's three-valued logic (`nil` makes a comparison unknown, `.null`),
/// `==` that treats two `nil`s as equal, code-point string matching, and
/// Swift's arithmetic (``CheckedArithmetic``), whose failures fail the query.
///
/// ```swift
/// var evaluator = MemoryEvaluator(database: database)
/// let matches = evaluator.matches(condition, entityIndex: book, key: 7)
/// ```
struct MemoryEvaluator {
    let database: MemoryDatabase
    var schema: Schema { database.schema }
    /// Row variables in scope: the entity and key each is bound to.
    private var bindings: [Int: (entityIndex: Int, key: Int64)] = [:]
    /// Why the query fails, once a value it unwraps is NULL.
    private(set) var failure: StrataError?

    init(database: MemoryDatabase) {
        self.database = database
    }

    /// Whether the row of `entityIndex` with `key` meets `condition`.
    mutating func matches(_ condition: StoreExpression, entityIndex: Int, key: Int64) -> Bool {
        bindings[0] = (entityIndex, key)
        return Self.isTrue(value(condition))
    }

    /// The value of `expression` for the row of `entityIndex` with `key`.
    mutating func value(_ expression: StoreExpression, entityIndex: Int, key: Int64) -> StoredValue {
        bindings[0] = (entityIndex, key)
        return value(expression)
    }

    /// A condition's value as a truth: only a non-zero number is true.
    static func isTrue(_ value: StoredValue) -> Bool {
        switch value {
        case .integer(let number): number != 0
        case .real(let number): number != 0
        case .text(let text): (Double(text.trimmingCharacters(in: .whitespaces)) ?? 0) != 0
        case .null, .blob: false
        }
    }

    private static func truth(_ value: Bool) -> StoredValue { .integer(value ? 1 : 0) }

    private mutating func value(_ expression: StoreExpression) -> StoredValue {
        switch expression {
        case .value(let value):
            return value
        case .boolean(let value):
            return Self.truth(value)
        case .key(let object):
            return key(of: object).map(StoredValue.integer) ?? .null
        case .property(let object, let ordinal):
            guard let row = row(of: object) else { return .null }
            return row.values[ordinal]
        case .equal(let lhs, let rhs):
            return Self.truth(Self.identical(value(lhs), value(rhs)))
        case .notEqual(let lhs, let rhs):
            return Self.truth(!Self.identical(value(lhs), value(rhs)))
        case .compare(let lhs, let op, let rhs, let collation):
            let left = value(lhs), right = value(rhs)
            if left.isNull || right.isNull { return .null }
            let order = StoredValueOrder.compare(left, right, collation: collation)
            let holds: Bool = switch op {
            case .equal: order == .orderedSame
            case .lessThan: order == .orderedAscending
            case .lessThanOrEqual: order != .orderedDescending
            case .greaterThan: order == .orderedDescending
            case .greaterThanOrEqual: order != .orderedAscending
            }
            return Self.truth(holds)
        case .and(let lhs, let rhs) where lhs.canFail || rhs.canFail:
            // Swift's `&&`, as the SQLite store renders it: two-valued, in order.
            return Self.isTrue(value(lhs)) ? value(rhs) : Self.truth(false)
        case .or(let lhs, let rhs) where lhs.canFail || rhs.canFail:
            return Self.isTrue(value(lhs)) ? Self.truth(true) : value(rhs)
        case .and(let lhs, let rhs):
            let left = value(lhs)
            if !left.isNull, !Self.isTrue(left) { return Self.truth(false) }
            let right = value(rhs)
            if !right.isNull, !Self.isTrue(right) { return Self.truth(false) }
            return left.isNull || right.isNull ? .null : Self.truth(true)
        case .or(let lhs, let rhs):
            let left = value(lhs)
            if Self.isTrue(left) { return Self.truth(true) }
            let right = value(rhs)
            if Self.isTrue(right) { return Self.truth(true) }
            return left.isNull || right.isNull ? .null : Self.truth(false)
        case .not(let condition):
            let inner = value(condition)
            return inner.isNull ? .null : Self.truth(!Self.isTrue(inner))
        case .arithmetic(let lhs, let op, let rhs, let domain):
            return checked(CheckedArithmetic.apply(op, value(lhs), value(rhs), domain: domain))
        case .negate(let operand, let domain):
            if case .integer = domain {
                return checked(CheckedArithmetic.apply(.subtract, .integer(0), value(operand), domain: domain))
            }
            switch value(operand) {
            case .integer(let number): return .real(-Double(number))
            case .real(let number): return .real(-number)
            default: return .null
            }
        case .coalesce(let first, let second):
            let left = value(first)
            return left.isNull ? value(second) : left
        case .conditional(let test, let yes, let no):
            return Self.isTrue(value(test)) ? value(yes) : value(no)
        case .isNull(let operand):
            return Self.truth(value(operand).isNull)
        case .unwrapped(let operand):
            let inner = value(operand)
            if inner.isNull, failure == nil { failure = UnwrapFunction.failure }
            return inner
        case .inList(let subject, let values):
            let candidate = value(subject)
            if candidate.isNull { return .null }
            return Self.truth(values.contains { Self.identical(candidate, $0) })
        case .between(let subject, let low, let high):
            return value(.and(.compare(subject, .greaterThanOrEqual, low), .compare(subject, .lessThanOrEqual, high)))
        case .hasPrefix(let string, let prefix):
            guard let text = Self.text(value(string)), let start = Self.text(value(prefix)) else { return .null }
            return Self.truth(text.unicodeScalars.starts(with: start.unicodeScalars))
        case .containsText(let string, let part):
            guard let text = Self.text(value(string)), let needle = Self.text(value(part)) else { return .null }
            return Self.truth(Self.contains(Array(text.unicodeScalars), Array(needle.unicodeScalars)))
        case .transformed(let text, let transform):
            let original = value(text)
            guard case .text(let string) = original else { return original }
            return .text(transform.apply(string))
        case .exists(let relationship, let variable, let condition):
            let saved = bindings[variable]
            defer { bindings[variable] = saved }
            for member in members(of: relationship) {
                bindings[variable] = (relationship.destinationIndex, member)
                guard let condition else { return Self.truth(true) }
                if Self.isTrue(value(condition)) { return Self.truth(true) }
            }
            return Self.truth(false)
        case .count(let relationship):
            return .integer(Int64(members(of: relationship).count))
        }
    }

    // MARK: Objects

    private mutating func key(of object: ObjectOperand) -> Int64? {
        switch object.source {
        case .variable(let variable):
            return bindings[variable]?.key
        case .keyed(let expression):
            if case .integer(let key) = value(expression) { return key }
            return nil
        }
    }

    private mutating func row(of object: ObjectOperand) -> MemoryDatabase.Row? {
        guard let key = key(of: object) else { return nil }
        return database.row(object.entityIndex, key)
    }

    /// The keys of a to-many relationship's members, in no particular order.
    private mutating func members(of relationship: ToManyOperand) -> [Int64] {
        guard let owner = key(of: relationship.owner),
              let shape = schema.toManyShape(entityIndex: relationship.owner.entityIndex, ordinal: relationship.ordinal)
        else { return [] }
        return database.members(of: owner, shape: shape)
    }

    // MARK: Values

    /// `IS`: two NULLs are the same, NULL and a value are not; numbers compare by value.
    static func identical(_ lhs: StoredValue, _ rhs: StoredValue) -> Bool {
        if lhs.isNull || rhs.isNull { return lhs.isNull && rhs.isNull }
        return StoredValueOrder.compare(lhs, rhs, collation: .binary) == .orderedSame
    }

    /// Text, or a number as the text SQLite would make of it.
    private static func text(_ value: StoredValue) -> String? {
        switch value {
        case .text(let text): text
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .blob(let data): String(decoding: data, as: UTF8.self)
        case .null: nil
        }
    }

    private static func contains(_ haystack: [Unicode.Scalar], _ needle: [Unicode.Scalar]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// The result of checked arithmetic; a failure fails the query.
    private mutating func checked(_ result: Result<StoredValue, StrataError>) -> StoredValue {
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            if failure == nil { failure = error }
            return .null
        }
    }
}

extension MemoryDatabase {
    /// The keys of an owner's to-many members, in no particular order.
    func members(of owner: Int64, shape: ToManyShape) -> [Int64] {
        switch shape {
        case .foreignKey(let destination, let inverse):
            return Array(rows(pointingAt: owner, from: KeyColumn(entityIndex: destination, ordinal: inverse)))
        case .join(let key, let ownerIsSource, _):
            let join = pairs(key)
            return Array((ownerIsSource ? join?.bySource[owner] : join?.byTarget[owner]) ?? [])
        }
    }

    /// The keys of an owner's to-many members in their stored order: by the
    /// owner's position (none first), then by key.
    func orderedMembers(of owner: Int64, shape: ToManyShape) -> [Int64] {
        let keys = members(of: owner, shape: shape)
        switch shape {
        case .foreignKey(let destination, let inverse):
            return keys.sorted { a, b in
                switch (row(destination, a)?.positions[inverse], row(destination, b)?.positions[inverse]) {
                case (nil, nil): a < b
                case (nil, _): true
                case (_, nil): false
                case (let pa?, let pb?): pa != pb ? pa < pb : a < b
                }
            }
        case .join(let key, let ownerIsSource, _):
            let pairs = pairs(key)?.pairs ?? [:]
            func position(_ member: Int64) -> Int64 {
                let pair = ownerIsSource ? Join.Pair(source: owner, target: member) : Join.Pair(source: member, target: owner)
                let positions = pairs[pair]
                return (ownerIsSource ? positions?.source : positions?.target) ?? 0
            }
            return keys.sorted { a, b in
                let pa = position(a), pb = position(b)
                return pa != pb ? pa < pb : a < b
            }
        }
    }
}
