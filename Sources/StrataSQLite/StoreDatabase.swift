import StrataCore
import GRDB

/// How a SQLite store reaches its database: through GRDB's pool or queue, or,
/// while a migration runs, through the one connection the migration holds
/// inside its transaction, so the contexts of a custom migration stage read
/// and save inside that transaction too.
///
/// ```swift
/// let count = try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Note") }
/// ```
struct StoreDatabase: @unchecked Sendable {
    // @unchecked: a migration's connection is only used inside the migration's
    // closure, on the thread that runs it; GRDB writers are Sendable.
    private enum Access {
        case writer(any DatabaseWriter)
        case migration(Database)
    }

    private let access: Access

    init(_ writer: any DatabaseWriter) { access = .writer(writer) }

    /// A migration's connection, inside its transaction.
    init(migrating db: Database) { access = .migration(db) }

    /// The GRDB writer, except during a migration.
    var writer: (any DatabaseWriter)? {
        if case .writer(let writer) = access { return writer }
        return nil
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        switch access {
        case .writer(let writer): try writer.read(body)
        case .migration(let db): try body(db)
        }
    }

    /// A read without a transaction of its own (one statement is one snapshot).
    func unsafeRead<T>(_ body: (Database) throws -> T) throws -> T {
        switch access {
        case .writer(let writer): try writer.unsafeRead(body)
        case .migration(let db): try body(db)
        }
    }

    /// A write in a transaction of its own; during a migration, in a savepoint
    /// of the migration's transaction, so a failed save takes back only itself.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        switch access {
        case .writer(let writer):
            return try writer.write(body)
        case .migration(let db):
            var result: T?
            try db.inSavepoint {
                result = try body(db)
                return .commit
            }
            guard let result else { throw DatabaseError(message: "a migration write returned nothing") }
            return result
        }
    }

    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        switch access {
        case .writer(let writer): try writer.writeWithoutTransaction(body)
        case .migration(let db): try body(db)
        }
    }
}
