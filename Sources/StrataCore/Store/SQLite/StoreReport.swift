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

    /// Reads the store at `url`. A missing file fails with
    /// `.invalidStoreLocation`; a file that is not a readable Strata store
    /// fails with `.corruptStore` or `.incompatibleStore`, saying why.
    public init(url: URL) throws(StrataError) {
        let inspection = StoreFileInspection(url: url)
        let (identifier, metadata, columns) = try inspection.requireStore()
        fileName = url.lastPathComponent
        let size = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0 }
        sizeInBytes = size(url.path) + size(url.path + "-wal")
        storeIdentifier = identifier
        formatVersion = metadata.formatVersion
        schemaVersion = metadata.version?.description
        fingerprint = metadata.fingerprint
        let summaries = metadata.schema.entities
        (entities, history) = try inspection.withInspectionConnection { connection throws(StrataError) in
            var entities: [Entity] = []
            for summary in summaries {
                let count = columns[summary.name] == nil
                    ? 0 : Int(try inspection.strings(connection, "SELECT count(*) FROM \(quote(summary.name))").first ?? "0") ?? 0
                entities.append(Entity(summary: summary, rowCount: count))
            }
            var history: History?
            if columns[HistoryLayout.transactionTable] != nil {
                let values = try inspection.strings(
                    connection, "SELECT count(*), MAX(id) FROM \(HistoryLayout.transactionTable)", columns: 2)
                history = History(transactionCount: Int(values.first ?? "0") ?? 0, latestToken: values.last.flatMap { Int64($0) })
            }
            return (entities, history)
        }
    }
}
