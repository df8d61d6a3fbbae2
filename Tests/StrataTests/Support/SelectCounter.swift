import Foundation
import GRDB
@testable import StrataCore
@testable import StrataSQLite
import Testing

/// Counts the `SELECT`s a SQLite store in memory (one connection) runs.
final class SelectCounter: @unchecked Sendable {
    // @unchecked: the statements are only touched under `lock`.
    private let lock = NSLock()
    private var selects: [String] = []

    /// The number of `SELECT`s run since the counter was made.
    var value: Int { lock.withLock { selects.count } }

    /// The number of those whose text holds `fragment`.
    func count(containing fragment: String) -> Int {
        lock.withLock { selects.count { $0.contains(fragment) } }
    }

    /// One counter per store: a connection has one trace.
    init(_ container: PersistentContainer) throws {
        let store = try #require(try container.persistentStoreCoordinator.loadedStore() as? SQLiteStore)
        let writer = try #require(store.writer.writer)
        writer.writeWithoutTransaction { db in
            db.trace(options: .statement) { [self] event in
                let sql = "\(event)"
                guard sql.hasPrefix("SELECT") else { return }
                lock.withLock { selects.append(sql) }
            }
        }
    }
}
