import Foundation
import StrataCore
import StrataSQL

extension StoreReport {
    /// Reads the store at `url`. A missing file fails with
    /// `.invalidStoreLocation`; a file that is not a readable Strata store
    /// fails with `.corruptStore` or `.incompatibleStore`, saying why.
    public init(url: URL) throws(StrataError) {
        let inspection = StoreFileInspection(url: url)
        let (identifier, metadata, columns) = try inspection.requireStore()
        let size = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0 }
        self.init(
            fileName: url.lastPathComponent, sizeInBytes: size(url.path) + size(url.path + "-wal"), storeIdentifier: identifier,
            formatVersion: metadata.formatVersion, schemaVersion: metadata.version?.description, fingerprint: metadata.fingerprint)
        let summaries = metadata.schema.entities
        (entities, history) = try inspection.withInspectionConnection { connection throws(StrataError) in
            var entities: [Entity] = []
            for summary in summaries {
                let count = columns[summary.name] == nil
                    ? 0 : Int(try inspection.strings(connection, "SELECT count(*) FROM \(quote(summary.name))").first ?? "0") ?? 0
                entities.append(Entity(summary: summary, rowCount: count))
            }
            var history: History?
            if columns[StorageNaming.historyTransactionTable] != nil {
                let values = try inspection.strings(
                    connection, "SELECT count(*), MAX(id) FROM \(StorageNaming.historyTransactionTable)", columns: 2)
                history = History(transactionCount: Int(values.first ?? "0") ?? 0, latestToken: values.last.flatMap { Int64($0) })
            }
            return (entities, history)
        }
    }
}
