import Foundation
import Synchronization
import StrataCore
import StrataSQLite

/// Strata on its pure-Swift in-memory store (`StoreDescription.memory()`), the
/// same code as ``StrataLibrary`` otherwise. A memory store has no file: the
/// rows a case asks to create are kept here by path and inserted (untimed)
/// when the case opens it.
final class StrataMemoryLibrary: StrataLibrary {
    override class var name: String { "strata-memory" }
    private static let pending = Mutex<[String: [ItemRow]]>([:])

    override class func load(at path: String) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Bench", schema: schema)
        container.storeDescriptions = [.memory()]
        try await container.loadPersistentStores()
        return container
    }

    override class func create(at path: String, rows: [ItemRow]) async throws {
        pending.withLock { $0[path] = rows }
    }

    override class func open(at path: String) async throws -> Self {
        let container = try await load(at: path)
        let rows = pending.withLock { $0[path] ?? [] }
        try insert(rows, into: container)
        return Self(container: container)
    }
}
