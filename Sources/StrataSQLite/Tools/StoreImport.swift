import Foundation
import StrataCore
import StrataSQL
import GRDB

/// Reads what `StoreExport` wrote back into a store file: `strata import`.
///
/// The target is a store the app created with the same schema (the
/// fingerprints must match) that holds no rows yet. Rows keep their keys,
/// versions and to-many order, in one transaction: on any failure (a value
/// that is not of its attribute's type, a missing required value, a key that
/// names no row, a taken unique value) nothing is written and the error says
/// where. New rows take keys after every key the exported store had given.
/// An import is a restore, so history does not record it.
///
/// ```swift
/// try StoreImport.import(from: URL(fileURLWithPath: "library.json"), as: .json, into: emptyStoreURL)
/// ```
public enum StoreImport {
    /// Imports `source` (a JSON file, or a CSV directory) into the store at `url`.
    /// `progress` is called with the rows written so far and the total.
    ///
    /// With `createsStore`, a file that does not exist yet is first made a
    /// store of the schema the export records, as the app's container would
    /// make it; an import that then fails removes it again.
    @discardableResult
    public static func `import`(
        from source: URL, as format: StoreExport.Format, into url: URL, createsStore: Bool = false,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(StrataError) -> StoreExport.Summary {
        let document = switch format {
        case .json: try ImportedDocument(json: source)
        case .csv: try ImportedDocument(csvDirectory: source)
        }
        guard createsStore, !FileManager.default.fileExists(atPath: url.path) else {
            return try importRows(of: document, as: format, into: url, progress: progress)
        }
        do {
            try SQLiteStore(location: .file(url), schema: Schema(recorded: document.schema, assumedDefault: nil)).close()
            return try importRows(of: document, as: format, into: url, progress: progress)
        } catch {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            throw error
        }
    }

    private static func importRows(
        of document: ImportedDocument, as format: StoreExport.Format, into url: URL, progress: ((Int, Int) -> Void)?
    ) throws(StrataError) -> StoreExport.Summary {
        let inspection = StoreFileInspection(url: url)
        guard case .store(_, let metadata, _) = try inspection.examine(readOnly: false, verifiesIntegrity: false) else {
            throw StrataError(
                .invalidStoreLocation,
                "There is no store at \(url.path); create it by loading the app's container once, then import into it")
        }
        guard metadata.fingerprint == document.fingerprint else {
            let differences = SchemaDifference.between(stored: metadata.schema, current: document.schema).map(\.description)
            throw StrataError(
                .incompatibleStore,
                "\(url.lastPathComponent) has another schema than the export (\(differences.joined(separator: "; "))); nothing was imported")
        }
        let layout = RecordedStoreLayout(metadata.schema)
        let entities = try document.entities(in: layout)
        do {
            // The store's own functions: its indexes may be built on them.
            let queue = try DatabaseQueue(path: url.path, configuration: SQLiteStore.configuration(readOnly: false))
            defer { try? queue.close() }
            try queue.write { db in
                try write(
                    entities, sequences: document.sequences, layout: layout, fileName: url.lastPathComponent, progress: progress, db)
            }
        } catch let error as StrataError {
            throw error
        } catch let error as DatabaseError {
            throw StrataError(.importFailed, "\(url.lastPathComponent): \(error.message ?? "\(error)"); nothing was imported")
        } catch {
            throw StrataError(.importFailed, "\(url.lastPathComponent): \(error); nothing was imported")
        }
        var counts: [String: Int] = [:]
        for entity in entities { counts[entity.layout.name] = entity.records.count }
        return StoreExport.Summary(fileName: url.lastPathComponent, format: format, rowCounts: counts)
    }

    /// The rows of one entity, converted and checked against its columns.
    struct Entity {
        let layout: RecordedStoreLayout.Entity
        let records: [StoreExport.Record]
    }

    private static func write(
        _ entities: [Entity], sequences: [String: Int64], layout: RecordedStoreLayout, fileName: String,
        progress: ((Int, Int) -> Void)?, _ db: Database
    ) throws {
        for entity in entities {
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quote(entity.layout.name))") ?? 0
            guard count == 0 else {
                throw StrataError(
                    .importFailed, "\(fileName) already has \(count) \(entity.layout.name) rows; import into a store without rows")
            }
        }
        let total = entities.reduce(0) { $0 + $1.records.count }
        var written = 0
        progress?(0, total)
        for entity in entities {
            let columns = ["pk", StorageNaming.versionColumn] + entity.layout.columns.map { quote($0.name) }
            let insert = try db.makeStatement(sql: """
                INSERT INTO \(quote(entity.layout.name)) (\(columns.joined(separator: ", "))) \
                VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
                """)
            // Bound as the store binds them (text with its length, NUL characters and all).
            let raw = RawStatement(insert, in: db)
            for record in entity.records {
                raw.reset()
                try raw.bind([StoredValue.integer(record.key), .integer(record.version)] + record.values)
                try raw.execute()
                written += 1
                if written % 1000 == 0 || written == total { progress?(written, total) }
            }
            // Keys of rows deleted before the export are not given again.
            if let highest = [entity.records.map(\.key).max(), sequences[entity.layout.name]].compactMap({ $0 }).max() {
                try db.execute(sql: """
                    INSERT INTO \(StorageNaming.sequenceTable) (entity, max_pk) VALUES (?, ?)
                    ON CONFLICT(entity) DO UPDATE SET max_pk = max(max_pk, excluded.max_pk)
                    """, arguments: [entity.layout.name, highest])
            }
        }
        // Membership and order, once every row exists.
        let positionsByMember = memberPositions(entities, layout: layout)
        for entity in entities {
            for (index, toMany) in entity.layout.toMany.enumerated() {
                switch toMany.storage {
                case .foreignKey(let table, let key, let position):
                    let update = try db.makeStatement(
                        sql: "UPDATE \(quote(table)) SET \(quote(key)) = ?, \(quote(position)) = ? WHERE pk = ?")
                    for record in entity.records {
                        for (offset, member) in record.members[index].enumerated() {
                            try update.execute(arguments: [record.key, offset, member])
                            guard db.changesCount == 1 else {
                                throw StrataError(
                                    .importFailed,
                                    "\(entity.layout.name) \(record.key): \(toMany.name) names \(toMany.destination) \(member), which is not in the export")
                            }
                        }
                    }
                case .joinTable(let table, let owner, let member, let ownerPosition, let memberPosition):
                    // Each pair once: from the side whose owner column is `source`.
                    guard owner == "source" else { continue }
                    let insert = try db.makeStatement(sql: """
                        INSERT INTO \(quote(table)) (\(quote(owner)), \(quote(member)), \(quote(ownerPosition)), \(quote(memberPosition))) \
                        VALUES (?, ?, ?, ?)
                        """)
                    let inverse = positionsByMember[table]
                    for record in entity.records {
                        for (offset, target) in record.members[index].enumerated() {
                            let memberOffset = inverse?[Pair(owner: target, member: record.key)] ?? 0
                            try insert.execute(arguments: [record.key, target, offset, memberOffset])
                        }
                    }
                }
            }
        }
    }

    private struct Pair: Hashable {
        let owner: Int64, member: Int64
    }

    /// For each join table, where each pair sits in the member side's own list
    /// (the inverse to-many, kept with `target` as owner).
    private static func memberPositions(_ entities: [Entity], layout: RecordedStoreLayout) -> [String: [Pair: Int]] {
        var positions: [String: [Pair: Int]] = [:]
        for entity in entities {
            for (index, toMany) in entity.layout.toMany.enumerated() {
                guard case .joinTable(let table, let owner, _, _, _) = toMany.storage, owner == "target" else { continue }
                var tablePositions = positions[table] ?? [:]
                for record in entity.records {
                    for (offset, member) in record.members[index].enumerated() {
                        tablePositions[Pair(owner: record.key, member: member)] = offset
                    }
                }
                positions[table] = tablePositions
            }
        }
        return positions
    }
}
