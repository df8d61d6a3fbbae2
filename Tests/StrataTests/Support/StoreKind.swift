import Foundation
import Strata
import Testing

/// The store flavours every store-touching test runs against: SQLite in
/// memory, a SQLite file, and the pure-Swift in-memory store.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory
    case file
    case memory

    /// The description of a new store of this kind (`url` for files).
    func description(_ url: URL) -> StoreDescription {
        switch self {
        case .inMemory: .inMemory()
        case .file: StoreDescription(url: url)
        case .memory: .memory()
        }
    }

    var testDescription: String { rawValue }
}

/// A temporary folder removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A loaded container over a fresh store of the given kind.
struct TestStack: Sendable {
    let container: PersistentContainer
    let directory: TemporaryDirectory

    init(_ kind: StoreKind, schema: Schema = librarySchema, name: String = "Test") async throws {
        directory = TemporaryDirectory()
        container = try PersistentContainer(name: name, schema: schema)
        container.storeDescriptions = [kind.description(directory.file("\(name).sqlite"))]
        try await container.loadPersistentStores()
    }

    /// A second container over the same file (file stores only), as after a relaunch.
    func reopened(schema: Schema = librarySchema) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Reopened", schema: schema)
        container.storeDescriptions = self.container.storeDescriptions
        try await container.loadPersistentStores()
        return container
    }
}

/// Waits on the main actor until `condition` holds, up to `timeout`.
@MainActor
func eventually(timeout: Duration = .seconds(5), _ condition: () throws -> Bool) async rethrows -> Bool {
    let start = ContinuousClock.now
    while ContinuousClock.now - start < timeout {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return try condition()
}
