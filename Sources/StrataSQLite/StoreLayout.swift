import StrataCore
import StrataSQL
/// The SQL a store reuses for each entity, computed once per store.
///
/// Identifiers come from the validated schema (plain identifiers only) and are
/// quoted; values are always bound.
struct StoreLayout: Sendable {
    /// App-defined metadata (`PersistentContainer.setMetadata(_:forKey:)`);
    /// the column has no type, so each value keeps its storage class.
    static let createAppMetadataSQL =
        "CREATE TABLE IF NOT EXISTS \(StorageNaming.appMetadataTable) (key TEXT PRIMARY KEY NOT NULL, value)"
    private static let versionColumn = StorageNaming.versionColumn

    /// A row's next version, computed by SQLite: NULL (which the column
    /// refuses) for a row already at the highest, where `_version + 1` would
    /// quietly become a floating-point number.
    static let nextVersionSQL = "CASE WHEN \(versionColumn) < 9223372036854775807 THEN \(versionColumn) + 1 END"

    struct Entity: Sendable {
        let table: String
        /// Quoted column names in column order.
        let columns: [String]
        /// `t0.pk, t0._version, t0."a", …`: primary key, version, then columns.
        let selectList: String
        let insertSQL: String
        let deleteSQL: String
        let selectByKeySQL: String
        /// `… WHERE t0.pk BETWEEN ? AND ? ORDER BY t0.pk`.
        let selectByKeyRangeSQL: String
        /// How a row cursor lays out this entity's rows.
        let decodePlan: DecodePlan

        /// `SELECT … WHERE t0.pk IN (?, …)` for `count` keys.
        func selectByKeysSQL(count: Int) -> String {
            "SELECT \(selectList) FROM \(table) AS t0 WHERE t0.pk IN (\(String(repeating: "?, ", count: count - 1))?)"
        }
    }

    let entities: [Entity]
    /// Where to-many members and their order are kept.
    let relationships: RelationshipLayout

    init(schema: Schema) {
        let entities = schema.entities.map { entity in
            let table = quote(entity.name)
            let columns = entity.columnOrdinals.map { quote(entity.properties[$0].name) }
            let selectList = (["t0.pk", "t0.\(Self.versionColumn)"] + columns.map { "t0.\($0)" }).joined(separator: ", ")
            let insertColumns = (["pk", Self.versionColumn] + columns).joined(separator: ", ")
            let placeholders = (["?", "1"] + Array(repeating: "?", count: columns.count)).joined(separator: ", ")
            return Entity(
                table: table, columns: columns, selectList: selectList,
                insertSQL: "INSERT INTO \(table) (\(insertColumns)) VALUES (\(placeholders))",
                deleteSQL: "DELETE FROM \(table) WHERE pk = ?",
                selectByKeySQL: "SELECT \(selectList) FROM \(table) AS t0 WHERE t0.pk = ?",
                selectByKeyRangeSQL: "SELECT \(selectList) FROM \(table) AS t0 WHERE t0.pk BETWEEN ? AND ? ORDER BY t0.pk",
                decodePlan: DecodePlan(entity: entity))
        }
        self.entities = entities
        relationships = RelationshipLayout(schema: schema, selectLists: entities.map(\.selectList))
    }

    /// `UPDATE … SET` for a set of changed columns.
    ///
    /// Checking the version: `SET _version = ?, … WHERE pk = ? AND _version = ?`
    /// (the new version first, the expected one last; no row changes when the
    /// row moved on). Otherwise `SET _version = _version + 1, … WHERE pk = ?
    /// RETURNING _version`.
    func updateSQL(entityIndex: Int, columns: [Int], checkingVersion: Bool = false) -> String {
        let entity = entities[entityIndex]
        let version = Self.versionColumn
        let assignments = [checkingVersion ? "\(version) = ?" : "\(version) = \(Self.nextVersionSQL)"]
            + columns.map { "\(entity.columns[$0]) = ?" }
        let set = "UPDATE \(entity.table) SET \(assignments.joined(separator: ", "))"
        return checkingVersion
            ? "\(set) WHERE pk = ? AND \(version) = ?"
            : "\(set) WHERE pk = ? RETURNING \(version)"
    }
}
