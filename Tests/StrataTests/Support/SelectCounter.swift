import Foundation
import GRDB
@testable import StrataCore
import Testing

/// Counts the `SELECT`s a SQLite store in memory (one connection) runs.
final class SelectCounter: @unchecked Sendable {
    // @unchecked: the count is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    init(_ container: PersistentContainer) throws {
        let store = try #require(try container.persistentStoreCoordinator.loadedStore() as? SQLiteStore)
        let writer = try #require(store.writer.writer)
        writer.writeWithoutTransaction { db in
            db.trace(options: .statement) { [self] event in
                guard "\(event)".hasPrefix("SELECT") else { return }
                lock.withLock { count += 1 }
            }
        }
    }
}
