import Foundation
import StrataCore
import GRDB

/// Destroying and replacing store files, as Core Data's coordinator does:
/// never under a connection that has the store open, in this process or another.
extension SQLiteStore {
    /// Removes a store file with its `-wal`, `-shm` and `-journal` files.
    /// Throws `.invalidStoreLocation`, removing nothing, when the file is open.
    static func destroyFile(at url: URL) throws(StrataError) {
        let path = url.path
        if FileManager.default.fileExists(atPath: path) { try refuseWhileOpen(url, doing: "destroyed") }
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            do {
                try FileManager.default.removeItem(atPath: path + suffix)
            } catch {
                throw StrataError(.sqlite, "Could not remove \(url.lastPathComponent)\(suffix)", underlyingError: SendableDescription(error))
            }
        }
    }

    /// Replaces the store at `destination` with a copy of the store at
    /// `source`, made with SQLite's backup API (a consistent copy even while
    /// the source is in use). The source must be a Strata store; the
    /// destination must not be open anywhere.
    static func replaceFile(at destination: URL, withStoreAt source: URL) throws(StrataError) {
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw StrataError(.invalidStoreLocation, "\(source.lastPathComponent) does not exist")
        }
        if FileManager.default.fileExists(atPath: destination.path) { try refuseWhileOpen(destination, doing: "replaced") }
        do {
            // Read through SQLite (not the file's bytes): the source may be in
            // use, with its latest commits still in its write-ahead log.
            let from = try DatabaseQueue(path: source.path, configuration: configuration(readOnly: true))
            defer { try? from.close() }
            guard try from.read({ db in try db.tableExists(StorageNaming.metadataTable) }) else {
                throw StrataError(.incompatibleStore, "\(source.lastPathComponent) holds no Strata store to copy")
            }
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            let to = try DatabaseQueue(path: destination.path, configuration: configuration(readOnly: false))
            defer { try? to.close() }
            try from.backup(to: to)
            // The copy keeps the source's journal mode (WAL); fold it in.
            try to.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
            throw translate(error)
        }
    }

    /// Throws when any connection, in this process or another, has the file
    /// open: an exclusive lock cannot be had then.
    private static func refuseWhileOpen(_ url: URL, doing action: String) throws(StrataError) {
        var configuration = Configuration()
        configuration.busyMode = .immediateError
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN EXCLUSIVE")
                try db.execute(sql: "ROLLBACK")
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            throw StrataError(
                .invalidStoreLocation, "\(url.lastPathComponent) is open in a container or process; it was not \(action)",
                underlyingError: error)
        } catch {
            // Not a database at all: nothing holds it open as one.
        }
    }
}
