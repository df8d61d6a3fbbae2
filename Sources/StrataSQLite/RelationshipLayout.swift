import StrataCore
import StrataSQL
/// Where a store keeps the members of each to-many relationship, and their order.
///
/// - One-to-many: the destination's foreign-key column says who the owner is,
///   and a hidden position column beside it, `_order_<toOne>`, says where the
///   row sits in its owner's array. One index on `(foreignKey, position)` serves
///   both the lookup and the ordered load.
/// - Many-to-many: one join table per pair of inverse relationships, named after
///   the canonical side (the smaller `Entity.relationship`):
///   `_strata_join_<Entity>_<relationship>(source, target, source_position,
///   target_position)`, `PRIMARY KEY(source, target)`, both keys
///   `ON DELETE CASCADE`. Each side has its own position column, so both arrays
///   keep the order the app gave them.
/// - To-many without an inverse: a join table of its own, named after the
///   relationship, with the owner as `source`; only the owner's position is used.
///
/// Names starting with `_` are reserved for Strata, so none of these can clash
/// with an entity's own columns or tables. All SQL is built once per store.
struct RelationshipLayout: Sendable {
    /// How one to-many relationship is stored.
    enum ToMany: Sendable {
        case foreignKey(OrderedForeignKey)
        case joinTable(JoinSide)

        /// The index of the destination entity.
        var destinationIndex: Int {
            switch self {
            case .foreignKey(let storage): storage.destinationIndex
            case .joinTable(let storage): storage.destinationIndex
            }
        }

        /// `SELECT` of the destination rows of one owner, in the stored order;
        /// the owner's key is the only argument.
        var loadSQL: String {
            switch self {
            case .foreignKey(let storage): storage.loadSQL
            case .joinTable(let storage): storage.loadSQL
            }
        }

        /// `SELECT` of the destination rows of `count` owners, each row followed
        /// by its owner's key, by owner and then in each owner's stored order;
        /// the owners' keys are the arguments.
        func loadSQL(owners count: Int) -> String {
            let query = ownersQuery
            return query.head + " IN (" + String(repeating: "?, ", count: count - 1) + "?)" + query.order
        }

        /// As ``loadSQL(owners:)``, for the owners whose keys lie between `?1`
        /// and `?2` (inclusive): one range read of the index.
        var rangeLoadSQL: String {
            let query = ownersQuery
            return query.head + " BETWEEN ?1 AND ?2" + query.order
        }

        private var ownersQuery: OwnersQuery {
            switch self {
            case .foreignKey(let storage): storage.ownersQuery
            case .joinTable(let storage): storage.ownersQuery
            }
        }
    }

    /// The read of several owners' members, around the test of the owner's key.
    struct OwnersQuery: Sendable {
        /// `SELECT …, owner FROM … WHERE owner`
        let head: String
        /// ` ORDER BY owner, position, …`
        let order: String
    }

    /// A one-to-many relationship: the destination's foreign key and position column.
    struct OrderedForeignKey: Sendable {
        let destinationIndex: Int
        let loadSQL: String
        /// The destination rows whose owner's key lies between `?1` and `?2`,
        /// in key order (the table's own), each followed by its position: a
        /// read of every owner's members without the index (see
        /// `SQLiteStore.fetchMembers`).
        let tableScanSQL: String
        /// Where the foreign key sits among the destination's columns (nil
        /// would mean it has none, and no scan is offered).
        let foreignKeyColumn: Int?
        /// ``ToMany/loadSQL(owners:)`` and ``ToMany/rangeLoadSQL`` around their test of the owner.
        let ownersQuery: OwnersQuery
        /// `UPDATE … SET position = ?1 WHERE pk = ?2`, skipping rows already in place.
        let setPositionSQL: String
        /// Puts row `?2` after the other rows of owner `?1`.
        let appendSQL: String
    }

    /// One side of a many-to-many relationship.
    struct JoinSide: Sendable {
        let destinationIndex: Int
        /// The inverse relationship's ordinal on the destination entity (-1: none).
        let inverseOrdinal: Int
        let loadSQL: String
        /// ``ToMany/loadSQL(owners:)`` and ``ToMany/rangeLoadSQL`` around their test of the owner.
        let ownersQuery: OwnersQuery
        /// The member keys of owner `?1`.
        let membersSQL: String
        /// Adds pair (`?1` owner, `?2` member) at owner position `?3`; a new pair
        /// goes last among the member's own owners.
        let upsertSQL: String
        /// Removes pair (`?1` owner, `?2` member).
        let deleteSQL: String
    }

    /// By entity index, then ordinal: the storage of each to-many relationship.
    let toMany: [[ToMany?]]
    /// By entity index: definitions of the hidden position columns of its table.
    let positionColumns: [[String]]
    /// By entity index: replaces the plain foreign-key index of a to-one whose
    /// inverse is ordered, keyed by the to-one's ordinal.
    let orderedIndexColumns: [[Int: String]]
    /// `CREATE TABLE` and `CREATE INDEX` statements of the join tables.
    let joinTableStatements: [String]

    /// The statements that create a join table (unquoted name) between the
    /// tables of `source` and `target`, and its index by target.
    static func createJoinTableSQL(_ name: String, source: String, target: String) -> [String] {
        let table = quote(name)
        return [
            """
            CREATE TABLE \(table) (\
            "source" INTEGER NOT NULL REFERENCES \(quote(source))(pk) ON DELETE CASCADE, \
            "target" INTEGER NOT NULL REFERENCES \(quote(target))(pk) ON DELETE CASCADE, \
            "source_position" INTEGER NOT NULL DEFAULT 0, \
            "target_position" INTEGER NOT NULL DEFAULT 0, \
            PRIMARY KEY ("source", "target")) WITHOUT ROWID
            """,
            "CREATE INDEX \(quote(name + "_target")) ON \(table)(\"target\", \"target_position\")",
        ]
    }

    init(schema: Schema, selectLists: [String]) {
        let entities = schema.entities
        var toMany = entities.map { Array<ToMany?>(repeating: nil, count: $0.properties.count) }
        var positionColumns = entities.map { _ in [String]() }
        var orderedIndexColumns = entities.map { _ in [Int: String]() }
        var joinTableStatements: [String] = []
        for entity in entities {
            for (ordinal, property) in entity.properties.enumerated() {
                guard case .relationship(let relationship) = property, relationship.isToMany else { continue }
                let inverse = entity.inverseOrdinalByOrdinal[ordinal]
                let destinationIndex = entity.destinationIndexByOrdinal[ordinal]
                guard destinationIndex >= 0 else { continue }
                let destination = entities[destinationIndex]
                let destinationTable = quote(destination.name)
                let selectList = selectLists[destinationIndex]
                if inverse >= 0, case .relationship(let back) = destination.properties[inverse], !back.isToMany {
                    let foreignKey = quote(back.name)
                    let position = quote(StorageNaming.positionColumn(forToOne: back.name))
                    positionColumns[destinationIndex].append("\(position) INTEGER")
                    orderedIndexColumns[destinationIndex][inverse] = "\(foreignKey), \(position)"
                    toMany[entity.index][ordinal] = .foreignKey(OrderedForeignKey(
                        destinationIndex: destinationIndex,
                        loadSQL: "SELECT \(selectList) FROM \(destinationTable) AS t0 WHERE t0.\(foreignKey) = ? ORDER BY t0.\(position), t0.pk",
                        tableScanSQL: """
                            SELECT \(selectList), t0.\(position) FROM \(destinationTable) AS t0 NOT INDEXED \
                            WHERE t0.\(foreignKey) BETWEEN ?1 AND ?2 ORDER BY t0.pk
                            """,
                        foreignKeyColumn: destination.columnOrdinals.firstIndex(of: inverse),
                        ownersQuery: OwnersQuery(
                            head: "SELECT \(selectList), t0.\(foreignKey) FROM \(destinationTable) AS t0 WHERE t0.\(foreignKey)",
                            order: " ORDER BY t0.\(foreignKey), t0.\(position), t0.pk"),
                        setPositionSQL: "UPDATE \(destinationTable) SET \(position) = ?1 WHERE pk = ?2 AND \(position) IS NOT ?1",
                        appendSQL: """
                            UPDATE \(destinationTable) SET \(position) = (SELECT COALESCE(MAX(\(position)) + 1, 0) \
                            FROM \(destinationTable) WHERE \(foreignKey) = ?1 AND pk <> ?2) WHERE pk = ?2
                            """))
                    continue
                }
                guard let join = StorageNaming.joinTable(of: entity, ordinal: ordinal, in: schema) else { continue }
                let table = quote(join.table)
                let isCanonical = join.owner == "source"
                let (owner, member) = (quote(join.owner), quote(join.member))
                let (ownerPosition, memberPosition) = (quote(join.owner + "_position"), quote(join.member + "_position"))
                toMany[entity.index][ordinal] = .joinTable(JoinSide(
                    destinationIndex: destinationIndex, inverseOrdinal: inverse,
                    loadSQL: """
                        SELECT \(selectList) FROM \(table) AS j JOIN \(destinationTable) AS t0 ON t0.pk = j.\(member) \
                        WHERE j.\(owner) = ? ORDER BY j.\(ownerPosition), j.\(member)
                        """,
                    ownersQuery: OwnersQuery(
                        head: "SELECT \(selectList), j.\(owner) FROM \(table) AS j JOIN \(destinationTable) AS t0 ON t0.pk = j.\(member) WHERE j.\(owner)",
                        order: " ORDER BY j.\(owner), j.\(ownerPosition), j.\(member)"),
                    membersSQL: "SELECT \(member) FROM \(table) WHERE \(owner) = ?",
                    upsertSQL: """
                        INSERT INTO \(table) (\(owner), \(member), \(ownerPosition), \(memberPosition)) \
                        VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(\(memberPosition)) + 1, 0) FROM \(table) WHERE \(member) = ?2)) \
                        ON CONFLICT ("source", "target") DO UPDATE SET \(ownerPosition) = excluded.\(ownerPosition) \
                        WHERE \(ownerPosition) IS NOT excluded.\(ownerPosition)
                        """,
                    deleteSQL: "DELETE FROM \(table) WHERE \(owner) = ? AND \(member) = ?"))
                if isCanonical {
                    joinTableStatements += Self.createJoinTableSQL(join.table, source: entity.name, target: destination.name)
                }
            }
        }
        self.toMany = toMany
        self.positionColumns = positionColumns
        self.orderedIndexColumns = orderedIndexColumns
        self.joinTableStatements = joinTableStatements
    }
}
