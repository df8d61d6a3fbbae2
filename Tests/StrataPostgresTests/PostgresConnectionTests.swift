import Foundation
import Strata
@testable import StrataPostgres
import Testing

/// Connection URLs: every part read, anything unreadable refused with a reason.
@Suite("PostgreSQL store descriptions")
struct PostgresStoreDescriptionTests {
    @Test
    func aURLGivesEveryPart() throws {
        let description = try PostgresStoreDescription(
            url: "postgresql://app%40web:s%3Acret@db.internal:6543/library?schema=books&sslmode=require&pool=16"
                + "&migration_lock_timeout=750ms&migration_attempts=9&listener_check=2s&query_timeout=30s")
        #expect(description.host == "db.internal")
        #expect(description.port == 6543)
        #expect(description.database == "library")
        #expect(description.username == "app@web")
        #expect(description.password == "s:cret")
        #expect(description.schemaName == "books")
        #expect(description.tls == .require)
        #expect(description.maximumConnections == 16)
        #expect(description.migrationLockTimeout == .milliseconds(750))
        #expect(description.migrationAttempts == 9)
        #expect(description.listenerCheckInterval == .seconds(2))
        #expect(description.queryTimeout == .seconds(30))
        #expect(try PostgresStoreDescription(url: "postgres://u@h/d?query_timeout=none").queryTimeout == nil)
        #expect(try PostgresStoreDescription(url: "postgres://u@h/d?migration_lock_timeout=2s").migrationLockTimeout == .seconds(2))

        let plain = try PostgresStoreDescription(url: "postgres://strata@localhost/strata")
        #expect(plain.port == 5432 && plain.password == nil && plain.schemaName == "public" && plain.tls == .prefer)
        #expect(plain.migrationLockTimeout == .seconds(5) && plain.migrationAttempts == 5)
        #expect(plain.listenerCheckInterval == .seconds(15))
        #expect(plain.queryTimeout == .seconds(60))
    }

    @Test(arguments: [
        ("mysql://u@h/d", "does not start with postgres://"),
        ("postgres://h/d", "names no user"),
        ("postgres://u@h", "names no database"),
        ("postgres://u:secret@h/d?schema=pg_catalog", "schema name"),
        ("postgres://u@h/d?schema=two%20words", "schema name"),
        ("postgres://u@h/d?sslmode=verify", "sslmode"),
        ("postgres://u@h/d?pool=0", "pool"),
        ("postgres://u@h/d?migration_lock_timeout=5", "migration_lock_timeout"),
        ("postgres://u@h/d?migration_lock_timeout=0s", "migration_lock_timeout"),
        ("postgres://u@h/d?migration_attempts=0", "migration_attempts"),
        ("postgres://u@h/d?listener_check=often", "listener_check"),
        ("postgres://u@h/d?query_timeout=0ms", "query_timeout"),
        ("postgres://u@h/d?query_timeout=never", "query_timeout"),
        ("postgres://u@h/d?timeout=5", "does not know: timeout"),
    ])
    func anUnreadableURLIsRefusedWithTheReason(_ url: String, _ reason: String) {
        let error = #expect(throws: StrataError.self) { try PostgresStoreDescription(url: url) }
        #expect(error?.code == .invalidStoreLocation)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("secret") == false)
    }
}

/// The store reaches a real server and keeps its tables in its own namespace.
@Suite("PostgreSQL connections", .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresConnectionTests {
    @Test
    func aStoreIsCreatedOnceAndSharedByItsSchemaName() throws {
        let description = try PostgresTestServer.description()
        let schema = Schema(PgNote.self)
        let first = try PostgresStore(description: description, schema: schema, readOnly: false, options: StoreOptions())
        let second = try PostgresStore(description: description, schema: schema, readOnly: false, options: StoreOptions())
        #expect(first.identifier == second.identifier)
        try first.close()
        try second.close()
        try PostgresTestServer.drop(description)
    }

    @Test
    func aServerThatRefusesFailsWithPostgresReason() throws {
        var description = try PostgresTestServer.description()
        description.database = "no_such_database_\(UUID().uuidString.prefix(6).lowercased())"
        let error = #expect(throws: StrataError.self) {
            try PostgresStore(description: description, schema: Schema(PgNote.self), readOnly: false, options: StoreOptions())
        }
        #expect(error?.code == .postgres)
        #expect(error?.message.contains("does not exist") == true, "\(error?.message ?? "")")
    }

    @Test
    func aStoreOfAnotherSchemaIsRefusedAndLeftAlone() throws {
        let description = try PostgresTestServer.description()
        let store = try PostgresStore(description: description, schema: Schema(PgNote.self), readOnly: false, options: StoreOptions())
        try store.close()
        let error = #expect(throws: StrataError.self) {
            try PostgresStore(description: description, schema: Schema(PgTag.self), readOnly: false, options: StoreOptions())
        }
        #expect(error?.code == .incompatibleStore)
        let reopened = try PostgresStore(description: description, schema: Schema(PgNote.self), readOnly: false, options: StoreOptions())
        #expect(reopened.identifier == store.identifier)
        try reopened.close()
        try PostgresTestServer.drop(description)
    }
}

@Model final class PgNote {
    var text: String
    init(text: String) { self.text = text }
}

@Model final class PgTag {
    var name: String
    init(name: String) { self.name = name }
}

@Suite("PostgreSQL numbers", .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresNumericTests {
    /// Each numeric cell the server sends, as Strata reads it.
    private func read(_ literals: [String]) throws -> [Result<StoredValue, StrataError>] {
        let pool = try PostgresConnectionPool(description: try PostgresTestServer.description())
        defer { pool.close() }
        return try pool.withSession { session throws(StrataError) in
            var values: [Result<StoredValue, StrataError>] = []
            for literal in literals {
                let rows = try session.rows("SELECT \(literal)::numeric AS n")
                for row in rows {
                    for cell in row {
                        do throws(StrataError) {
                            values.append(.success(try PostgresSession.value(cell)))
                        } catch {
                            values.append(.failure(error))
                        }
                    }
                }
            }
            return values
        }
    }

    @Test
    func numericCellsReadAsTheirDecimalText() throws {
        let literals = ["12345.678", "-0.0001", "0", "100000000", "0.00000000000000000001", "'123456789012345678901234567890.5'", "10.50"]
        let expected = ["12345.678", "-0.0001", "0", "100000000", "0.00000000000000000001", "123456789012345678901234567890.5", "10.5"]
        let values = try read(literals).map { try $0.get() }
        #expect(values == expected.map { StoredValue.text($0) })
    }

    @Test
    func numericCellsBeyondDecimalAreATypedError() throws {
        let values = try read(["'NaN'", "'Infinity'", "'-Infinity'", "1e200", "'1e-200'", "power(10::numeric, 131000)"])
        for value in values {
            guard case .failure(let error) = value else {
                Issue.record("read \(value) where an error was expected")
                continue
            }
            #expect(error.code == .corruptStore)
        }
        #expect(values.count == 6)
    }
}

@Suite("PostgreSQL statement sizes")
struct PostgresStatementSizeTests {
    private func rows(_ sizes: [Int]) -> [[StoredValue]] {
        sizes.map { [.integer(1), .blob(Data(count: $0))] }
    }

    @Test
    func rowsAreSplitByCountAndBytes() throws {
        let chunks = try PostgresSession.chunks(of: rows([40, 40, 40, 10, 10, 10, 10, 100, 5])[...], maximumRows: 3, byteBudget: 100)
        #expect(chunks == [0..<2, 2..<5, 5..<7, 7..<8, 8..<9])
    }

    @Test
    func aRowOverTheBudgetGoesAloneAndOneOverTwoGigabytesIsRefused() throws {
        #expect(try PostgresSession.chunks(of: rows([10, 500, 10])[...], maximumRows: 10, byteBudget: 100) == [0..<1, 1..<2, 2..<3])
        // Pages of zeros the system maps on first touch: nothing is written here.
        let huge: [[StoredValue]] = [[.blob(Data(count: 1_100_000_000)), .blob(Data(count: 1_100_000_000))]]
        let error = #expect(throws: StrataError.self) { try PostgresSession.chunks(of: huge[...], maximumRows: 10) }
        #expect(error?.code == .postgres)
    }

    @Test
    func aColumnOfMoreBytesThanAStatementCarriesIsNotOneArray() {
        let small = [StoredValue](repeating: .blob(Data(count: 1_000)), count: 10)
        #expect(PostgresColumnArray(sqlType: "bytea", values: small) != nil)
        let large = [StoredValue](repeating: .blob(Data(count: 100_000_000)), count: 3)
        #expect(PostgresColumnArray(sqlType: "bytea", values: large) == nil)
    }
}
