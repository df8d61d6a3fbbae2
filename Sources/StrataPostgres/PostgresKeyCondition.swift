/// A `WHERE` condition that picks rows by a sorted list of primary keys.
///
/// `pk = ANY($1)` with a bound array is a hash lookup when it runs, but
/// PostgreSQL's planner estimates its selectivity element by element: 21 ms
/// of planning for 100,000 keys, before a delete that then runs for 30 ms.
/// Keys deleted together are often one run (a whole table, a fresh import,
/// everything a fetch in key order returned) or a few. Up to
/// ``rangeLimit`` runs are tested as `pk BETWEEN lo AND hi`, which plans in
/// microseconds; a range holds only the listed keys, since every integer in
/// it is one of them. More runs keep `= ANY`.
///
/// ```swift
/// let condition = PostgresKeyCondition(keys: [1, 2, 3, 7, 8], firstParameter: 1)
/// condition.sql        // "(pk BETWEEN $1 AND $2 OR pk BETWEEN $3 AND $4)"
/// condition.arguments  // [1, 3, 7, 8] as integers
/// ```
struct PostgresKeyCondition {
    let sql: String
    let arguments: [PostgresArgument]

    /// The most runs tested as ranges; more go as one `= ANY`.
    static let rangeLimit = 8

    /// `keys` must be strictly ascending; `firstParameter` is the number of
    /// the condition's first `$n`.
    init(keys: [Int64], firstParameter: Int, column: String = "pk") {
        if let runs = Self.runs(of: keys, atMost: Self.rangeLimit), !runs.isEmpty {
            var parts: [String] = []
            var arguments: [PostgresArgument] = []
            for (index, run) in runs.enumerated() {
                let low = firstParameter + 2 * index
                parts.append("\(column) BETWEEN $\(low) AND $\(low + 1)")
                arguments += [.integer(run.lowerBound), .integer(run.upperBound)]
            }
            sql = parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " OR ") + ")"
            self.arguments = arguments
        } else {
            sql = "\(column) = ANY($\(firstParameter))"
            arguments = [.keys(keys)]
        }
    }

    /// The runs of consecutive integers in `keys` (strictly ascending), or
    /// nil when there are more than `limit`.
    static func runs(of keys: [Int64], atMost limit: Int) -> [ClosedRange<Int64>]? {
        guard var start = keys.first else { return [] }
        var runs: [ClosedRange<Int64>] = []
        var previous = start
        for key in keys.dropFirst() {
            // Ascending keys: `previous` is below `key`, so adding 1 cannot overflow.
            if key != previous + 1 {
                guard runs.count + 1 < limit else { return nil }
                runs.append(start...previous)
                start = key
            }
            previous = key
        }
        runs.append(start...previous)
        return runs
    }
}
