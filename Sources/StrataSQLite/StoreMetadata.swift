import Foundation
import StrataCore
import GRDB

/// The metadata row set of a store: identity, format and the schema it was written with.
struct StoreMetadata: Sendable {
    /// Bumped when Strata changes how it lays out stores. 2: to-many position
    /// columns and many-to-many join tables. 3: dates as seconds since 2001.
    static let formatVersion = 3
    /// The oldest format this version opens (and upgrades; see `upgradeFormatIfNeeded`).
    static let oldestReadableFormatVersion = 2

    var storeIdentifier: String
    var formatVersion: Int
    var fingerprint: String
    var schema: SchemaSummary
    /// The version of the schema the store was written with, when it had one.
    var version: Schema.Version?

    static func read(_ db: Database) throws -> StoreMetadata {
        let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM \(StorageNaming.metadataTable)")
        var values: [String: String] = [:]
        for row in rows {
            // A row that is not text (another program's) is skipped: a key
            // Strata needs and cannot read is reported as missing below.
            guard let key = try? row.decode(String.self, forColumn: "key"),
                  let value = try? row.decode(String.self, forColumn: "value") else { continue }
            values[key] = value
        }
        return try StoreMetadata(values)
    }

    /// The metadata from its key-value rows.
    init(_ values: [String: String]) throws(StrataError) {
        guard let identifier = values["storeIdentifier"], ObjectID.isUsableStoreIdentifier(identifier),
              let format = values["formatVersion"].flatMap(Int.init),
              let fingerprint = values["fingerprint"], let json = values["schema"] else {
            throw StrataError(.corruptStore, "The store's metadata is incomplete")
        }
        let schema: SchemaSummary
        do {
            schema = try JSONDecoder().decode(SchemaSummary.self, from: Data(json.utf8))
        } catch {
            throw StrataError(.corruptStore, "The schema the store records cannot be read: \(error)")
        }
        self.init(storeIdentifier: identifier, formatVersion: format, fingerprint: fingerprint, schema: schema,
                  version: values["versionIdentifier"].flatMap(Schema.Version.init))
    }

    init(storeIdentifier: String, formatVersion: Int, fingerprint: String, schema: SchemaSummary, version: Schema.Version? = nil) {
        self.storeIdentifier = storeIdentifier
        self.formatVersion = formatVersion
        self.fingerprint = fingerprint
        self.schema = schema
        self.version = version
    }

    func write(_ db: Database) throws {
        let json = String(decoding: schema.canonicalJSON(), as: UTF8.self)
        let entries: [(String, String)] = [
            ("storeIdentifier", storeIdentifier), ("formatVersion", String(formatVersion)),
            ("fingerprint", fingerprint), ("schema", json),
        ]
        for (key, value) in entries {
            try db.execute(
                sql: "INSERT OR REPLACE INTO \(StorageNaming.metadataTable) (key, value) VALUES (?, ?)",
                arguments: [key, value])
        }
        if let version {
            try db.execute(
                sql: "INSERT OR REPLACE INTO \(StorageNaming.metadataTable) (key, value) VALUES ('versionIdentifier', ?)",
                arguments: [version.description])
        } else {
            try db.execute(sql: "DELETE FROM \(StorageNaming.metadataTable) WHERE key = 'versionIdentifier'")
        }
    }

    /// Throws `.incompatibleStore` listing the differences when the schemas differ.
    func check(against current: Schema, fileName: String, readOnly: Bool = false) throws {
        try checkFormat(fileName: fileName, readOnly: readOnly)
        guard fingerprint != current.fingerprint else { return }
        let differences = SchemaDifference.between(stored: schema, current: current.summary)
        guard !differences.isEmpty else { return }
        throw StrataError(
            .incompatibleStore,
            "\(fileName) was written with a different schema; it was left untouched. Differences: "
                + differences.map(\.description).joined(separator: "; "))
    }

    /// Throws `.incompatibleStore` when this version of Strata cannot open the
    /// store's format (as it is, or read-only).
    func checkFormat(fileName: String, readOnly: Bool = false) throws(StrataError) {
        guard formatVersion <= Self.formatVersion else {
            throw StrataError(.incompatibleStore, "\(fileName) was written by a newer version of Strata (format \(formatVersion))")
        }
        guard formatVersion >= Self.oldestReadableFormatVersion else {
            throw StrataError(
                .incompatibleStore,
                "\(fileName) was written by an earlier version of Strata (format \(formatVersion)) that did not keep to-many order; it was left untouched")
        }
        guard formatVersion == Self.formatVersion || !readOnly else {
            throw StrataError(
                .incompatibleStore,
                "\(fileName) was written by an earlier version of Strata (format \(formatVersion)) and must be opened writable once to be upgraded; it was left untouched")
        }
    }

    /// Whether the store's schema is `current` (nothing to migrate).
    func matches(_ current: Schema) -> Bool {
        fingerprint == current.fingerprint || SchemaDifference.between(stored: schema, current: current.summary).isEmpty
    }
}
