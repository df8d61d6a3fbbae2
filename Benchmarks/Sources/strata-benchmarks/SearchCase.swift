import Foundation
import GRDB
import GRDBSQLite
import StrataCore

// Case 13, search: how many rows' names contain a text regardless of case and
// diacritics, for `queryExecutions / 5` searches over N rows, a third of whose
// names are not ASCII ("Élément 12 Straße"). Every library folds with the same
// rule (Unicode case folding without diacritics, an ASCII fast path): raw SQLite
// and GRDB register it as a SQL function `fold` and run
// `SELECT COUNT(*) FROM item WHERE instr(fold(name), ?) > 0`; Strata counts
// `#Predicate { $0.name.folded.contains(needle) }`. No index can serve a
// containment test, so each search reads every row.

extension Runner {
    /// Libraries that search in the store.
    static var searchLibraries: [any BenchLibrary.Type] { [RawLibrary.self, GRDBRowLibrary.self, StrataLibrary.self] }

    func search() async throws {
        let rows = ItemRow.make(workload.rows).map { row in
            var row = row
            if row.id % 3 == 0 { row.name = "Élément \(row.id) Straße" }
            return row
        }
        let executions = Swift.max(1, workload.queryExecutions / 5)
        let needles = (0..<executions).map { index in
            [("STRASSE \(index)"), ("ÉLÉMENT \(index * 7)"), ("item \(index)1")][index % 3].folded
        }
        let expected = needles.map { needle in rows.count { benchFold($0.name).contains(needle) } }
        for library in libraries where Self.searchLibraries.contains(where: { $0 == library }) {
            let directory = try ScratchDirectory("search-\(library.name)")
            defer { directory.remove() }
            let path = directory.file()
            try await library.create(at: path, rows: rows)
            var runs: [[Double]] = []
            for run in 0...workload.runs {
                var counts: [Int] = []
                let elapsed: Duration
                let sql = "SELECT COUNT(*) FROM item WHERE instr(fold(name), ?) > 0"
                switch library {
                case is RawLibrary.Type:
                    let connection = try RawConnection(path: path)
                    defer { connection.close() }
                    sqlite3_create_function_v2(
                        connection.handle, "fold", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, rawFold, nil, nil, nil)
                    let statement = try connection.prepare(sql)
                    elapsed = try await measure {
                        for needle in needles {
                            statement.bind(needle, at: 1)
                            _ = try statement.step()
                            counts.append(statement.int(0))
                            statement.reset()
                        }
                    }
                case is GRDBRowLibrary.Type:
                    let pool = try DatabasePool(path: path, configuration: .folding(as: "fold"))
                    defer { try? pool.close() }
                    elapsed = try await measure {
                        try pool.read { db in
                            for needle in needles {
                                counts.append(try Int.fetchOne(db, sql: sql, arguments: [needle]) ?? 0)
                            }
                        }
                    }
                default:
                    let container = try await StrataLibrary.load(at: path)
                    defer { try? container.persistentStoreCoordinator.close() }
                    let context = container.newContext()
                    elapsed = try await measure {
                        for needle in needles {
                            let request = FetchRequest<StrataItem>(predicate: #Predicate { $0.name.folded.contains(needle) })
                            counts.append(try context.fetchCount(request))
                        }
                    }
                }
                precondition(counts == expected, "\(library.name) counted \(counts.prefix(3)), expected \(expected.prefix(3))")
                if run > 0 { runs.append([elapsed.milliseconds]) }
            }
            record(.search, library: library, runs: runs, note: "\(executions) searches over \(workload.rows) rows")
        }
    }
}

/// The folding every library applies: ASCII lower-cased directly, other text
/// by Foundation's case and diacritic folding, composed.
func benchFold(_ text: String) -> String {
    guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).precomposedStringWithCanonicalMapping
    }
    return String(decoding: text.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 0x20 : $0 }, as: UTF8.self)
}

extension Configuration {
    /// A GRDB configuration whose connections have `benchFold` as the SQL function `name`.
    static func folding(as name: String) -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(function: DatabaseFunction(name, argumentCount: 1, pure: true) { values in
                String.fromDatabaseValue(values[0]).map(benchFold)
            })
        }
        return configuration
    }
}

/// `fold(text)` for the raw SQLite connection.
let rawFold: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
    guard let value = arguments?[0], sqlite3_value_type(value) == SQLITE_TEXT, let text = sqlite3_value_text(value) else {
        sqlite3_result_null(context)
        return
    }
    let folded = benchFold(String(cString: text))
    sqlite3_result_text(context, folded, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
}
