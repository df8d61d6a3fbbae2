import Foundation
import StrataCore
import StrataSQL

/// Carrying out an ``InferredMigration`` on a PostgreSQL store, inside the
/// migration's transaction.
///
/// A table whose only changes are renamed columns and added attributes is
/// changed in place (`RENAME COLUMN`, `ADD COLUMN … DEFAULT`, which
/// PostgreSQL does without rewriting a row). Any other changed table is
/// rebuilt: a new table filled by one `INSERT … SELECT`, the old one dropped,
/// the new one renamed, so no row passes through the server's memory. A
/// table that is replaced or dropped loses its foreign keys and those that
/// point at it first; at the end every key the new schema lacks is added,
/// which checks those relationships. Keys of tables changed in place stay,
/// their rows not read again.
///
/// Folded text is copied where it was kept; text that is new (a converted
/// number or identifier) is folded by `lower` for ASCII and by Swift for the
/// rest, so it equals what a save would write.
///
/// ```swift
/// try PostgresInferredStep(step, from: storedSummary, to: PostgresLayout(schema: v2, namespace: "app"), in: session)
///     .apply { detail in print(detail) }
/// ```
struct PostgresInferredStep {
    let step: InferredMigration
    let stored: SchemaSummary
    let layout: PostgresLayout
    let session: PostgresSession

    init(_ step: InferredMigration, from stored: SchemaSummary, to layout: PostgresLayout, in session: PostgresSession) {
        self.step = step
        self.stored = stored
        self.layout = layout
        self.session = session
    }

    var schema: Schema { layout.schema }

    /// `progress` is called once per join table and per entity, naming it.
    func apply(progress: (String) -> Void) throws(StrataError) {
        var tables = try tableNames()
        // Foreign keys go only with the tables that are replaced or dropped;
        // those an app added itself are put back at the end.
        var userForeignKeys: [UserForeignKey] = []
        let joinTablesBefore = tables.names.filter { $0.hasPrefix(StorageNaming.joinTablePrefix) }
        var joinTablesKept = Set<String>()
        // Pairs first: a one-to-many becoming many-to-many reads the member
        // table's foreign-key column before that table is rebuilt.
        for join in step.joins {
            joinTablesKept.insert(PostgresLayout.catalogName(try migrate(join, tables: &tables, keeping: &userForeignKeys)))
            let owner = schema.entities[join.ownerEntity]
            progress("migrated \(owner.name).\(owner.properties[join.ordinal].name)")
        }
        for entityStep in step.entities {
            try migrate(entityStep, tables: tables, keeping: &userForeignKeys)
            progress("migrated \(schema.entities[entityStep.entityIndex].name)")
        }
        // Last: a to-many that became a to-one read its pairs from these.
        for table in joinTablesBefore.subtracting(joinTablesKept) where tables.contains(table) {
            try dropTable(table, keeping: &userForeignKeys)
        }
        for name in step.removedEntities {
            try dropTable(name, ifExists: true, keeping: &userForeignKeys)
            try session.execute("DELETE FROM \(layout.sequenceTable) WHERE entity = $1", [.text(name)])
        }
        try addMissingForeignKeys()
        try restore(userForeignKeys)
    }

    // MARK: Join tables

    /// Migrates one join table of the new schema; returns its name.
    private func migrate(
        _ join: InferredMigration.JoinStep, tables: inout StoredTables, keeping userKeys: inout [UserForeignKey]
    ) throws(StrataError) -> String {
        let owner = schema.entities[join.ownerEntity]
        let destination = schema.entities[owner.destinationIndexByOrdinal[join.ordinal]]
        let name = PostgresLayout.joinTableName(entity: owner.name, relationship: owner.properties[join.ordinal].name)
        let definition = layout.joinTables.first { $0.name == name }
            ?? JoinTableDefinition(name: name, source: owner.name, target: destination.name)
        let table = layout.qualified(name)
        let create = layout.createJoinTableSQL(definition, named: table)
        let pairColumns = #""source", "target", "source_position", "target_position""#
        switch join.source {
        case .pairs(let entity, let relationship, let swapped):
            let old = PostgresLayout.joinTableName(entity: entity, relationship: relationship)
            guard tables.contains(old) else {
                for statement in create { try session.execute(statement) }
                break
            }
            if old == name, !swapped { break }
            let staging = "_strata_m_" + name
            try session.execute(layout.createJoinTableSQL(definition, named: layout.qualified(staging))[0])
            let columns = swapped ? #""target", "source", "target_position", "source_position""# : pairColumns
            try session.execute("INSERT INTO \(layout.qualified(staging)) (\(pairColumns)) SELECT \(columns) FROM \(layout.qualified(old))")
            try dropTable(old, keeping: &userKeys)
            tables.remove(old)
            try session.execute("ALTER TABLE \(layout.qualified(staging)) RENAME TO \(quote(name))")
            try renamePrimaryKey(of: name)
            try session.execute(create[1])
        case .foreignKey(let member, let toOne):
            for statement in create { try session.execute(statement) }
            guard tables.contains(member) else { break }
            let position = try positionSQL(toOne, in: member)
            try session.execute("""
                INSERT INTO \(table) (\(pairColumns)) SELECT \(quote(toOne)), pk, \(position), 0 \
                FROM \(layout.qualified(member)) WHERE \(quote(toOne)) IS NOT NULL
                """)
        case .ownerToOne(let toOne):
            // Each owner had one member; the member's list kept its order in the owner's position column.
            for statement in create { try session.execute(statement) }
            guard tables.contains(owner.name) else { break }
            let position = try positionSQL(toOne, in: owner.name)
            try session.execute("""
                INSERT INTO \(table) (\(pairColumns)) SELECT pk, \(quote(toOne)), 0, \(position) \
                FROM \(layout.qualified(owner.name)) WHERE \(quote(toOne)) IS NOT NULL
                """)
        case .none:
            if tables.contains(name) { try dropTable(name, keeping: &userKeys) }
            for statement in create { try session.execute(statement) }
        }
        return name
    }

    /// A to-one's stored position, or 0 when it kept none.
    private func positionSQL(_ toOne: String, in table: String) throws(StrataError) -> String {
        let position = StorageNaming.positionColumn(forToOne: toOne)
        let stored = try columns(of: table).contains { $0.name == position }
        return stored ? "COALESCE(\(quote(position)), 0)" : "0"
    }

    // MARK: Entity tables

    private func migrate(
        _ entityStep: InferredMigration.EntityStep, tables: StoredTables, keeping userKeys: inout [UserForeignKey]
    ) throws(StrataError) {
        let entity = schema.entities[entityStep.entityIndex]
        let table = layout.entities[entity.index].table
        let indexes = layout.indexes(of: entity)
        guard let source = entityStep.source, tables.contains(source) else {
            try session.execute(layout.createTableSQL(entity, named: table))
            try createIndexes(indexes, of: entity)
            return
        }
        let storedColumns = try columns(of: source)
        if source == entity.name, let statements = inPlaceChanges(entity, entityStep, stored: storedColumns) {
            for statement in statements { try session.execute(statement) }
            try replaceIndexesIfChanged(indexes, of: entity)
            return
        }

        let staging = layout.qualified("_strata_m_" + entity.name)
        try session.execute(layout.createTableSQL(entity, named: staging))
        let storedNames = Set(storedColumns.map(\.name))
        var targets = ["pk", StorageNaming.versionColumn]
        var expressions = ["s.pk", "s.\(StorageNaming.versionColumn)"]
        var arguments: [StoredValue] = []
        var refolded: [String] = []
        for ordinal in entity.columnOrdinals {
            let column = entityStep.columns[ordinal] ?? .null
            let property = entity.properties[ordinal]
            if case .pairedKey(let owner, let relationship, let rowIsSource) = column {
                try checkOnePair(entity, ordinal, join: PostgresLayout.joinTableName(entity: owner, relationship: relationship), rowIsSource: rowIsSource, tables: tables)
            }
            if case .column(let name, .jsonToInteger, _) = column, storedNames.contains(name) {
                try checkWholeNumbers(entity, ordinal, column: name, table: source)
            }
            let attribute = entity.attribute(at: ordinal)
            let type = attribute.map { PostgresLayout.bindType($0.type) } ?? "bigint"
            let value = expression(for: column, type: type, source: source, stored: storedNames, tables: tables, arguments: &arguments)
            targets.append(quote(property.name))
            expressions.append(value)
            guard let attribute, attribute.type == .string else { continue }
            targets.append(quote(StorageNaming.foldedColumn(attribute.name)))
            switch column {
            case .column(let old, .none, let whenNull) where storedNames.contains(StorageNaming.foldedColumn(old)):
                var sql = "s." + quote(StorageNaming.foldedColumn(old))
                if let whenNull {
                    arguments.append(PostgresLayout.folded(whenNull))
                    sql = "COALESCE(\(sql), $\(arguments.count)::text)"
                }
                expressions.append(sql)
            case .value(let constant):
                arguments.append(PostgresLayout.folded(constant))
                expressions.append("$\(arguments.count)::text")
            case .null:
                expressions.append("NULL")
            default:
                // Text that had no folded twin: ASCII folds by lower-casing; the rest is folded below.
                expressions.append("lower((\(value)) COLLATE \"C\")")
                refolded.append(attribute.name)
            }
        }
        for (ordinal, columns) in layout.orderedIndexColumns[entity.index].sorted(by: { $0.key < $1.key }) {
            targets.append(quote(columns[1]))
            if case .pairedKey(let owner, let relationship, let rowIsSource)? = entityStep.columns[ordinal] {
                // The owner's order of its members: the pair's position on the owner's side.
                let join = PostgresLayout.joinTableName(entity: owner, relationship: relationship)
                expressions.append(tables.contains(join) ? pairedSQL(join, rowIsSource: rowIsSource, position: true) : "NULL")
                continue
            }
            let was = entityStep.toOneSources[ordinal].map(StorageNaming.positionColumn(forToOne:))
            expressions.append(was.flatMap { storedNames.contains($0) ? "s." + quote($0) : nil } ?? "NULL")
        }
        try session.execute("""
            INSERT INTO \(staging) (\(targets.joined(separator: ", "))) \
            SELECT \(expressions.joined(separator: ", ")) FROM \(layout.qualified(source)) AS s
            """, arguments)
        try dropTable(source, keeping: &userKeys)
        try session.execute("ALTER TABLE \(staging) RENAME TO \(quote(entity.name))")
        try renamePrimaryKey(of: entity.name)
        for name in refolded { try refold(name, in: table) }
        try createIndexes(indexes, of: entity)
    }

    /// The SQL that reads a new column from the stored row `s`.
    private func expression(
        for source: InferredMigration.ColumnSource, type: String, source table: String, stored: Set<String>, tables: StoredTables,
        arguments: inout [StoredValue]
    ) -> String {
        switch source {
        case .null:
            return "NULL::\(type)"
        case .pairedKey(let owner, let relationship, let rowIsSource):
            let join = PostgresLayout.joinTableName(entity: owner, relationship: relationship)
            return tables.contains(join) ? pairedSQL(join, rowIsSource: rowIsSource, position: false) : "NULL::bigint"
        case .value(let value):
            arguments.append(value)
            return "$\(arguments.count)::\(type)"
        case .column(let name, let conversion, let whenNull):
            guard stored.contains(name) else { return "NULL::\(type)" }
            var sql = "s." + quote(name)
            switch conversion {
            case .none: break
            case .toReal: sql = "CAST(\(sql) AS double precision)"
            case .toText where storedType(of: name, in: table).map({ PostgresLayout.bindType($0) }) == "double precision":
                // As Swift and SQLite write whole numbers: "3.0", not PostgreSQL's "3".
                sql = "CASE WHEN \(sql) = 'NaN' THEN 'nan' WHEN \(sql) = 'Infinity' THEN 'inf' WHEN \(sql) = '-Infinity' THEN '-inf' "
                    + "WHEN \(sql) = trunc(\(sql)) AND abs(\(sql)) < 1e15 "
                    + "THEN trunc(\(sql))::bigint::text || '.0' ELSE CAST(\(sql) AS text) END"
            case .toText: sql = "CAST(\(sql) AS text)"
            case .boolToText: sql = "CASE WHEN \(sql) IS NULL THEN NULL WHEN \(sql) <> 0 THEN 'true' ELSE 'false' END"
            case .jsonToInteger: sql = "CAST(\(sql) AS bigint)"
            }
            if let whenNull {
                arguments.append(whenNull)
                sql = "COALESCE(\(sql), $\(arguments.count)::\(type))"
            }
            return sql
        }
    }

    /// The type an attribute of a stored entity had.
    private func storedType(of property: String, in entity: String) -> AttributeType? {
        let properties = stored.entities.first { $0.name == entity }?.properties ?? []
        for case .attribute(let attribute) in properties where attribute.name == property { return attribute.type }
        return nil
    }

    /// The other key (or its side's position) of the row's one pair in `join`.
    private func pairedSQL(_ join: String, rowIsSource: Bool, position: Bool) -> String {
        let (row, other) = rowIsSource ? ("source", "target") : ("target", "source")
        let column = position ? other + "_position" : other
        return "(SELECT j.\(quote(column)) FROM \(layout.qualified(join)) AS j WHERE j.\(quote(row)) = s.pk)"
    }

    /// A to-many becoming a to-one keeps every pair only if no row has two.
    private func checkOnePair(
        _ entity: StrataCore.EntityDescription, _ ordinal: Int, join: String, rowIsSource: Bool, tables: StoredTables
    ) throws(StrataError) {
        guard tables.contains(join) else { return }
        let row = quote(rowIsSource ? "source" : "target")
        var keys: [Int64] = []
        for pair in try session.rows("SELECT \(row) FROM \(layout.qualified(join)) GROUP BY \(row) HAVING COUNT(*) > 1 ORDER BY 1 LIMIT 5") {
            for cell in pair { keys += try PostgresSession.integer(cell).map { [$0] } ?? [] }
        }
        guard keys.isEmpty else {
            throw StrataError(
                .migrationFailed,
                "\(entity.name).\(entity.properties[ordinal].name) becomes to-one, but rows with keys "
                    + keys.map(String.init).joined(separator: ", ") + " have more than one; nothing was migrated",
                entityName: entity.name, propertyName: entity.properties[ordinal].name)
        }
    }

    /// JSON numbers become integers only when each is a whole number a
    /// `bigint` keeps.
    private func checkWholeNumbers(
        _ entity: StrataCore.EntityDescription, _ ordinal: Int, column: String, table: String
    ) throws(StrataError) {
        let value = quote(column)
        var keys: [Int64] = []
        let sql = "SELECT pk FROM \(layout.qualified(table)) WHERE \(value) IS NOT NULL AND (\(value) !~ '^(0|[1-9][0-9]{0,18})$' "
            + "OR \(value)::numeric > 9223372036854775807) ORDER BY pk LIMIT 5"
        for row in try session.rows(sql) {
            for cell in row { keys += try PostgresSession.integer(cell).map { [$0] } ?? [] }
        }
        guard keys.isEmpty else {
            throw InferredMigration.notWholeNumbers(entity.name, entity.properties[ordinal].name, keys: keys)
        }
    }

    /// Writes Swift's folding of the non-ASCII values of `attribute` into its
    /// folded twin (`lower` already folded the rest), 10,000 rows at a time.
    private func refold(_ attribute: String, in table: String) throws(StrataError) {
        let column = quote(attribute)
        var last = Int64.min
        while true {
            let rows = try session.rows("""
                SELECT pk, \(column) FROM \(table) WHERE pk > $1 AND octet_length(\(column)) <> char_length(\(column)) \
                ORDER BY pk LIMIT 10000
                """, [.integer(last)])
            var keys: [Int64] = [], folded: [StoredValue] = []
            for row in rows {
                let cells = Array(row)
                guard let key = try PostgresSession.integer(cells[0]) else { continue }
                keys.append(key)
                folded.append(PostgresLayout.folded(try PostgresSession.value(cells[1])))
            }
            guard let end = keys.last, let array = PostgresColumnArray(sqlType: "text", values: folded) else { return }
            try session.execute("""
                UPDATE \(table) AS t SET \(quote(StorageNaming.foldedColumn(attribute))) = v.f \
                FROM unnest($1::bigint[], $2::text[]) AS v(pk, f) WHERE t.pk = v.pk
                """, arguments: [.keys(keys), .column(array)])
            last = end
        }
    }

    /// Gives a rebuilt table's primary key the name a new store's has
    /// (PostgreSQL named it after the staging table).
    private func renamePrimaryKey(of table: String) throws(StrataError) {
        for row in try session.rows(
            "SELECT conname::text FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype = 'p'", [.text(layout.qualified(table))]) {
            for cell in row {
                guard case .text(let name) = try PostgresSession.value(cell) else { continue }
                let wanted = PostgresLayout.catalogName(table + "_pkey")
                if name != wanted {
                    try session.execute("ALTER TABLE \(layout.qualified(table)) RENAME CONSTRAINT \(quote(name)) TO \(quote(wanted))")
                }
            }
        }
    }
}
