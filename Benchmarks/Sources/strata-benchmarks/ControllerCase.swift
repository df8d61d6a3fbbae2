import Foundation
import GRDB
import StrataCore

// Case 17, controller: results of 10,000 rows in score order, kept current
// through 100 one-row changes, each committed and followed by the new list.
// Raw SQLite and GRDB update the row and run the ordered query again (what an
// app without a results controller does, GRDB's `ValueObservation` included);
// Strata changes the object, saves, and its `FetchedResultsController` updates
// its list from the change. `controller-refetch` is Strata fetching again instead.

extension Runner {
    /// Libraries that keep ordered results current.
    static var controllerLibraries: [any BenchLibrary.Type] { [RawLibrary.self, GRDBRowLibrary.self, StrataLibrary.self] }

    func controller() async throws {
        let count = Swift.max(1, workload.rows / 10)
        let changes = Swift.max(1, workload.queryExecutions)
        let rows = ItemRow.make(count)
        // Row k (1-based, cycling) gets score 1000 + step: it moves to the end each time.
        let updates = (0..<changes).map { step in (id: Int64(step % count + 1), score: 1_000 + Double(step)) }
        let query = "SELECT \(ItemSchema.columns) FROM item ORDER BY score, id"
        for library in libraries where Self.controllerLibraries.contains(where: { $0 == library }) {
            let directory = try ScratchDirectory("controller-\(library.name)")
            defer { directory.remove() }
            let path = directory.file()
            try await library.create(at: path, rows: rows)
            var runs: [[Double]] = [], refetchRuns: [[Double]] = []
            for run in 0...workload.runs {
                var lastIDs: [Int64] = []
                switch library {
                case is RawLibrary.Type:
                    // A fresh copy of the rows for each run: the updates move them.
                    try await library.create(at: path + "-\(run)", rows: rows)
                    let connection = try RawConnection(path: path + "-\(run)")
                    defer { connection.close() }
                    let update = try connection.prepare("UPDATE item SET score = ? WHERE id = ?")
                    let select = try connection.prepare(query)
                    let elapsed = try await measure {
                        for change in updates {
                            update.bind(change.score, at: 1)
                            update.bind(change.id, at: 2)
                            _ = try update.step()
                            update.reset()
                            var items: [ItemRow] = []
                            items.reserveCapacity(count)
                            while try select.step() { items.append(select.item()) }
                            select.reset()
                            lastIDs = items.map(\.id)
                        }
                    }
                    if run > 0 { runs.append([elapsed.milliseconds]) }
                case is GRDBRowLibrary.Type:
                    try await library.create(at: path + "-\(run)", rows: rows)
                    let pool = try DatabasePool(path: path + "-\(run)")
                    defer { try? pool.close() }
                    let elapsed = try await measure {
                        for change in updates {
                            try pool.write { db in
                                try db.execute(sql: "UPDATE item SET score = ? WHERE id = ?", arguments: [change.score, change.id])
                            }
                            let items = try pool.read { db in try ItemRowRecord.fetchAll(db, sql: query) }
                            lastIDs = items.map(\.row.id)
                        }
                    }
                    if run > 0 { runs.append([elapsed.milliseconds]) }
                default:
                    for refetch in [false, true] {
                        try await library.create(at: path + "-\(run)-\(refetch)", rows: rows)
                        let container = try await StrataLibrary.load(at: path + "-\(run)-\(refetch)")
                        defer { try? container.persistentStoreCoordinator.close() }
                        let context = container.newContext()
                        let request = FetchRequest<StrataItem>(sortBy: [SortDescriptor(\.score)])
                        let controller = FetchedResultsController(fetchRequest: request, context: context)
                        try controller.performFetch()
                        var byID: [Int64: StrataItem] = [:]
                        for object in controller.fetchedObjects { byID[object.objectID.primaryKey!] = object }
                        var results = controller.fetchedObjects
                        let elapsed = try await measure {
                            for change in updates {
                                byID[change.id]!.score = change.score
                                try context.save()
                                results = refetch ? try context.fetch(request) : controller.fetchedObjects
                            }
                        }
                        lastIDs = results.map { $0.objectID.primaryKey! }
                        if run > 0 { (refetch ? { refetchRuns.append([elapsed.milliseconds]) } : { runs.append([elapsed.milliseconds]) })() }
                    }
                }
                let expected = Self.controllerOrder(rows, updates)
                precondition(lastIDs == expected, "\(library.name) ended with \(lastIDs.prefix(5)), expected \(expected.prefix(5))")
            }
            record(.controller, library: library, runs: runs, note: "\(changes) changes over \(count) results")
            if library == StrataLibrary.self {
                record(.controller, library: library, runs: refetchRuns, name: "controller-refetch", note: "fetching again after each change")
            }
        }
    }

    /// The IDs in score order after the updates (ties by ID).
    private static func controllerOrder(_ rows: [ItemRow], _ updates: [(id: Int64, score: Double)]) -> [Int64] {
        var scores = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.score) })
        for change in updates { scores[change.id] = change.score }
        return scores.sorted { $0.value != $1.value ? $0.value < $1.value : $0.key < $1.key }.map(\.key)
    }
}
