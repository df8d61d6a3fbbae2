import Foundation
import StrataCore
import StrataSQL
import GRDB

/// Carrying out an ``InferredMigration`` on a SQLite store: tables whose stored
/// shape changed are rebuilt (a new table filled with one `INSERT … SELECT`,
/// the old one dropped, the new one renamed), so no row passes through memory;
/// tables that did not change are left alone. Runs inside the migration's
/// transaction, with foreign keys off (SQLite's own procedure for changing a
/// table), and the caller checks foreign keys before it commits.
extension SQLiteStore {
    /// `progress` is called once per join table and per entity, naming it.
    static func apply(
        _ step: InferredMigration, from stored: SchemaSummary, to schema: Schema, in db: Database,
        progress: (String) -> Void = { _ in }
    ) throws {
        let layout = StoreLayout(schema: schema)
        var tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        let joinTablesBefore = tables.filter { $0.hasPrefix(StorageNaming.joinTablePrefix) }
        var joinTablesKept = Set<String>()

        // Pairs first: a one-to-many becoming many-to-many reads the member
        // table's old foreign-key column before that table is rebuilt.
        for join in step.joins {
            let owner = schema.entities[join.ownerEntity]
            let destination = schema.entities[owner.destinationIndexByOrdinal[join.ordinal]]
            let name = StorageNaming.joinTableName(entity: owner.name, relationship: owner.properties[join.ordinal].name)
            let create = RelationshipLayout.createJoinTableSQL(name, source: owner.name, target: destination.name)
            switch join.source {
            case .pairs(let entity, let relationship, let swapped):
                let old = StorageNaming.joinTableName(entity: entity, relationship: relationship)
                guard tables.contains(old) else {
                    for statement in create { try db.execute(sql: statement) }
                    break
                }
                if old == name, !swapped {
                    joinTablesKept.insert(name)
                    break
                }
                let staging = "_strata_migrating_" + name
                try db.execute(sql: create[0].replacingOccurrences(of: "CREATE TABLE \(quote(name))", with: "CREATE TABLE \(quote(staging))"))
                let columns = swapped
                    ? #""target", "source", "target_position", "source_position""#
                    : #""source", "target", "source_position", "target_position""#
                try db.execute(sql: """
                    INSERT INTO \(quote(staging)) ("source", "target", "source_position", "target_position") \
                    SELECT \(columns) FROM \(quote(old))
                    """)
                try db.execute(sql: "DROP TABLE \(quote(old))")
                tables.remove(old)
                try db.execute(sql: "ALTER TABLE \(quote(staging)) RENAME TO \(quote(name))")
                try db.execute(sql: create[1])
                joinTablesKept.insert(name)
            case .foreignKey(let member, let toOne):
                for statement in create { try db.execute(sql: statement) }
                let position = StorageNaming.positionColumn(forToOne: toOne)
                let hasPosition = try db.columns(in: member).contains { $0.name == position }
                try db.execute(sql: """
                    INSERT INTO \(quote(name)) ("source", "target", "source_position", "target_position") \
                    SELECT \(quote(toOne)), pk, \(hasPosition ? "COALESCE(\(quote(position)), 0)" : "0"), 0 \
                    FROM \(quote(member)) WHERE \(quote(toOne)) IS NOT NULL
                    """)
            case .ownerToOne(let toOne):
                // Each owner had one member; the member's list kept its order in the owner's position column.
                for statement in create { try db.execute(sql: statement) }
                let position = StorageNaming.positionColumn(forToOne: toOne)
                let hasPosition = try db.columns(in: owner.name).contains { $0.name == position }
                try db.execute(sql: """
                    INSERT INTO \(quote(name)) ("source", "target", "source_position", "target_position") \
                    SELECT pk, \(quote(toOne)), 0, \(hasPosition ? "COALESCE(\(quote(position)), 0)" : "0") \
                    FROM \(quote(owner.name)) WHERE \(quote(toOne)) IS NOT NULL
                    """)
            case .none:
                if tables.contains(name) { try db.execute(sql: "DROP TABLE \(quote(name))") }
                for statement in create { try db.execute(sql: statement) }
            }
            joinTablesKept.insert(name)
            progress("migrated \(owner.name).\(owner.properties[join.ordinal].name)")
        }
        for entityStep in step.entities {
            let entity = schema.entities[entityStep.entityIndex]
            try migrate(entity, entityStep, schema: schema, layout: layout, tables: tables, in: db)
            progress("migrated \(entity.name)")
        }
        // Last: a to-many that became a to-one read its pairs from these.
        for table in joinTablesBefore.subtracting(joinTablesKept) where tables.contains(table) {
            try db.execute(sql: "DROP TABLE \(quote(table))")
        }
        for name in step.removedEntities {
            try db.execute(sql: "DROP TABLE IF EXISTS \(quote(name))")
            try db.execute(sql: "DELETE FROM \(StorageNaming.sequenceTable) WHERE entity = ?", arguments: [name])
        }
    }

    private static func migrate(
        _ entity: EntityDescription, _ step: InferredMigration.EntityStep, schema: Schema, layout: StoreLayout,
        tables: Set<String>, in db: Database
    ) throws {
        let positions = layout.relationships.positionColumns[entity.index]
        let create = createTableSQL(entity, schema: schema, positionColumns: positions)
        let indexes = indexSQL(entity, orderedColumns: layout.relationships.orderedIndexColumns[entity.index])
        guard let source = step.source, tables.contains(source) else {
            try db.execute(sql: create)
            try createIndexes(indexes, of: entity, in: db)
            return
        }
        let storedSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [source])
        if source == entity.name, let storedSQL,
           let statements = inPlaceChanges(entity, step, schema: schema, positionColumns: positions, storedSQL: storedSQL) {
            // Renames and added attributes only: no row is copied.
            for statement in statements { try db.execute(sql: statement) }
            try replaceIndexesIfChanged(indexes, of: entity, in: db)
            return
        }

        let staging = "_strata_migrating_" + entity.name
        try db.execute(sql: create.replacingOccurrences(
            of: "CREATE TABLE \(quote(entity.name)) (", with: "CREATE TABLE \(quote(staging)) ("))
        let storedColumns = Set(try db.columns(in: source).map(\.name))
        var targets = ["pk", StorageNaming.versionColumn]
        var expressions = ["pk", StorageNaming.versionColumn]
        var arguments: [StoredValue] = []
        for ordinal in entity.columnOrdinals {
            let column = step.columns[ordinal] ?? .null
            if case .pairedKey(let owner, let relationship, let rowIsSource) = column {
                try checkOnePair(entity, ordinal, table: StorageNaming.joinTableName(entity: owner, relationship: relationship),
                                 rowIsSource: rowIsSource, tables: tables, in: db)
            }
            if case .column(let name, .jsonToInteger, _) = column, storedColumns.contains(name) {
                try checkWholeNumbers(entity, ordinal, column: name, table: source, in: db)
            }
            targets.append(quote(entity.properties[ordinal].name))
            expressions.append(expression(for: column, table: source, storedColumns: storedColumns, tables: tables, arguments: &arguments))
        }
        for ordinal in schema.orderedToOneOrdinals(of: entity.index) {
            let name = entity.properties[ordinal].name
            targets.append(quote(StorageNaming.positionColumn(forToOne: name)))
            if case .pairedKey(let owner, let relationship, let rowIsSource)? = step.columns[ordinal] {
                // The owner's order of its members: the pair's position on the owner's side.
                let join = StorageNaming.joinTableName(entity: owner, relationship: relationship)
                expressions.append(tables.contains(join) ? pairedSQL(join, rowIsSource: rowIsSource, table: source, position: true) : "NULL")
                continue
            }
            let was = step.toOneSources[ordinal].map(StorageNaming.positionColumn(forToOne:))
            expressions.append(was.flatMap { storedColumns.contains($0) ? quote($0) : nil } ?? "NULL")
        }
        let statement = try db.makeStatement(sql: """
            INSERT INTO \(quote(staging)) (\(targets.joined(separator: ", "))) \
            SELECT \(expressions.joined(separator: ", ")) FROM \(quote(source))
            """)
        // The raw statement borrows the handle `statement` owns.
        try withExtendedLifetime(statement) {
            let copy = RawStatement(statement, in: db)
            try copy.bind(arguments)
            try copy.execute()
        }
        try db.execute(sql: "DROP TABLE \(quote(source))")
        try db.execute(sql: "ALTER TABLE \(quote(staging)) RENAME TO \(quote(entity.name))")
        try createIndexes(indexes, of: entity, in: db)
    }

    /// The SQL that reads a new column from the stored row of `table`.
    private static func expression(
        for source: InferredMigration.ColumnSource, table: String, storedColumns: Set<String>, tables: Set<String>,
        arguments: inout [StoredValue]
    ) -> String {
        switch source {
        case .null:
            return "NULL"
        case .pairedKey(let owner, let relationship, let rowIsSource):
            let join = StorageNaming.joinTableName(entity: owner, relationship: relationship)
            return tables.contains(join) ? pairedSQL(join, rowIsSource: rowIsSource, table: table, position: false) : "NULL"
        case .value(let value):
            arguments.append(value)
            return "?"
        case .column(let name, let conversion, let whenNull):
            guard storedColumns.contains(name) else { return "NULL" }
            var sql = quote(name)
            switch conversion {
            case .none: break
            case .toReal: sql = "CAST(\(sql) AS REAL)"
            case .toText: sql = "CAST(\(sql) AS TEXT)"
            case .boolToText: sql = "CASE WHEN \(sql) IS NULL THEN NULL WHEN \(sql) THEN 'true' ELSE 'false' END"
            case .jsonToInteger: sql = "CAST(\(sql) AS INTEGER)"
            }
            if let whenNull {
                arguments.append(whenNull)
                sql = "COALESCE(\(sql), ?)"
            }
            return sql
        }
    }

    /// The other key (or its side's position) of the row's one pair in `join`.
    private static func pairedSQL(_ join: String, rowIsSource: Bool, table: String, position: Bool) -> String {
        let (row, other) = rowIsSource ? ("source", "target") : ("target", "source")
        let column = position ? other + "_position" : other
        return "(SELECT j.\(quote(column)) FROM \(quote(join)) AS j WHERE j.\(quote(row)) = \(quote(table)).pk)"
    }

    /// A to-many becoming a to-one keeps every pair only if no row has two.
    private static func checkOnePair(
        _ entity: EntityDescription, _ ordinal: Int, table join: String, rowIsSource: Bool, tables: Set<String>, in db: Database
    ) throws {
        guard tables.contains(join) else { return }
        let row = quote(rowIsSource ? "source" : "target")
        let keys = try Int64.fetchAll(db, sql: "SELECT \(row) FROM \(quote(join)) GROUP BY \(row) HAVING COUNT(*) > 1 LIMIT 5")
        guard keys.isEmpty else {
            throw StrataError(
                .migrationFailed,
                "\(entity.name).\(entity.properties[ordinal].name) becomes to-one, but rows with keys "
                    + keys.map(String.init).joined(separator: ", ") + " have more than one; nothing was migrated",
                entityName: entity.name, propertyName: entity.properties[ordinal].name)
        }
    }

    /// JSON numbers become integers only when each is a whole number an
    /// integer column keeps (`CAST` would clamp a larger one).
    private static func checkWholeNumbers(
        _ entity: EntityDescription, _ ordinal: Int, column: String, table: String, in db: Database
    ) throws {
        let value = quote(column)
        let keys = try Int64.fetchAll(db, sql: """
            SELECT pk FROM \(quote(table)) WHERE \(value) IS NOT NULL AND (typeof(\(value)) <> 'text'
                OR CAST(CAST(\(value) AS INTEGER) AS TEXT) <> \(value) OR CAST(\(value) AS INTEGER) < 0) ORDER BY pk LIMIT 5
            """)
        guard keys.isEmpty else {
            throw InferredMigration.notWholeNumbers(entity.name, entity.properties[ordinal].name, keys: keys)
        }
    }

    /// Creates an entity's indexes; a uniqueness constraint that stored rows
    /// break fails with the rows named.
    static func createIndexes(_ statements: [String], of entity: EntityDescription, in db: Database) throws {
        for statement in statements {
            do {
                try db.execute(sql: statement)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw StrataError(
                    .migrationFailed,
                    "\(entity.name) has rows that break a uniqueness constraint the new schema adds: \(try duplicates(statement, entity: entity, in: db))",
                    entityName: entity.name, underlyingError: error)
            }
        }
    }

    /// The keys of the first rows that share the columns of a unique index.
    private static func duplicates(_ indexStatement: String, entity: EntityDescription, in db: Database) throws -> String {
        guard let open = indexStatement.lastIndex(of: "("), let close = indexStatement.lastIndex(of: ")") else { return "" }
        let columns = String(indexStatement[indexStatement.index(after: open)..<close])
        let groups = try String.fetchAll(db, sql: """
            SELECT \(columns.replacingOccurrences(of: ", ", with: " || ', ' || ")) || ': keys ' || group_concat(pk, ', ') \
            FROM \(quote(entity.name)) GROUP BY \(columns) HAVING COUNT(*) > 1 LIMIT 5
            """)
        return "(\(columns)) " + groups.joined(separator: "; ")
    }
}
