import Foundation
import StrataCore
import GRDB
import GRDBSQLite

/// Opening and creating store files so that several processes may start at
/// once (the first creates the store, the others wait and open it) and a
/// read-only store opens where nothing may be written.
extension SQLiteStore {
    /// Creates an empty store file with `permissions` before SQLite opens it
    /// (SQLite gives its `-wal` and `-shm` files the same). Another process
    /// creating it first is fine.
    static func createFile(at url: URL, permissions: UInt16) throws(StrataError) {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StrataError(
                .invalidStoreLocation, "The store \(url.path) cannot be created: \(whyNoFolder(folder))",
                underlyingError: SendableDescription(error))
        }
        let descriptor = open(url.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode_t(permissions))
        if descriptor >= 0 {
            Foundation.close(descriptor)
            // The process's umask may have taken bits away.
            _ = chmod(url.path, mode_t(permissions))
        } else if errno != EEXIST {
            throw StrataError(.sqlite, "Could not create \(url.lastPathComponent): \(String(cString: strerror(errno)))")
        }
    }

    /// Why a folder cannot be made, in words: the nearest part of its path
    /// that exists is a file, or may not be written to.
    private static func whyNoFolder(_ folder: URL) -> String {
        var existing = folder
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: existing.path, isDirectory: &isDirectory), existing.path != "/" {
            existing.deleteLastPathComponent()
        }
        if !isDirectory.boolValue { return "\(existing.path) is a file, not a folder" }
        if !FileManager.default.isWritableFile(atPath: existing.path) { return "the folder \(existing.path) may not be written to" }
        return "the folder \(folder.path) could not be made"
    }

    /// A writer pool over the file. Setting up WAL needs a moment alone with
    /// the file: when other processes are opening it too, wait and try again.
    static func openPool(at url: URL) throws -> DatabasePool {
        EmptyWriteAheadLog.placeBeside(url)
        var attempt = 0
        while true {
            do {
                return try DatabasePool(path: url.path, configuration: configuration(readOnly: false))
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                attempt += 1
                if attempt >= 200 { throw error }
                usleep(useconds_t(5_000 + Int.random(in: 0..<20_000)))
            }
        }
    }

    /// A read-only connection. Where SQLite cannot keep its shared-memory
    /// file beside the store (a read-only folder or mount), a store whose
    /// write-ahead log is empty — every store Strata closed — opens immutable:
    /// no lock and no `-shm` file are needed, and nobody can change it there.
    static func openReadOnly(at url: URL) throws -> any DatabaseWriter {
        do {
            let pool = try DatabasePool(path: url.path, configuration: configuration(readOnly: true))
            // Connections open lazily: read once so a missing `-shm` shows here.
            _ = try pool.read { db in try db.tableExists(StorageNaming.metadataTable) }
            return pool
        } catch {
            let log = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
            // GRDB opens paths, not URIs: `immutable` needs a SQLite built to read URIs in paths.
            guard log == 0, sqlite3_compileoption_used("USE_URI") == 1 else {
                throw StrataError(
                    .readOnlyStore,
                    "\(url.lastPathComponent) cannot be read here: SQLite cannot keep its shared-memory file beside it\(log > 0 ? ", and its write-ahead log holds commits" : "")",
                    underlyingError: SendableDescription(error))
            }
            let uri = URL(fileURLWithPath: url.path).absoluteString + "?immutable=1"
            return try DatabaseQueue(path: uri, configuration: configuration(readOnly: true))
        }
    }

    /// Creates the store's tables in a new file, or, when another process
    /// created them first, checks and adopts its store. Returns the identifier.
    static func createOrAdopt(
        _ pool: DatabasePool, schema: Schema, layout: StoreLayout, fileName: String
    ) throws -> String {
        try pool.writeWithoutTransaction { db in
            var identifier = ""
            // Immediate: the creator holds the write lock from the start, and
            // a process that comes second waits for it, then sees its tables.
            try db.inTransaction(.immediate) {
                if try db.tableExists(StorageNaming.metadataTable) {
                    let metadata = try StoreMetadata.read(db)
                    try metadata.check(against: schema, fileName: fileName)
                    identifier = metadata.storeIdentifier
                } else {
                    identifier = try createSchema(db, schema: schema, layout: layout)
                }
                return .commit
            }
            return identifier
        }
    }
}
