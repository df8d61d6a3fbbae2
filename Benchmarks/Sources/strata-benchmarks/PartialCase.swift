import Foundation
import GRDB
import StrataCore

// Case 15, partial: two properties of every row as dictionaries keyed by
// property name (Core Data's dictionary result type), N rows. Raw SQLite reads
// `SELECT i1, name FROM item ORDER BY pk` into `[String: Any]`, GRDB into its
// `Row` values (`Row.fetchAll`), Strata through `fetchProperties`.

extension Runner {
    /// Libraries that read chosen columns without records or objects.
    static var partialLibraries: [any BenchLibrary.Type] { [RawLibrary.self, GRDBRowLibrary.self, StrataLibrary.self] }

    func partial() async throws {
        let rows = ItemRow.make(workload.rows)
        let expected = rows.reduce(0) { $0 &+ $1.i1 &+ $1.name.utf8.count }
        let sql = "SELECT i1, name FROM item ORDER BY id"
        for library in libraries where Self.partialLibraries.contains(where: { $0 == library }) {
            let directory = try ScratchDirectory("partial-\(library.name)")
            defer { directory.remove() }
            let path = directory.file()
            try await library.create(at: path, rows: rows)
            var runs: [[Double]] = []
            for run in 0...workload.runs {
                var checksum = 0
                let elapsed: Duration
                switch library {
                case is RawLibrary.Type:
                    let connection = try RawConnection(path: path)
                    defer { connection.close() }
                    let statement = try connection.prepare(sql)
                    elapsed = try await measure {
                        var result: [[String: Any]] = []
                        result.reserveCapacity(rows.count)
                        while try statement.step() {
                            result.append(["i1": statement.int(0), "name": statement.string(1)])
                        }
                        statement.reset()
                        checksum = result.reduce(0) { $0 &+ ($1["i1"] as! Int) &+ ($1["name"] as! String).utf8.count }
                    }
                case is GRDBRowLibrary.Type:
                    let pool = try DatabasePool(path: path)
                    defer { try? pool.close() }
                    elapsed = try await measure {
                        let result = try pool.read { db in try Row.fetchAll(db, sql: sql) }
                        checksum = result.reduce(0) { $0 &+ ($1["i1"] as Int) &+ ($1["name"] as String).utf8.count }
                    }
                default:
                    let container = try await StrataLibrary.load(at: path)
                    defer { try? container.persistentStoreCoordinator.close() }
                    let context = container.newContext()
                    elapsed = try await measure {
                        let result = try context.fetchProperties([\StrataItem.i1, \StrataItem.name], of: FetchRequest<StrataItem>())
                        checksum = result.reduce(0) { $0 &+ ($1["i1"] as! Int) &+ ($1["name"] as! String).utf8.count }
                    }
                }
                precondition(checksum == expected, "\(library.name) read \(checksum), expected \(expected)")
                if run > 0 { runs.append([elapsed.milliseconds]) }
            }
            record(.partial, library: library, runs: runs, note: "2 properties of \(workload.rows) rows")
        }
    }
}
