import Foundation
import StrataCore

// Case 21, values: every row read into a `Sendable` struct of every attribute,
// N rows, without objects. Raw SQLite steps a statement into `ItemRow`s,
// grdb-row fetches its `FetchableRecord` struct with a cached statement, and
// Strata fetches a `ModelProjection` (what `@Projection` writes, by hand here
// as the benchmarks build without macros).

/// Every attribute of an item and its ID.
struct StrataItemValues: ModelProjection {
    static var projectedProperties: [PartialKeyPath<StrataItem>] {
        [\.i0, \.i1, \.i2, \.i3, \.i4, \.i5, \.i6, \.i7, \.i8, \.i9, \.score, \.name]
    }

    let id: ObjectID
    let i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int
    let score: Double
    let name: String

    /// As `@Projection` writes it: every value read, then every property set.
    init(reading row: inout ProjectionRow) throws(StrataError) {
        let id = row.objectID
        let i0 = try row.next(as: Int.self)
        let i1 = try row.next(as: Int.self)
        let i2 = try row.next(as: Int.self)
        let i3 = try row.next(as: Int.self)
        let i4 = try row.next(as: Int.self)
        let i5 = try row.next(as: Int.self)
        let i6 = try row.next(as: Int.self)
        let i7 = try row.next(as: Int.self)
        let i8 = try row.next(as: Int.self)
        let i9 = try row.next(as: Int.self)
        let score = try row.next(as: Double.self)
        let name = try row.next(as: String.self)
        self.id = id
        self.i0 = i0
        self.i1 = i1
        self.i2 = i2
        self.i3 = i3
        self.i4 = i4
        self.i5 = i5
        self.i6 = i6
        self.i7 = i7
        self.i8 = i8
        self.i9 = i9
        self.score = score
        self.name = name
    }

    var checksum: Int {
        i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 &+ Int(score) &+ name.utf8.count
    }
}

extension Runner {
    /// Libraries that read rows into values.
    static var valuesLibraries: [any BenchLibrary.Type] { [RawLibrary.self, GRDBRowLibrary.self, StrataLibrary.self] }

    func values() async throws {
        let rows = ItemRow.make(workload.rows)
        let expected = rows.reduce(0) { $0 &+ $1.checksum }
        for library in libraries where Self.valuesLibraries.contains(where: { $0 == library }) {
            let directory = try ScratchDirectory("values-\(library.name)")
            defer { directory.remove() }
            let path = directory.file()
            try await library.create(at: path, rows: rows)
            var runs: [[Double]] = []
            for run in 0...workload.runs {
                var checksum = 0
                let elapsed: Duration
                if library == StrataLibrary.self {
                    let container = try await StrataLibrary.load(at: path)
                    defer { try? container.persistentStoreCoordinator.close() }
                    let context = container.newContext()
                    elapsed = try await measure {
                        let values = try context.fetch(FetchRequest<StrataItem>(), as: StrataItemValues.self)
                        checksum = values.reduce(0) { $0 &+ $1.checksum }
                    }
                } else {
                    let instance = try await library.open(at: path)
                    elapsed = try await measure { checksum = try await instance.fetchAll() }
                    try await instance.close()
                }
                precondition(checksum == expected, "\(library.name) read \(checksum), expected \(expected)")
                if run > 0 { runs.append([elapsed.milliseconds]) }
            }
            record(.values, library: library, runs: runs, note: "\(workload.rows) rows into structs")
        }
    }
}
