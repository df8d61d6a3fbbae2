@_exported import StrataTesting
import Foundation
import Strata
import StrataPostgres

// The suite uses StrataTesting's helpers; most tests run on the library models.

extension TestStack {
    /// A fresh stack over the library models.
    init(_ kind: StoreKind) async throws {
        try await self.init(kind, schema: librarySchema)
    }
}

/// The test server's URL, when `STRATA_POSTGRES_URL` names one (`.ci/run` starts one).
let postgresTestServerURL = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"]

/// The test server, when there is one.
let postgresTestServer: PostgresStoreDescription? = postgresTestServerURL.flatMap { try? PostgresStoreDescription(url: $0) }

/// The server's description of the store a test keeps at `url`: a schema
/// named after the path, so closing and opening it again finds the same store.
func postgresServer(for url: URL) -> PostgresStoreDescription? {
    guard var server = postgresTestServer else { return nil }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in url.path.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    server.schemaName = "test_" + String(hash, radix: 16)
    return server
}

/// Every kind of store the suites run on: the three that need no server, and
/// PostgreSQL when `STRATA_POSTGRES_URL` names a server, each test in a
/// schema of its own.
let testedStoreKinds: [StoreKind] = {
    guard postgresTestServer != nil else { return StoreKind.allCases }
    StoreKind.registerPostgres { url in
        // Registered only with a server, so there is one.
        .postgres(postgresServer(for: url) ?? PostgresStoreDescription(host: "localhost", database: "strata", username: "strata"))
    }
    return StoreKind.allCases + [.postgres]
}()

/// The kinds of store that outlive their container, so a test can open one
/// again with another schema: a SQLite file, and PostgreSQL when there is a server.
let persistentStoreKinds: [StoreKind] = testedStoreKinds.contains(.postgres) ? [.file, .postgres] : [.file]

/// A loaded container of `model` over the store of `kind` at `url`: how a
/// test opens one store with several schema versions in turn.
func loadedContainer(
    at url: URL, _ kind: StoreKind, _ model: any PersistentModel.Type, name: String
) async throws -> PersistentContainer {
    let container = try PersistentContainer(name: name, schema: Schema(model))
    container.storeDescriptions = [kind.description(url)]
    try await container.loadPersistentStores()
    return container
}
