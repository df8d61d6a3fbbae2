import Foundation
import StrataCore
import StrataSQL

extension StoreExport {
    /// Exports the store at `url` to `destination`: a file for JSON, a
    /// directory (created if needed) for CSV. `progress` is called with the
    /// rows written so far and the total. Fails as `StoreReport(url:)`
    /// for a file that is not a store, and with `.invalidStoreLocation` when
    /// the destination cannot be written.
    @discardableResult
    public static func export(
        storeAt url: URL, as format: Format, to destination: URL, progress: ((Int, Int) -> Void)? = nil
    ) throws(StrataError) -> Summary {
        let inspection = StoreFileInspection(url: url)
        let (_, metadata, tables) = try inspection.requireStore()
        guard destination.standardizedFileURL.path != url.standardizedFileURL.path else {
            throw StrataError(.invalidStoreLocation, "An export cannot be written over the store it reads (\(url.path))")
        }
        var contents = Contents(fingerprint: metadata.fingerprint, schema: metadata.schema)
        try inspection.withInspectionConnection { connection throws(StrataError) in
            // One read transaction: a store in use is exported as one snapshot.
            try inspection.forEachRow(connection, "BEGIN") { _ throws(StrataError) in }
            defer { try? inspection.forEachRow(connection, "COMMIT") { _ throws(StrataError) in } }
            // The highest key each entity has given, deleted rows' included, so
            // the restored store never gives one of them again.
            if tables[StorageNaming.sequenceTable] != nil {
                try inspection.forEachRow(connection, "SELECT entity, max_pk FROM \(StorageNaming.sequenceTable) ORDER BY entity") {
                    row throws(StrataError) in
                    if case .text(let entity) = row[0], case .integer(let key) = row[1] { contents.sequences[entity] = key }
                }
            }
            for entity in contents.layout.entities where tables[entity.name] != nil {
                try inspection.forEachRow(connection, "SELECT count(*) FROM \(quote(entity.name))") { row throws(StrataError) in
                    if case .integer(let count) = row.first { contents.rowCounts[entity.name] = Int(count) }
                }
            }
            try write(contents, as: format, to: destination, progress: progress) { entity, body throws(StrataError) in
                try forEachRecord(of: entity, tables: tables, inspection: inspection, connection: connection, body)
            }
        }
        return Summary(fileName: url.lastPathComponent, format: format, rowCounts: contents.rowCounts)
    }

    /// Reads each row of `entity` in key order, with its to-many members.
    private static func forEachRecord(
        of entity: RecordedStoreLayout.Entity, tables: [String: Set<String>], inspection: StoreFileInspection,
        connection: OpaquePointer, _ body: (Record) throws(StrataError) -> Void
    ) throws(StrataError) {
        guard tables[entity.name] != nil else { return }
        // Each to-many's members by owner, read whole first: one query per relationship.
        var membersByOwner: [[Int64: [Int64]]] = []
        for toMany in entity.toMany {
            let sql = switch toMany.storage {
            case .foreignKey(let table, let key, let position):
                "SELECT \(quote(key)), pk FROM \(quote(table)) WHERE \(quote(key)) IS NOT NULL ORDER BY \(quote(key)), \(quote(position)), pk"
            case .joinTable(let table, let owner, let member, let ownerPosition, _):
                "SELECT \(quote(owner)), \(quote(member)) FROM \(quote(table)) ORDER BY \(quote(owner)), \(quote(ownerPosition)), \(quote(member))"
            }
            var members: [Int64: [Int64]] = [:]
            try inspection.forEachRow(connection, sql) { row throws(StrataError) in
                guard case .integer(let owner) = row[0], case .integer(let member) = row[1] else { return }
                members[owner, default: []].append(member)
            }
            membersByOwner.append(members)
        }
        let columns = ["pk", StorageNaming.versionColumn] + entity.columns.map { quote($0.name) }
        try inspection.forEachRow(connection, "SELECT \(columns.joined(separator: ", ")) FROM \(quote(entity.name)) ORDER BY pk") {
            row throws(StrataError) in
            guard case .integer(let key) = row[0] else { return }
            let version = if case .integer(let version) = row[1] { version } else { Int64(1) }
            try body(Record(
                key: key, version: version, values: Array(row.dropFirst(2)),
                members: membersByOwner.map { $0[key] ?? [] }))
        }
    }
}
