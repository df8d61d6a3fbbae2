import Foundation
import StrataCore
import StrataSQL
import GRDB

/// Stores written by an earlier version of Strata that this one still reads,
/// brought up to the current format once, in one transaction.
///
/// Format 2 kept dates as seconds since 1970, which rounds off the last bit of
/// about half of all dates; format 3 keeps the seconds since 2001 that a
/// `Date` holds. The upgrade subtracts the offset in every date column, in
/// history timestamps and in date values recorded in history — the same
/// subtraction `Date(timeIntervalSince1970:)` performs, so each value reads
/// back exactly as format 2 read it.
extension SQLiteStore {
    /// Seconds from 1970 to 2001.
    static let referenceDateOffset = Date.timeIntervalBetween1970AndReferenceDate

    /// Upgrades the store in place when its format is older than the current one.
    /// Runs after the schema check passed, so the stored schema is `schema`.
    func upgradeFormatIfNeeded() throws {
        guard !isReadOnly else { return }
        try writer.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                // Read inside the write lock: another process may have upgraded it first.
                let metadata = try StoreMetadata.read(db)
                guard metadata.formatVersion < StoreMetadata.formatVersion else { return .commit }
                if metadata.formatVersion == 2 { try upgradeDatesFrom1970(db) }
                var upgraded = metadata
                upgraded.formatVersion = StoreMetadata.formatVersion
                try upgraded.write(db)
                logger.info("Upgraded the store to format \(StoreMetadata.formatVersion)")
                return .commit
            }
        }
    }

    private func upgradeDatesFrom1970(_ db: Database) throws {
        let offset = Self.referenceDateOffset
        var dateNamesByEntity: [String: Set<String>] = [:]
        for entity in schema.entities {
            let names = entity.attributes.filter { $0.type == .date }.map(\.name)
            guard !names.isEmpty else { continue }
            dateNamesByEntity[entity.name] = Set(names)
            let assignments = names.map { name in
                "\(quote(name)) = CASE WHEN typeof(\(quote(name))) IN ('integer', 'real') THEN \(quote(name)) - \(offset) ELSE \(quote(name)) END"
            }
            try db.execute(sql: "UPDATE \(quote(entity.name)) SET \(assignments.joined(separator: ", "))")
        }
        guard try db.tableExists(StorageNaming.historyTransactionTable) else { return }
        try db.execute(sql: "UPDATE \(StorageNaming.historyTransactionTable) SET timestamp = timestamp - \(offset)")
        guard !dateNamesByEntity.isEmpty else { return }
        try upgradeHistoryValues(db, dateNamesByEntity: dateNamesByEntity)
    }

    /// Date values inside history's JSON columns, rewritten by the history coder.
    private func upgradeHistoryValues(_ db: Database, dateNamesByEntity: [String: Set<String>]) throws {
        let coder = HistoryValueCoder()
        let entities = dateNamesByEntity.keys.sorted()
        // A page at a time, so a long history is never in memory at once.
        var after: Int64 = 0
        while true {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, entity, tombstone, old_values, new_values FROM \(StorageNaming.historyChangeTable)
                    WHERE id > ? AND entity IN (\(Array(repeating: "?", count: entities.count).joined(separator: ", "))) ORDER BY id LIMIT 1000
                    """,
                arguments: StatementArguments([after] as [any DatabaseValueConvertible] + entities))
            guard let last = rows.last else { return }
            after = last["id"]
            try upgradeHistoryPage(rows, coder: coder, dateNamesByEntity: dateNamesByEntity, in: db)
        }
    }

    private func upgradeHistoryPage(
        _ rows: [Row], coder: HistoryValueCoder, dateNamesByEntity: [String: Set<String>], in db: Database
    ) throws {
        for row in rows {
            // Values are read without GRDB's trapping conversions: a row another
            // program left unreadable is written back as it was.
            let entityValue: DatabaseValue = row["entity"]
            guard let id = Int64.fromDatabaseValue(row["id"]) else { continue }
            let names = String.fromDatabaseValue(entityValue).flatMap { dateNamesByEntity[$0] } ?? []
            var changed = false
            var columns: [DatabaseValueConvertible?] = []
            for column in ["tombstone", "old_values", "new_values"] {
                let stored: DatabaseValue = row[column]
                guard let text = String.fromDatabaseValue(stored),
                      var values = try coder.decode(.text(text)) else {
                    columns.append(stored)
                    continue
                }
                for name in names {
                    switch values[name] {
                    case .real(let seconds): values[name] = .real(seconds - Self.referenceDateOffset)
                    case .integer(let seconds): values[name] = .real(Double(seconds) - Self.referenceDateOffset)
                    default: continue
                    }
                    changed = true
                }
                columns.append(coder.encode(values).text)
            }
            guard changed else { continue }
            try db.execute(
                sql: "UPDATE \(StorageNaming.historyChangeTable) SET tombstone = ?, old_values = ?, new_values = ? WHERE id = ?",
                arguments: StatementArguments(columns + [id]))
        }
    }
}
