import Foundation
import Strata
@testable import StrataPostgres
import StrataSQL
import Testing

/// The server the PostgreSQL tests use: `STRATA_POSTGRES_URL`, which `.ci/run`
/// sets after starting a throwaway cluster. Without it the tests that need a
/// server are skipped, saying why; with `STRATA_REQUIRE_POSTGRES=1` (as in CI)
/// a missing server fails them instead.
enum PostgresTestServer {
    static let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"]
    static let isRequired = ProcessInfo.processInfo.environment["STRATA_REQUIRE_POSTGRES"] == "1"

    /// Whether server tests run: a URL is set, or CI requires one (and then they fail without it).
    static var isAvailable: Bool { url != nil || isRequired }

    /// Whether the server runs on this machine (its processes can be signalled).
    static var isOnThisMachine: Bool {
        guard let url, let host = URLComponents(string: url)?.host else { return isRequired }
        return ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
    }

    static let skipReason: Comment =
        "no PostgreSQL server: set STRATA_POSTGRES_URL (postgres://user@host:port/database); .ci/run starts one"

    /// The server's description with its own schema, so tests do not meet each other's tables.
    static func description(schema: String = "test_\(UUID().uuidString.prefix(8).lowercased())") throws -> PostgresStoreDescription {
        let url = try #require(url, "STRATA_REQUIRE_POSTGRES is set but STRATA_POSTGRES_URL is not")
        var description = try PostgresStoreDescription(url: url)
        description.schemaName = schema
        return description
    }
}

extension PostgresTestServer {
    /// Drops a test's schema with everything in it.
    static func drop(_ description: PostgresStoreDescription) throws {
        let pool = try PostgresConnectionPool(description: description)
        defer { pool.close() }
        _ = try pool.withSession { session throws(StrataError) in
            try session.execute("DROP SCHEMA IF EXISTS \(quote(description.schemaName)) CASCADE")
        }
    }
}
