import Foundation

/// What a store file holds, read without the app's models and without changing
/// the file: its identity and format, the schema it records, each entity's
/// properties and row count, its size and its history. `strata inspect` prints it.
///
/// ```swift
/// let report = try StoreReport(url: URL(fileURLWithPath: "Library.sqlite"))
/// for entity in report.entities { print(entity.summary.name, entity.rowCount) }
/// ```
public struct StoreReport: Sendable, Codable {
    /// One entity of the recorded schema and how many rows it has.
    public struct Entity: Sendable, Codable {
        public var summary: EntitySummary
        public var rowCount: Int

        package init(summary: EntitySummary, rowCount: Int) {
            self.summary = summary
            self.rowCount = rowCount
        }
    }

    /// The history the store keeps, when it keeps any.
    public struct History: Sendable, Codable {
        public var transactionCount: Int
        /// The token of the newest transaction (its number), if any.
        public var latestToken: Int64?

        package init(transactionCount: Int, latestToken: Int64?) {
            self.transactionCount = transactionCount
            self.latestToken = latestToken
        }
    }

    public var fileName: String
    /// The file with its `-wal`, in bytes.
    public var sizeInBytes: Int64
    public var storeIdentifier: String
    public var formatVersion: Int
    public var schemaVersion: String?
    public var fingerprint: String
    public var entities: [Entity]
    public var history: History?

    package init(
        fileName: String, sizeInBytes: Int64, storeIdentifier: String, formatVersion: Int, schemaVersion: String?,
        fingerprint: String, entities: [Entity] = [], history: History? = nil
    ) {
        self.fileName = fileName
        self.sizeInBytes = sizeInBytes
        self.storeIdentifier = storeIdentifier
        self.formatVersion = formatVersion
        self.schemaVersion = schemaVersion
        self.fingerprint = fingerprint
        self.entities = entities
        self.history = history
    }

}
