import Foundation
import StrataCore

// Case 19, batch: one batch insert of N rows into an empty store, one batch
// update setting every row's `i1`, one batch delete of every row; each step
// timed alone, in its own transaction, on what the step before left.

extension Runner {
    /// Libraries with batch writes: raw SQLite and raw postgres-nio statements, Strata's batch requests.
    static var batchLibraries: [any BenchLibrary.Type] {
        [RawLibrary.self, StrataLibrary.self, PostgresRawLibrary.self, StrataPostgresLibrary.self]
    }

    func batch() async throws {
        let rows = ItemRow.make(workload.rows)
        for library in libraries where Self.batchLibraries.contains(where: { $0 == library }) {
            let directory = try ScratchDirectory("batch-\(library.name)")
            defer { directory.remove() }
            var steps: [[[Double]]] = [[], [], []]
            for run in 0...workload.runs {
                let path = directory.file("run\(run).sqlite")
                let times: [Double] = switch library {
                case is RawLibrary.Type: try RawLibrary.batchSteps(rows, at: path)
                case is PostgresRawLibrary.Type: try await PostgresRawLibrary.batchSteps(rows, at: path)
                case is StrataPostgresLibrary.Type: try await StrataPostgresLibrary.batchSteps(rows, at: path)
                default: try await StrataLibrary.batchSteps(rows, at: path)
                }
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                if run > 0 { for (step, time) in times.enumerated() { steps[step].append([time]) } }
            }
            let note = "\(workload.rows) rows"
            record(.batch, library: library, runs: steps[0], name: "batch-insert", note: note)
            record(.batch, library: library, runs: steps[1], name: "batch-update", note: note)
            record(.batch, library: library, runs: steps[2], name: "batch-delete", note: note)
        }
    }
}

extension RawLibrary {
    /// A prepared insert bound row by row, then `UPDATE item SET i1 = ?` and `DELETE FROM item`.
    static func batchSteps(_ rows: [ItemRow], at path: String) throws -> [Double] {
        let connection = try RawConnection(path: path)
        defer { connection.close() }
        try connection.execute(ItemSchema.create)
        let insert = try connection.prepare(ItemSchema.insert)
        let inserted = try timed {
            try connection.transaction {
                for row in rows {
                    insert.bind(row)
                    _ = try insert.step()
                    insert.reset()
                }
            }
        }
        let update = try connection.prepare("UPDATE item SET i1 = ?")
        let updated = try timed {
            try connection.transaction {
                update.bind(7, at: 1)
                _ = try update.step()
                update.reset()
            }
        }
        let deleted = try timed { try connection.transaction { try connection.execute("DELETE FROM item") } }
        return [inserted, updated, deleted]
    }

    private static func timed(_ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        return (ContinuousClock.now - start).milliseconds
    }
}

extension StrataLibrary {
    /// `BatchInsertRequest`, `BatchUpdateRequest` and `BatchDeleteRequest` on a container.
    class func batchSteps(_ rows: [ItemRow], at path: String) async throws -> [Double] {
        if self == StrataPostgresLibrary.self { try BenchPostgres.destroy(path) }
        let container = try await load(at: path)
        defer { try? container.persistentStoreCoordinator.close() }
        let inserted = try await measure { _ = try container.execute(StrataItem.batch(rows)) }
        let updated = try await measure {
            _ = try container.execute(BatchUpdateRequest<StrataItem>(propertiesToUpdate: ["i1": 7]))
        }
        let deleted = try await measure { _ = try container.execute(BatchDeleteRequest<StrataItem>()) }
        if self == StrataPostgresLibrary.self { try BenchPostgres.destroy(path) }
        return [inserted.milliseconds, updated.milliseconds, deleted.milliseconds]
    }
}

/// The key paths of the item models' twelve attributes, for batch rows.
struct ItemKeyPaths<Model: PersistentModel> {
    let integers: [KeyPath<Model, Int>]
    let score: KeyPath<Model, Double>
    let name: KeyPath<Model, String>

    /// A batch row handler filling rows from `rows`, as an import would.
    func batch(_ rows: [ItemRow]) -> BatchInsertRequest<Model> {
        var remaining = rows[...]
        return BatchInsertRequest { row in
            guard let next = remaining.popFirst() else { return true }
            let values = [next.i0, next.i1, next.i2, next.i3, next.i4, next.i5, next.i6, next.i7, next.i8, next.i9]
            for (path, value) in zip(integers, values) { row[path] = value }
            row[score] = next.score
            row[name] = next.name
            return false
        }
    }
}

extension StrataItem {
    static func batch(_ rows: [ItemRow]) -> BatchInsertRequest<StrataItem> {
        ItemKeyPaths(
            integers: [\.i0, \.i1, \.i2, \.i3, \.i4, \.i5, \.i6, \.i7, \.i8, \.i9], score: \.score, name: \.name
        ).batch(rows)
    }
}
