import Foundation
import Logging
import Strata
import Testing

/// The kinds of store a test can run against: SQLite in memory, a SQLite
/// file in a temporary folder, the pure-Swift in-memory store, and a
/// PostgreSQL schema. Pass `StoreKind.allCases` (the three that need no
/// server) as a test's arguments to run it on each.
///
/// PostgreSQL needs the `StrataPostgres` product, which this library does not
/// link: a test target that links it registers how to describe a fresh
/// PostgreSQL store with `registerPostgres(_:)`, then adds `.postgres` to
/// its arguments.
///
/// ```swift
/// @Test(arguments: StoreKind.allCases)
/// func savedBooksCanBeFetched(_ kind: StoreKind) async throws {
///     let stack = try await TestStack(kind, schema: Schema(Book.self))
///     // …
/// }
/// ```
public enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory
    case file
    case memory
    case postgres

    /// The kinds that need no server: SQLite in memory, a SQLite file, the in-memory store.
    public static var allCases: [StoreKind] {
        #if SQLite
        [.inMemory, .file, .memory]
        #else
        [.memory]
        #endif
    }

    private static let postgresDescriptions = Locked<(@Sendable (URL) -> StoreDescription)?>(nil)

    /// Says how `.postgres` describes a fresh store (a new schema on a test
    /// server, typically `StoreDescription.postgres(_:)`).
    ///
    /// ```swift
    /// StoreKind.registerPostgres {
    ///     var server = try! PostgresStoreDescription(url: testServerURL)
    ///     server.schemaName = "test_\(UUID().uuidString.prefix(8).lowercased())"
    ///     return .postgres(server)
    /// }
    /// ```
    public static func registerPostgres(_ describe: @escaping @Sendable () -> StoreDescription) {
        registerPostgres { _ in describe() }
    }

    /// Says how `.postgres` describes the store of a test's file location:
    /// the same URL must give the same schema, so a test can close its
    /// container and open the store again (with another version of its
    /// schema, to migrate it).
    ///
    /// ```swift
    /// StoreKind.registerPostgres { url in
    ///     var server = try! PostgresStoreDescription(url: testServerURL)
    ///     server.schemaName = "test_\(UInt(bitPattern: url.path.hashValue))"   // stable within the process
    ///     return .postgres(server)
    /// }
    /// ```
    public static func registerPostgres(_ describe: @escaping @Sendable (URL) -> StoreDescription) {
        postgresDescriptions.withLock { $0 = describe }
    }

    /// The description of a new store of this kind (`url` is used by files only).
    public func description(_ url: URL) -> StoreDescription {
        switch self {
        #if SQLite
        case .inMemory: .inMemory()
        case .file: StoreDescription(url: url)
        #else
        case .inMemory, .file: Self.unavailable("StoreKind.\(self) needs Strata's SQLite trait")
        #endif
        case .memory: .memory()
        case .postgres: Self.postgresDescriptions.withLock { $0 }?(url) ?? Self.unavailable(
            "StoreKind.postgres needs StoreKind.registerPostgres(_:) from a target that links StrataPostgres")
        }
    }

    /// A description whose loading fails, saying what is missing.
    private static func unavailable(_ reason: String) -> StoreDescription {
        StoreDescription(type: StoreDescription.StoreType(name: "unavailable", opener: StoreOpener { _, _, _ throws(StrataError) in
            throw StrataError(.storeNotLoaded, reason)
        }))
    }

    public var testDescription: String { rawValue }
}

/// A temporary folder, removed with everything in it when the value is released.
///
/// ```swift
/// let directory = TemporaryDirectory()
/// let url = directory.file("Library.sqlite")
/// ```
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A file in the folder.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A loaded container over a fresh store of one kind, for one test; a file
/// store lives in a temporary folder that goes with the stack.
///
/// ```swift
/// let stack = try await TestStack(.file, schema: Schema(Author.self, Book.self))
/// let context = stack.container.newContext()
/// let relaunched = try await stack.reopened()
/// ```
public struct TestStack: Sendable {
    public let container: PersistentContainer
    public let directory: TemporaryDirectory

    /// `configure` adjusts the store's description first (history, remote
    /// changes); the container logs through `logger`.
    /// The stack is made in the caller's isolation, so a main-actor test's
    /// closure needs not be `Sendable`.
    nonisolated(nonsending) public init(
        _ kind: StoreKind, schema: Schema, name: String = "Test", logger: Logger = Logger(label: "strata"),
        configure: (inout StoreDescription) -> Void = { _ in }
    ) async throws {
        directory = TemporaryDirectory()
        container = try PersistentContainer(name: name, schema: schema, logger: logger)
        var description = kind.description(directory.file("\(name).sqlite"))
        configure(&description)
        container.storeDescriptions = [description]
        try await container.loadPersistentStores()
    }

    /// A second container over the same file (file stores only), as after a
    /// relaunch, with the same schema or another version of it.
    public func reopened(schema: Schema? = nil) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Reopened", schema: schema ?? self.container.schema)
        container.storeDescriptions = self.container.storeDescriptions
        try await container.loadPersistentStores()
        return container
    }
}

extension PersistentContainer {
    /// A loaded container over a new store held in memory, in one line.
    ///
    /// ```swift
    /// let container = try await PersistentContainer.inMemory(Author.self, Book.self)
    /// ```
    public static func inMemory(_ models: any PersistentModel.Type..., name: String = "Test") async throws -> PersistentContainer {
        let container = try PersistentContainer(name: name, schema: Schema(models))
        #if SQLite
        container.storeDescriptions = [.inMemory()]
        #else
        container.storeDescriptions = [.memory()]
        #endif
        try await container.loadPersistentStores()
        return container
    }
}
