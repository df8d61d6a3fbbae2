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

/// Every kind of store the suites run on: the three that need no server, and
/// PostgreSQL when `STRATA_POSTGRES_URL` names a server (`.ci/run` starts one),
/// each test in a schema of its own.
let testedStoreKinds: [StoreKind] = {
    guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"],
          let server = try? PostgresStoreDescription(url: url) else { return StoreKind.allCases }
    StoreKind.registerPostgres {
        var fresh = server
        fresh.schemaName = "test_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        return .postgres(fresh)
    }
    return StoreKind.allCases + [.postgres]
}()
