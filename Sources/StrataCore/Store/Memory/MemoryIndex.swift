/// One attribute of one entity in the in-memory store, sorted: its rows' keys
/// ordered by the stored value (NULLs first, by `StoredValueOrder`), then by
/// key, which is the order the store returns rows sorted by that attribute in.
///
/// The store keeps one for each attribute an `#Index` starts with and each
/// attribute a uniqueness constraint starts with. It is built when a query
/// first uses it and again after a write changes a value it holds, so a run
/// of writes costs nothing here and queries between writes share one build.
///
/// ```swift
/// var index = MemoryIndex(ordinal: 10)
/// index.build(from: rows)
/// index.range(MemoryIndex.Bounds(lower: .real(0.5), lowerIncluded: true))   // rows with score ≥ 0.5
/// ```
struct MemoryIndex {
    /// The rows whose value lies between two bounds (either may be open); a
    /// bounded range never holds NULLs, which compare with nothing.
    struct Bounds {
        var lower: StoredValue? = nil
        var lowerIncluded = true
        var upper: StoredValue? = nil
        var upperIncluded = true
    }

    let ordinal: Int
    private(set) var values: [StoredValue] = []
    private(set) var keys: [Int64] = []
    var isStale = true

    init(ordinal: Int) {
        self.ordinal = ordinal
    }

    mutating func build(from rows: [Int64: MemoryDatabase.Row]) {
        if buildNumbers(from: rows) { return }
        var entries = rows.map { (value: $0.value.values[ordinal], key: $0.key) }
        entries.sort { a, b in
            let order = StoredValueOrder.compare(a.value, b.value, collation: .binary)
            return order == .orderedSame ? a.key < b.key : order == .orderedAscending
        }
        values = entries.map(\.value)
        keys = entries.map(\.key)
        isStale = false
    }

    /// Builds from numbers compared as doubles, several times faster than
    /// comparing stored values; false (nothing built) when a value is text or
    /// data, or an integer a double does not hold exactly.
    private mutating func buildNumbers(from rows: [Int64: MemoryDatabase.Row]) -> Bool {
        var nulls: [Int64] = []
        var numbers: [(number: Double, key: Int64, value: StoredValue)] = []
        numbers.reserveCapacity(rows.count)
        for (key, row) in rows {
            let value = row.values[ordinal]
            switch value {
            case .null: nulls.append(key)
            case .real(let number): numbers.append((number, key, value))
            case .integer(let number) where number.magnitude <= 1 << 53: numbers.append((Double(number), key, value))
            default: return false
            }
        }
        nulls.sort()
        numbers.sort { $0.number == $1.number ? $0.key < $1.key : $0.number < $1.number }
        keys = nulls + numbers.map(\.key)
        values = Array(repeating: .null, count: nulls.count) + numbers.map(\.value)
        isStale = false
        return true
    }

    /// The positions of the entries within `bounds`.
    func range(_ bounds: Bounds?) -> Range<Int> {
        guard let bounds else { return 0..<keys.count }
        var start = firstIndex { !$0.isNull }
        if let lower = bounds.lower {
            start = max(start, firstIndex { Self.isAbove($0, lower, orAt: bounds.lowerIncluded) })
        }
        var end = keys.count
        if let upper = bounds.upper { end = firstIndex { Self.isAbove($0, upper, orAt: !bounds.upperIncluded) } }
        return start..<max(start, end)
    }

    /// Whether `value` is above `bound` (or at it, when `orAt`).
    private static func isAbove(_ value: StoredValue, _ bound: StoredValue, orAt: Bool) -> Bool {
        switch StoredValueOrder.compare(value, bound, collation: .binary) {
        case .orderedDescending: true
        case .orderedSame: orAt
        case .orderedAscending: false
        }
    }

    /// The first position whose value satisfies `test`, which holds from some position on.
    private func firstIndex(where test: (StoredValue) -> Bool) -> Int {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if test(values[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The keys in `range`, descending by value and ascending by key among
    /// equal values (the store's order for a descending sort), while `visit`
    /// returns true.
    func visitDescending(_ range: Range<Int>, _ visit: (Int64) -> Bool) {
        var end = range.upperBound
        while end > range.lowerBound {
            var start = end - 1
            while start > range.lowerBound,
                  StoredValueOrder.compare(values[start - 1], values[end - 1], collation: .binary) == .orderedSame {
                start -= 1
            }
            for position in start..<end where !visit(keys[position]) { return }
            end = start
        }
    }
}

extension MemoryIndex.Bounds {
    /// The bounds `predicate` puts on the attribute at `ordinal` of the
    /// fetched row, from its top-level `&&` terms; nil when it puts none.
    /// Every row the predicate can match lies within them.
    static func of(_ predicate: StoreExpression, entityIndex: Int, ordinal: Int) -> Self? {
        var bounds = Self()
        var found = false
        func isIndexed(_ value: StoreExpression) -> Bool {
            guard case .property(let object, let at) = value, at == ordinal, object.entityIndex == entityIndex,
                  case .variable(0) = object.source else { return false }
            return true
        }
        func add(_ op: ComparisonOperator, _ value: StoredValue) {
            guard !value.isNull else { return }
            found = true
            switch op {
            case .equal: (bounds.lower, bounds.lowerIncluded, bounds.upper, bounds.upperIncluded) = (value, true, value, true)
            case .greaterThan, .greaterThanOrEqual: (bounds.lower, bounds.lowerIncluded) = (value, op == .greaterThanOrEqual)
            case .lessThan, .lessThanOrEqual: (bounds.upper, bounds.upperIncluded) = (value, op == .lessThanOrEqual)
            }
        }
        func visit(_ term: StoreExpression) {
            switch term {
            case .and(let lhs, let rhs):
                visit(lhs)
                visit(rhs)
            case .compare(let lhs, let op, .value(let value), .binary) where isIndexed(lhs):
                add(op, value)
            case .compare(.value(let value), let op, let rhs, .binary) where isIndexed(rhs):
                add(op.flipped, value)
            case .between(let subject, .value(let low), .value(let high)) where isIndexed(subject):
                add(.greaterThanOrEqual, low)
                add(.lessThanOrEqual, high)
            default:
                break
            }
        }
        visit(predicate)
        return found ? bounds : nil
    }
}

extension ComparisonOperator {
    /// The operator with its sides swapped: `a < b` is `b > a`.
    var flipped: ComparisonOperator {
        switch self {
        case .equal: .equal
        case .lessThan: .greaterThan
        case .lessThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .lessThan
        case .greaterThanOrEqual: .lessThanOrEqual
        }
    }
}
