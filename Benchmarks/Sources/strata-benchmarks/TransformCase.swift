import Foundation
import GRDB
import GRDBSQLite
import StrataCore
import StrataSQLite

// Case 22, transform: N swatches whose color, a struct no store keeps, is
// stored as three bytes. Each library fetches every row and makes each
// color: raw SQLite from the blob it steps over, grdb-row through a
// `DatabaseValueConvertible` color in a `FetchableRecord`, Strata through an
// `AttributeTransformer` as it reads each object's `color`.

/// A color no store keeps as it is.
struct BenchColor: Sendable {
    var red: UInt8, green: UInt8, blue: UInt8

    init(red: UInt8, green: UInt8, blue: UInt8) { (self.red, self.green, self.blue) = (red, green, blue) }

    init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 3 else { return nil }
        self.init(red: bytes[0], green: bytes[1], blue: bytes[2])
    }

    var data: Data { Data([red, green, blue]) }
    var checksum: Int { Int(red) &+ Int(green) &* 3 &+ Int(blue) &* 7 }
}

/// Three bytes, red, green, blue.
struct BenchColorTransformer: AttributeTransformer {
    func transformedValue(_ color: BenchColor) -> Data { color.data }
    func reverseTransformedValue(_ data: Data) -> BenchColor? { data.withUnsafeBytes { BenchColor(bytes: $0) } }
}

/// A swatch, written by hand as `@Model` would expand `@Attribute(.transformable(by:))`.
final class BenchSwatch: PersistentModel {
    static let schemaProperties: [PropertyMetadata] = [
        .property("name", \BenchSwatch.name),
        .property(
            "color", \BenchSwatch.color, transformer: BenchColorTransformer.self, options: [.transformable],
            defaultValue: BenchColor(red: 0, green: 0, blue: 0)),
    ]
    let persistentBacking: ModelBacking
    init(backing: ModelBacking) { persistentBacking = backing }
    init(name: String, color: BenchColor) {
        persistentBacking = ModelBacking(for: BenchSwatch.self)
        persistentBacking.setInitialValue(name, at: 0, as: String.self)
        persistentBacking.setInitialValue(color, at: 1, as: BenchColor.self, by: BenchColorTransformer.self)
    }

    var name: String { persistentValue(at: 0, as: String.self) }
    var color: BenchColor { persistentValue(at: 1, as: BenchColor.self, by: BenchColorTransformer.self) }
}

extension BenchColor: DatabaseValueConvertible {
    var databaseValue: DatabaseValue { data.databaseValue }
    static func fromDatabaseValue(_ value: DatabaseValue) -> BenchColor? {
        Data.fromDatabaseValue(value).flatMap { data in data.withUnsafeBytes { BenchColor(bytes: $0) } }
    }
}

/// grdb-row's swatch: a positional record with a cached statement.
private struct SwatchRecord: FetchableRecord {
    let name: String
    let color: BenchColor
    init(row: Row) throws {
        name = row[0]
        color = row[1]
    }
}

extension Runner {
    private static let transformSchema = Schema(BenchSwatch.self)
    private static let swatchSQL = #"SELECT "name", "color" FROM "BenchSwatch" ORDER BY pk"#
    static var transformLibraries: [any BenchLibrary.Type] { [RawLibrary.self, GRDBRowLibrary.self, StrataLibrary.self] }

    func transform() async throws {
        let colors = (0..<workload.rows).map { (index: Int) -> BenchColor in
            let red = UInt8(truncatingIfNeeded: index), green = UInt8(truncatingIfNeeded: index >> 8)
            return BenchColor(red: red, green: green, blue: UInt8(index % 251))
        }
        let expected = colors.reduce(0) { $0 &+ $1.checksum }
        let directory = try ScratchDirectory("transform")
        defer { directory.remove() }
        let path = directory.file()
        do {
            let container = try PersistentContainer(name: "Bench", schema: Self.transformSchema)
            container.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: path))]
            try await container.loadPersistentStores()
            try container.perform { context in
                for (index, color) in colors.enumerated() { context.insert(BenchSwatch(name: "swatch \(index)", color: color)) }
                try context.save()
            }
            try container.persistentStoreCoordinator.close()
        }
        for library in libraries where Self.transformLibraries.contains(where: { $0 == library }) {
            var runs: [[Double]] = []
            for run in 0...workload.runs {
                var checksum = 0
                let elapsed: Duration
                switch library {
                case is RawLibrary.Type:
                    let connection = try RawConnection(path: path)
                    defer { connection.close() }
                    let statement = try connection.prepare(Self.swatchSQL)
                    elapsed = try await measure {
                        var swatches: [(String, BenchColor)] = []
                        while try statement.step() {
                            let bytes = UnsafeRawBufferPointer(
                                start: sqlite3_column_blob(statement.handle, 1), count: Int(sqlite3_column_bytes(statement.handle, 1)))
                            guard let color = BenchColor(bytes: bytes) else { throw RawError(message: "an unreadable color") }
                            swatches.append((statement.string(0), color))
                        }
                        statement.reset()
                        checksum = swatches.reduce(0) { $0 &+ $1.1.checksum }
                    }
                case is GRDBRowLibrary.Type:
                    let pool = try DatabasePool(path: path)
                    defer { try? pool.close() }
                    elapsed = try await measure {
                        let swatches = try pool.read { db in try SwatchRecord.fetchAll(db.cachedStatement(sql: Self.swatchSQL)) }
                        checksum = swatches.reduce(0) { $0 &+ $1.color.checksum }
                    }
                default:
                    let container = try PersistentContainer(name: "Bench", schema: Self.transformSchema)
                    container.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: path))]
                    try await container.loadPersistentStores()
                    defer { try? container.persistentStoreCoordinator.close() }
                    elapsed = try await measure {
                        let context = container.newContext()
                        checksum = try context.fetch(FetchRequest<BenchSwatch>()).reduce(0) { $0 &+ $1.color.checksum }
                    }
                }
                precondition(checksum == expected, "\(library.name) read checksum \(checksum), expected \(expected)")
                if run > 0 { runs.append([elapsed.milliseconds]) }
            }
            record(.transform, library: library, runs: runs, note: "\(workload.rows) colors through a transformer")
        }
    }
}
