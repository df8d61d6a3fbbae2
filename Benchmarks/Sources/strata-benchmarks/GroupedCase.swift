import Foundation
import GRDB
import StrataCore

// Case 16, grouped: the rows with `score >= x` counted per value of `i1` (1,000
// groups), for `queryExecutions / 20` values of x, on a file of N rows. Raw
// SQLite steps a prepared `SELECT i1, COUNT(*) … GROUP BY i1 ORDER BY i1`, GRDB
// reads its `Row`s, Strata calls `fetchGroups(of:by:computing:)`.

extension Runner {
    /// Libraries that group in the store.
    static var groupedLibraries: [any BenchLibrary.Type] {
        [RawLibrary.self, GRDBRowLibrary.self, StrataLibrary.self, PostgresRawLibrary.self, StrataPostgresLibrary.self]
    }

    func grouped() async throws {
        let rows = ItemRow.make(workload.rows)
        let executions = Swift.max(1, workload.queryExecutions / 20)
        let minimums = (0..<executions).map { Double($0) * 990 / Double(executions) }
        // What every library must find: per minimum, the sum of group × count over the groups.
        let expected = minimums.map { minimum in rows.filter { $0.score >= minimum }.reduce(0) { $0 &+ $1.i1 } }
        let sql = "SELECT i1, COUNT(*) FROM item WHERE score >= ? GROUP BY i1 ORDER BY i1"
        for library in libraries where Self.groupedLibraries.contains(where: { $0 == library }) {
            let directory = try ScratchDirectory("grouped-\(library.name)")
            defer { directory.remove() }
            let path = directory.file()
            try await library.create(at: path, rows: rows)
            var runs: [[Double]] = []
            for run in 0...workload.runs {
                var checksums: [Int] = []
                let elapsed: Duration
                switch library {
                case is RawLibrary.Type:
                    let connection = try RawConnection(path: path)
                    defer { connection.close() }
                    let statement = try connection.prepare(sql)
                    elapsed = try await measure {
                        for minimum in minimums {
                            statement.bind(minimum, at: 1)
                            var groups: [(Int, Int)] = []
                            while try statement.step() { groups.append((statement.int(0), statement.int(1))) }
                            statement.reset()
                            checksums.append(groups.reduce(0) { $0 &+ $1.0 &* $1.1 })
                        }
                    }
                case is GRDBRowLibrary.Type:
                    let pool = try DatabasePool(path: path)
                    defer { try? pool.close() }
                    elapsed = try await measure {
                        try pool.read { db in
                            for minimum in minimums {
                                let groups = try Row.fetchAll(db, sql: sql, arguments: [minimum])
                                checksums.append(groups.reduce(0) { $0 &+ ($1[0] as Int) &* ($1[1] as Int) })
                            }
                        }
                    }
                case is PostgresRawLibrary.Type:
                    let raw = try await PostgresRawLibrary.open(at: path)
                    elapsed = try await measure {
                        for minimum in minimums {
                            let groups = try await raw.groupCounts(minimumScore: minimum)
                            checksums.append(groups.reduce(0) { $0 &+ $1.0 &* $1.1 })
                        }
                    }
                    try await raw.close()
                default:
                    let container = try await (library as? StrataLibrary.Type ?? StrataLibrary.self).load(at: path)
                    defer { try? container.persistentStoreCoordinator.close() }
                    let context = container.newContext()
                    elapsed = try await measure {
                        for minimum in minimums {
                            let request = FetchRequest<StrataItem>(predicate: #Predicate { $0.score >= minimum })
                            let groups = try context.fetchGroups(of: request, by: \.i1, computing: .count)
                            checksums.append(groups.reduce(0) { $0 &+ $1.keys &* $1.values })
                        }
                    }
                }
                precondition(checksums == expected, "\(library.name) counted \(checksums.prefix(3)), expected \(expected.prefix(3))")
                if run > 0 { runs.append([elapsed.milliseconds]) }
            }
            record(.grouped, library: library, runs: runs, note: "\(executions) grouped counts over \(workload.rows) rows")
        }
    }
}
