import Foundation
import StrataCore
import StrataSQL

extension StoreCheck {
    /// Checks the store at `url`. A file that is not a Strata store at all
    /// fails as `StoreReport(url:)` does; damage inside one is a problem.
    /// `progress` is called with the checks done so far and their number.
    public init(url: URL, progress: ((Int, Int) -> Void)? = nil) throws(StrataError) {
        let inspection = StoreFileInspection(url: url)
        let (_, metadata, columns) = try inspection.requireStore()
        self.init(name: url.lastPathComponent, problems: [])
        problems = try inspection.withInspectionConnection { connection throws(StrataError) in
            var problems: [String] = []
            // The integrity check, the keys, each entity's versions and order, the history.
            let layout = RecordedStoreLayout(metadata.schema)
            let steps = metadata.schema.entities.count + 3
            var done = 0
            func stepDone() {
                done += 1
                progress?(done, steps)
            }
            progress?(0, steps)
            let integrity = try inspection.strings(connection, "PRAGMA integrity_check")
            if integrity != ["ok"] { problems += integrity.prefix(20).map { "SQLite: \($0)" } }
            stepDone()
            let dangling = try inspection.strings(
                connection, "SELECT \"table\", rowid, parent FROM pragma_foreign_key_check LIMIT 20", columns: 3)
            for row in stride(from: 0, to: dangling.count - 2, by: 3) {
                problems.append("\(dangling[row]) row \(dangling[row + 1]) relates to \(withArticle(dangling[row + 2])) that does not exist")
            }
            stepDone()
            for entity in metadata.schema.entities {
                defer { stepDone() }
                guard columns[entity.name] != nil else { continue }
                let versions = try inspection.strings(
                    connection, "SELECT count(*) FROM \(quote(entity.name)) WHERE \(StorageNaming.versionColumn) < 1")
                if let count = Int(versions.first ?? "0"), count > 0 {
                    problems.append("\(entity.name) has \(count) rows whose version is not positive")
                }
                for toMany in layout.entity(named: entity.name)?.toMany ?? [] {
                    problems += try Self.orderProblems(of: toMany, owner: entity.name, columns: columns, inspection, connection)
                }
            }
            if columns[StorageNaming.historyChangeTable] != nil, columns[StorageNaming.historyTransactionTable] != nil {
                let orphans = try inspection.strings(connection, """
                    SELECT count(*) FROM \(StorageNaming.historyChangeTable) AS c
                    WHERE NOT EXISTS (SELECT 1 FROM \(StorageNaming.historyTransactionTable) AS t WHERE t.id = c.transaction_id)
                    """)
                if let count = Int(orphans.first ?? "0"), count > 0 {
                    problems.append("history has \(count) changes that belong to no transaction")
                }
            }
            stepDone()
            return problems
        }
    }

    /// A to-many's order: each member's position in its owner's list is a
    /// whole number or none (rows that predate the order, placed by key).
    /// Ties are allowed: they too are placed by key.
    private static func orderProblems(
        of toMany: RecordedStoreLayout.ToMany, owner: String, columns: [String: Set<String>],
        _ inspection: StoreFileInspection, _ connection: OpaquePointer
    ) throws(StrataError) -> [String] {
        let (table, ownerColumn, position) = switch toMany.storage {
        case .foreignKey(let table, let key, let position): (table, key, position)
        case .joinTable(let table, let owner, _, let position, _): (table, owner, position)
        }
        guard let stored = columns[table], stored.contains(ownerColumn), stored.contains(position) else { return [] }
        let misplaced = try inspection.strings(connection, """
            SELECT count(*) FROM \(quote(table)) \
            WHERE \(quote(ownerColumn)) IS NOT NULL AND typeof(\(quote(position))) NOT IN ('integer', 'null')
            """)
        guard let count = Int(misplaced.first ?? "0"), count > 0 else { return [] }
        return ["\(owner).\(toMany.name) has \(count) members whose position in their owner's order is not a whole number"]
    }
}
