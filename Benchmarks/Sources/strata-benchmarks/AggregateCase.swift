import Foundation
import GRDB
import StrataCore

// Case 12, aggregate: the sum of `i1` over the rows with `score >= x`, for
// `queryExecutions / 5` values of x, on a file of N rows. Each library the way
// its users would write it: raw SQLite's prepared `SELECT SUM`, GRDB's
// `Int.fetchOne`, Strata's `aggregate(.sum(\.i1), of:)`.

extension Runner {
    /// Libraries that can aggregate in the store.
    static var aggregateLibraries: [any BenchLibrary.Type] {
        [RawLibrary.self, GRDBRowLibrary.self, StrataLibrary.self, PostgresRawLibrary.self, StrataPostgresLibrary.self]
    }

    func aggregate() async throws {
        let rows = ItemRow.make(workload.rows)
        let executions = Swift.max(1, workload.queryExecutions / 5)
        let minimums = (0..<executions).map { Double($0) * 990 / Double(executions) }
        // What every library must find, computed from the rows themselves.
        let expected = minimums.map { minimum in rows.filter { $0.score >= minimum }.reduce(0) { $0 &+ $1.i1 } }
        for library in libraries where Self.aggregateLibraries.contains(where: { $0 == library }) {
            let directory = try ScratchDirectory("aggregate-\(library.name)")
            defer { directory.remove() }
            let path = directory.file()
            try await library.create(at: path, rows: rows)
            var runs: [[Double]] = []
            for run in 0...workload.runs {
                var sums: [Int] = []
                let elapsed: Duration
                switch library {
                case is RawLibrary.Type:
                    let connection = try RawConnection(path: path)
                    defer { connection.close() }
                    let statement = try connection.prepare("SELECT SUM(i1) FROM item WHERE score >= ?")
                    elapsed = try await measure {
                        for minimum in minimums {
                            statement.bind(minimum, at: 1)
                            _ = try statement.step()
                            sums.append(statement.int(0))
                            statement.reset()
                        }
                    }
                case is GRDBRowLibrary.Type:
                    let pool = try DatabasePool(path: path)
                    defer { try? pool.close() }
                    elapsed = try await measure {
                        try pool.read { db in
                            for minimum in minimums {
                                sums.append(try Int.fetchOne(db, sql: "SELECT SUM(i1) FROM item WHERE score >= ?", arguments: [minimum]) ?? 0)
                            }
                        }
                    }
                case is PostgresRawLibrary.Type:
                    let raw = try await PostgresRawLibrary.open(at: path)
                    elapsed = try await measure {
                        for minimum in minimums { sums.append(try await raw.sum(minimumScore: minimum)) }
                    }
                    try await raw.close()
                default:
                    let container = try await (library as? StrataLibrary.Type ?? StrataLibrary.self).load(at: path)
                    defer { try? container.persistentStoreCoordinator.close() }
                    let context = container.newContext()
                    elapsed = try await measure {
                        for minimum in minimums {
                            let request = FetchRequest<StrataItem>(predicate: #Predicate { $0.score >= minimum })
                            sums.append(try context.aggregate(.sum(\.i1), of: request))
                        }
                    }
                }
                precondition(sums == expected, "\(library.name) summed \(sums.prefix(3)), expected \(expected.prefix(3))")
                if run > 0 { runs.append([elapsed.milliseconds]) }
            }
            record(.aggregate, library: library, runs: runs, note: "\(executions) sums over \(workload.rows) rows")
        }
    }
}
