import Foundation
import GRDB
import GRDBSQLite
import StrataCore
import StrataSQLite

// Case 13, search-prefix: how many names start with a text regardless of case
// and diacritics, for `queryExecutions / 5` prefixes over N names, with an index
// on the folded names. Strata declares it as `#Index([\.name.folded])`; raw
// SQLite and GRDB read the same file, registering the same `strata_fold`
// function, and count `strata_fold(name)` in the prefix's range.

/// A name to search, with its folded form indexed, written by hand as `@Model` would expand it.
final class SearchEntry: PersistentModel {
    static let schemaProperties: [PropertyMetadata] = [.property("name", \SearchEntry.name)]
    static var indexes: [[String]] { [["name.folded"]] }
    let persistentBacking: ModelBacking
    init(backing: ModelBacking) { persistentBacking = backing }
    init(name: String) {
        persistentBacking = ModelBacking(for: SearchEntry.self)
        persistentBacking.setInitialValue(name, at: 0, as: String.self)
    }

    var name: String { persistentValue(at: 0, as: String.self) }
}

extension Runner {
    private static let searchSchema = Schema(SearchEntry.self)
    private static let prefixSQL = """
        SELECT COUNT(*) FROM "SearchEntry" WHERE strata_fold("name") >= ?1 AND strata_fold("name") < ?1 || CAST(X'F5' AS TEXT)
        """

    func searchPrefix() async throws {
        let names = (1...workload.rows).map { $0 % 3 == 0 ? "Élément \($0) Straße" : "item \($0)" }
        let executions = Swift.max(1, workload.queryExecutions / 5)
        let prefixes = (0..<executions).map { index in ["ÉLÉMENT \(index * 3)", "ITEM \(index)7", "item 1\(index)"][index % 3].folded }
        let expected = prefixes.map { prefix in names.count { benchFold($0).unicodeScalars.starts(with: prefix.unicodeScalars) } }
        let directory = try ScratchDirectory("search-prefix")
        defer { directory.remove() }
        let path = directory.file()
        do {
            let container = try PersistentContainer(name: "Bench", schema: Self.searchSchema)
            container.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: path))]
            try await container.loadPersistentStores()
            try container.perform { context in
                for name in names { context.insert(SearchEntry(name: name)) }
                try context.save()
            }
            try container.persistentStoreCoordinator.close()
        }
        for library in libraries where Self.searchLibraries.contains(where: { $0 == library }) {
            var runs: [[Double]] = []
            for run in 0...workload.runs {
                var counts: [Int] = []
                let elapsed: Duration
                switch library {
                case is RawLibrary.Type:
                    let connection = try RawConnection(path: path)
                    defer { connection.close() }
                    sqlite3_create_function_v2(
                        connection.handle, "strata_fold", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, rawFold, nil, nil, nil)
                    let statement = try connection.prepare(Self.prefixSQL)
                    elapsed = try await measure {
                        for prefix in prefixes {
                            statement.bind(prefix, at: 1)
                            _ = try statement.step()
                            counts.append(statement.int(0))
                            statement.reset()
                        }
                    }
                case is GRDBRowLibrary.Type:
                    let pool = try DatabasePool(path: path, configuration: .folding(as: "strata_fold"))
                    defer { try? pool.close() }
                    elapsed = try await measure {
                        try pool.read { db in
                            for prefix in prefixes {
                                counts.append(try Int.fetchOne(db.cachedStatement(sql: Self.prefixSQL), arguments: [prefix]) ?? 0)
                            }
                        }
                    }
                default:
                    let container = try PersistentContainer(name: "Bench", schema: Self.searchSchema)
                    container.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: path))]
                    try await container.loadPersistentStores()
                    defer { try? container.persistentStoreCoordinator.close() }
                    let context = container.newContext()
                    elapsed = try await measure {
                        for prefix in prefixes {
                            let request = FetchRequest<SearchEntry>(predicate: #Predicate { $0.name.folded.starts(with: prefix) })
                            counts.append(try context.fetchCount(request))
                        }
                    }
                }
                precondition(counts == expected, "\(library.name) counted \(counts.prefix(3)), expected \(expected.prefix(3))")
                if run > 0 { runs.append([elapsed.milliseconds]) }
            }
            record(.searchPrefix, library: library, runs: runs, note: "\(executions) indexed prefix searches over \(workload.rows) names")
        }
    }
}
