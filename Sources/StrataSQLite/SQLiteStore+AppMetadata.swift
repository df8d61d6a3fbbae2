import StrataCore
import GRDB

/// App-defined values kept in the store beside its rows — the last import's
/// date, a sync cursor — as Core Data's store metadata.
extension SQLiteStore {
    /// Every app metadata value, by key.
    func appMetadata() throws(StrataError) -> [String: StoredValue] {
        do {
            return try writer.read { db in
                guard try db.tableExists(StorageNaming.appMetadataTable) else { return [:] }
                let statement = RawStatement(
                    try db.cachedStatement(sql: "SELECT key, value FROM \(StorageNaming.appMetadataTable)"), in: db)
                statement.reset()
                defer { statement.reset() }
                var values: [String: StoredValue] = [:]
                while try statement.step() {
                    guard case .text(let key) = statement.value(at: 0) else { continue }
                    values[key] = statement.value(at: 1)
                }
                return values
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Sets (or, for nil, removes) app metadata values in one transaction of their own.
    func setAppMetadata(_ changes: [String: StoredValue?]) throws(StrataError) {
        if isReadOnly {
            throw StrataError(.readOnlyStore, "The store is read-only; its metadata was not changed")
        }
        do {
            try writer.write { db in try writeAppMetadata(changes, in: db) }
        } catch {
            throw Self.translate(error)
        }
        // A commit of this instance, though no row changed: not reported as another writer's.
        didCommit(ChangeSet(storeIdentifier: identifier))
    }

    /// Writes metadata changes in the caller's transaction.
    func writeAppMetadata(_ changes: [String: StoredValue?], in db: Database) throws {
        // Stores made before the table existed get it with their first metadata.
        try db.execute(sql: StoreLayout.createAppMetadataSQL)
        let upsert = RawStatement(
            try db.cachedStatement(sql: """
                INSERT INTO \(StorageNaming.appMetadataTable) (key, value) VALUES (?, ?)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value
                """), in: db)
        let delete = RawStatement(
            try db.cachedStatement(sql: "DELETE FROM \(StorageNaming.appMetadataTable) WHERE key = ?"), in: db)
        for key in changes.keys.sorted() {
            if let value = changes[key]! {
                upsert.reset()
                try upsert.bind([.text(key), value])
                try upsert.execute()
            } else {
                delete.reset()
                try delete.bind([.text(key)])
                try delete.execute()
            }
        }
    }
}
