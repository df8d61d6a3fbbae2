/// A small set of property ordinals: one word inline, more words only for
/// entities with over 64 properties.
package struct OrdinalSet: Sendable, Hashable {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    package init() {}

    package var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    package func contains(_ ordinal: Int) -> Bool {
        if ordinal < 64 { return low & (1 << UInt64(ordinal)) != 0 }
        let word = ordinal / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(ordinal % 64)) != 0
    }

    package mutating func insert(_ ordinal: Int) {
        if ordinal < 64 { low |= 1 << UInt64(ordinal); return }
        let word = ordinal / 64 - 1
        if word >= high.count { high.append(contentsOf: repeatElement(0, count: word - high.count + 1)) }
        high[word] |= 1 << UInt64(ordinal % 64)
    }

    package mutating func remove(_ ordinal: Int) {
        if ordinal < 64 { low &= ~(1 << UInt64(ordinal)); return }
        let word = ordinal / 64 - 1
        if word < high.count { high[word] &= ~(1 << UInt64(ordinal % 64)) }
    }

    package mutating func removeAll() {
        low = 0
        high = []
    }

    /// The ordinals in ascending order.
    package var elements: [Int] {
        var result: [Int] = []
        var word = low
        while word != 0 {
            result.append(word.trailingZeroBitCount)
            word &= word - 1
        }
        for (index, var bits) in high.enumerated() {
            while bits != 0 {
                result.append((index + 1) * 64 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
        return result
    }
}
