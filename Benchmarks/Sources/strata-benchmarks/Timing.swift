/// Durations and the statistics the report needs.
extension Duration {
    /// This duration in milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }
}

enum Stats {
    /// The median of `values` (the mean of the middle two for an even count).
    static func median(_ values: [Double]) -> Double {
        percentile(values, 0.5)
    }

    /// The `p` quantile (0...1) by linear interpolation between closest ranks.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        precondition(!values.isEmpty)
        let sorted = values.sorted()
        let position = p * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] * (1 - weight) + sorted[upper] * weight
    }
}

/// Times an async operation on the continuous clock.
func measure(_ body: () async throws -> Void) async rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try await body()
    return clock.now - start
}
