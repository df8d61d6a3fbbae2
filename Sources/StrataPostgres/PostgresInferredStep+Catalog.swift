import Foundation
import StrataCore

/// The tables a migration step found, by the names PostgreSQL keeps (the
/// first 63 bytes): asked by the full names Strata gives them.
struct StoredTables {
    /// As the catalog holds them.
    private(set) var names: Set<String> = []

    init(names: Set<String> = []) { self.names = names }

    func contains(_ name: String) -> Bool { names.contains(PostgresLayout.catalogName(name)) }

    mutating func remove(_ name: String) { names.remove(PostgresLayout.catalogName(name)) }
}

/// What a migration step reads from PostgreSQL's catalog and changes in it:
/// the namespace's tables and columns, changes made in place, indexes and
/// foreign keys, each failure named by the rows at fault.
extension PostgresInferredStep {
    // Catalog reads go by name or by table, through the catalog's indexes:
    // a database may hold thousands of namespaces (a store per tenant).

    /// The tables of the namespace a step may read, replace or drop: every
    /// entity's and join table's of either schema.
    func tableNames() throws(StrataError) -> StoredTables {
        let recorded = PostgresLayout(schema: Schema(recorded: stored, assumedDefault: nil), namespace: layout.namespace)
        var candidates = Set(stored.entities.map(\.name) + layout.schema.entities.map(\.name))
        candidates.formUnion(recorded.joinTables.map(\.name) + layout.joinTables.map(\.name))
        for join in step.joins {
            if case .pairs(let entity, let relationship, _) = join.source { candidates.insert(PostgresLayout.joinTableName(entity: entity, relationship: relationship)) }
        }
        guard let array = PostgresColumnArray(sqlType: "text", values: candidates.sorted().map(StoredValue.text)) else { return StoredTables() }
        var names = Set<String>()
        for row in try session.rows("""
            SELECT relname::text FROM pg_class WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) \
            AND relkind = 'r' AND relname = ANY($2::text[]::name[])
            """, arguments: [.value(.text(layout.namespace)), .column(array)]) {
            for cell in row { if case .text(let name) = try PostgresSession.value(cell) { names.insert(name) } }
        }
        return StoredTables(names: names)
    }

    /// The columns of a table of the namespace, as stored.
    func columns(of table: String) throws(StrataError) -> [PostgresLayout.Column] {
        let rows = try session.rows("""
            SELECT attname::text, format_type(atttypid, NULL), (NOT attnotnull)::int4 FROM pg_attribute \
            WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped
            """, [.text(layout.qualified(table))])
        var columns: [PostgresLayout.Column] = []
        for row in rows {
            let cells = try Array(row).map { cell throws(StrataError) in try PostgresSession.value(cell) }
            guard case .text(let name) = cells[0], case .text(let type) = cells[1], case .integer(let nullable) = cells[2] else { continue }
            columns.append(PostgresLayout.Column(name: name, dataType: type, isNullable: nullable != 0))
        }
        return columns
    }

    // MARK: In place

    /// The statements that turn the stored table into the new one without
    /// copying it, or nil when it must be rebuilt. In place: renamed columns,
    /// attributes added with a constant (PostgreSQL records it apart, so no
    /// row is rewritten), removed
    /// columns, integers widened to `Double`, optional becoming required with
    /// a default (the rows without a value get it) and required becoming
    /// optional. Converted text, whose folded twin must be written, and
    /// changed relationships rebuild the table.
    func inPlaceChanges(
        _ entity: StrataCore.EntityDescription, _ step: InferredMigration.EntityStep, stored: [PostgresLayout.Column]
    ) -> [String]? {
        let table = layout.entities[entity.index].table
        var columns = Dictionary(stored.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var statements: [String] = []
        func rename(_ old: String, _ new: String) -> Bool {
            guard old != new else { return columns[new] != nil }
            guard let column = columns[old], columns[new] == nil else { return false }
            columns[old] = nil
            columns[new] = PostgresLayout.Column(name: new, dataType: column.dataType, isNullable: column.isNullable)
            statements.append("ALTER TABLE \(table) RENAME COLUMN \(quote(old)) TO \(quote(new))")
            return true
        }
        func add(_ column: PostgresLayout.Column, _ value: StoredValue?) -> Bool {
            guard columns[column.name] == nil else { return false }
            columns[column.name] = column
            guard let value, !value.isNull else {
                statements.append("ALTER TABLE \(table) ADD COLUMN \(column.definition)")
                return true
            }
            guard let literal = Self.literal(value) else { return false }
            // The default stays: rows a server of the old schema inserts get it too.
            statements.append("ALTER TABLE \(table) ADD COLUMN \(column.definition) DEFAULT \(literal)")
            return true
        }
        func require(_ name: String, nullable: Bool) {
            guard let column = columns[name], column.isNullable != nullable else { return }
            statements.append("ALTER TABLE \(table) ALTER COLUMN \(quote(name)) \(nullable ? "DROP" : "SET") NOT NULL")
            columns[name] = PostgresLayout.Column(name: name, dataType: column.dataType, isNullable: nullable)
        }
        for ordinal in entity.columnOrdinals {
            let name = entity.properties[ordinal].name
            let attribute = entity.attribute(at: ordinal)
            let folded = attribute?.type == .string ? PostgresLayout.foldedColumnName(name) : nil
            switch step.columns[ordinal] ?? .null {
            case .column(let old, let conversion, let whenNull):
                guard rename(old, name) else { return nil }
                if let folded {
                    guard conversion == .none, rename(PostgresLayout.foldedColumnName(old), folded) else { return nil }
                }
                if attribute == nil, let was = step.toOneSources[ordinal] {
                    let position = PostgresLayout.positionColumnName(forToOne: was)
                    if columns[position] != nil, !rename(position, PostgresLayout.positionColumnName(forToOne: name)) { return nil }
                }
                switch conversion {
                case .none:
                    break
                case .toReal:
                    let quoted = quote(name)
                    statements.append("ALTER TABLE \(table) ALTER COLUMN \(quoted) TYPE double precision USING \(quoted)::double precision")
                    columns[name] = PostgresLayout.Column(name: name, dataType: "double precision", isNullable: columns[name]?.isNullable ?? true)
                case .toText, .boolToText:
                    return nil
                }
                if let whenNull {
                    guard let literal = Self.literal(whenNull) else { return nil }
                    var assignments = ["\(quote(name)) = \(literal)"]
                    if let folded, let twin = Self.literal(PostgresLayout.folded(whenNull)) { assignments.append("\(quote(folded)) = \(twin)") }
                    statements.append("UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(quote(name)) IS NULL")
                }
                require(name, nullable: attribute?.isOptional ?? true)
            case .value(let value) where attribute != nil:
                guard let attribute, !value.isNull || attribute.isOptional else { return nil }
                let type = PostgresLayout.bindType(attribute.type)
                guard add(PostgresLayout.Column(name: name, dataType: type, isNullable: attribute.isOptional), value) else { return nil }
                if let folded, !add(PostgresLayout.Column(name: folded, dataType: "text", isNullable: true), PostgresLayout.folded(value)) {
                    return nil
                }
            case .null where attribute?.isOptional == true:
                guard let attribute else { return nil }
                let type = PostgresLayout.bindType(attribute.type)
                guard add(PostgresLayout.Column(name: name, dataType: type, isNullable: true), nil) else { return nil }
                if let folded, !add(PostgresLayout.Column(name: folded, dataType: "text", isNullable: true), nil) { return nil }
            default:
                return nil
            }
        }
        // Columns the new schema no longer has; dropping one only marks it gone.
        let expected = layout.columns(of: entity)
        let kept = Set(expected.map(\.name))
        for name in columns.keys.sorted() where !kept.contains(name) {
            statements.append("ALTER TABLE \(table) DROP COLUMN \(quote(name))")
            columns[name] = nil
        }
        guard Set(columns.values) == Set(expected) else { return nil }
        return statements
    }

    /// A constant PostgreSQL reads back as exactly `value`, or nil.
    static func literal(_ value: StoredValue) -> String? {
        switch value {
        case .null: "NULL"
        case .integer(let number): String(number)
        case .real(let number) where number.isNaN: "'NaN'::double precision"
        case .real(let number) where number.isInfinite: number > 0 ? "'Infinity'::double precision" : "'-Infinity'::double precision"
        // Swift writes the shortest text that reads back as the same double.
        case .real(let number): "'\(number)'::double precision"
        case .text(let text) where text.contains("\0"): nil
        // Escape strings read the same whatever `standard_conforming_strings` says.
        case .text(let text): "E'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): "decode('" + data.map { String(format: "%02x", $0) }.joined() + "', 'hex')"
        }
    }

    // MARK: Indexes

    /// Creates an entity's indexes; a uniqueness constraint that stored rows
    /// break fails with the rows named.
    func createIndexes(_ indexes: [PostgresLayout.Index], of entity: StrataCore.EntityDescription) throws(StrataError) {
        let table = layout.entities[entity.index].table
        for index in indexes {
            guard index.isUnique else {
                try session.execute(index.createSQL(on: table))
                continue
            }
            do throws(StrataError) {
                try session.withSavepoint { session throws(StrataError) in try session.execute(index.createSQL(on: table)) }
            } catch where error.code == .uniquenessConflict {
                let columns = index.columns.map(quote)
                var groups: [String] = []
                for row in try session.rows("""
                    SELECT concat_ws(', ', \(columns.map { "\($0)::text" }.joined(separator: ", "))) || ': keys ' \
                    || string_agg(pk::text, ', ' ORDER BY pk) FROM \(table) \
                    GROUP BY \(columns.joined(separator: ", ")) HAVING COUNT(*) > 1 ORDER BY min(pk) LIMIT 5
                    """) {
                    for cell in row { if case .text(let group) = try PostgresSession.value(cell) { groups.append(group) } }
                }
                throw StrataError(
                    .migrationFailed,
                    "\(entity.name) has rows that break a uniqueness constraint the new schema adds: "
                        + "(\(index.columns.joined(separator: ", "))) " + groups.joined(separator: "; "),
                    entityName: entity.name, underlyingError: error)
            }
        }
    }

    /// Replaces the indexes of a table changed in place where the new schema's differ.
    func replaceIndexesIfChanged(_ indexes: [PostgresLayout.Index], of entity: StrataCore.EntityDescription) throws(StrataError) {
        let rows = try session.rows("""
            SELECT i.relname::text, x.indisunique, array_to_string(ARRAY(\
            SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n) \
            JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.n), chr(31)) \
            FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid \
            WHERE x.indrelid = to_regclass($1) AND NOT x.indisprimary AND i.relname ~ '^_strata_(unique|fk|index)_'
            """, [.text(layout.entities[entity.index].table)])
        var stored = Set<PostgresLayout.Index>()
        for row in rows {
            let cells = try Array(row).map { cell throws(StrataError) in try PostgresSession.value(cell) }
            guard case .text(let name) = cells[0], case .integer(let unique) = cells[1], case .text(let columns) = cells[2] else { continue }
            stored.insert(PostgresLayout.Index(
                name: name, isUnique: unique != 0, columns: columns.split(separator: "\u{1F}").map(String.init)))
        }
        let wanted = indexes.map { index in
            PostgresLayout.Index(name: PostgresLayout.catalogName(index.name), isUnique: index.isUnique, columns: index.columns)
        }
        guard stored != Set(wanted) else { return }
        for index in stored { try session.execute("DROP INDEX \(layout.qualified(index.name))") }
        try createIndexes(indexes, of: entity)
    }

    // MARK: Foreign keys

    /// A foreign key that was added to the store's tables outside Strata.
    struct UserForeignKey {
        /// The PostgreSQL schema of the table it is on (another than the store's, possibly).
        let namespace: String
        let table: String
        let name: String
        let columns: [String]
        /// `FOREIGN KEY (…) REFERENCES …`, as PostgreSQL spells it.
        let definition: String
    }

    /// Drops a table of the namespace, after the foreign keys on it and those
    /// that point at it; collects those among them that Strata did not make.
    func dropTable(_ name: String, ifExists: Bool = false, keeping userKeys: inout [UserForeignKey]) throws(StrataError) {
        userKeys += try dropForeignKeys(touching: name)
        try session.execute("DROP TABLE \(ifExists ? "IF EXISTS " : "")\(layout.qualified(name))")
    }

    /// Drops the foreign keys on a table and those that point at it, so it
    /// can be replaced; returns the ones Strata did not make, to be added
    /// again after the step. Tables the step does not replace keep theirs.
    private func dropForeignKeys(touching name: String) throws(StrataError) -> [UserForeignKey] {
        // Strata's own: the pair columns of join tables, and each entity's to-one columns.
        var toOneColumns: [String: Set<String>] = [:]
        for entity in stored.entities {
            toOneColumns[PostgresLayout.catalogName(entity.name)] = Set(entity.properties.compactMap { property in
                guard case .relationship(let relationship) = property, !relationship.isToMany else { return nil }
                return PostgresLayout.catalogName(relationship.name)
            })
        }
        let rows = try session.rows("""
            SELECT n.nspname::text, t.relname::text, c.conname::text, pg_get_constraintdef(c.oid),             (SELECT string_agg(a.attname::text, ',' ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)             JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum)             FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace             WHERE c.contype = 'f' AND (c.conrelid = to_regclass($1) OR c.confrelid = to_regclass($1))
            """, [.text(layout.qualified(name))])
        var kept: [UserForeignKey] = []
        for row in rows {
            let cells = try Array(row).map { cell throws(StrataError) in try PostgresSession.value(cell) }
            guard case .text(let namespace) = cells[0], case .text(let table) = cells[1], case .text(let constraint) = cells[2]
            else { continue }
            if case .text(let definition) = cells[3], case .text(let list) = cells[4] {
                let columns = list.split(separator: ",").map(String.init)
                let isStrata = namespace == layout.namespace && (table.hasPrefix("_strata_join_")
                    ? columns.allSatisfy { $0 == "source" || $0 == "target" }
                    : columns.count == 1 && toOneColumns[table]?.contains(columns[0]) == true)
                if !isStrata {
                    kept.append(UserForeignKey(namespace: namespace, table: table, name: constraint, columns: columns, definition: definition))
                }
            }
            try session.execute("ALTER TABLE \(quote(namespace)).\(quote(table)) DROP CONSTRAINT \(quote(constraint))")
        }
        return kept
    }

    /// Adds again the foreign keys added outside Strata that a replaced table
    /// took with it, on their tables and columns under their new names. One
    /// that no longer fits (its column was removed, or the rows break it)
    /// fails the step, naming it.
    func restore(_ keys: [UserForeignKey]) throws(StrataError) {
        for key in keys {
            var table = "\(quote(key.namespace)).\(quote(key.table))"
            var columns = key.columns
            // The stored table and column names, as this step renames them.
            if key.namespace == layout.namespace, let entityStep = step.entities.first(where: { entityStep in
                entityStep.source.map(PostgresLayout.catalogName) == key.table
            }) {
                let entity = schema.entities[entityStep.entityIndex]
                var renamed: [String: String] = [:]
                for (ordinal, source) in entityStep.columns {
                    if case .column(let old, _, _) = source { renamed[PostgresLayout.catalogName(old)] = entity.properties[ordinal].name }
                }
                table = layout.qualified(entity.name)
                columns = columns.map { renamed[$0] ?? $0 }
            }
            // A table that went with its entity took its keys with it.
            guard let exists = try session.rows("SELECT (to_regclass($1) IS NOT NULL)::int4", [.text(table)]).first?.first,
                  try PostgresSession.integer(exists) == 1 else { continue }
            let references = key.definition.range(of: "REFERENCES ").map { String(key.definition[$0.lowerBound...]) } ?? key.definition
            let sql = "ALTER TABLE \(table) ADD CONSTRAINT \(quote(key.name)) "
                + "FOREIGN KEY (\(columns.map(quote).joined(separator: ", "))) \(references)"
            do throws(StrataError) {
                try session.withSavepoint { session throws(StrataError) in try session.execute(sql) }
            } catch {
                throw StrataError(
                    .migrationFailed,
                    "The foreign key \(key.name) added to \(key.table) outside Strata does not fit the migrated tables "
                        + "(\(error.message)); nothing was changed. Drop it before migrating, or add it again in a stage's didMigrate",
                    underlyingError: error)
            }
        }
    }

    /// Adds the foreign keys of the new schema that the store lacks (those of
    /// replaced tables, new relationships, changed rules), which checks their
    /// rows: a relationship that points at a row that does not exist fails the
    /// step, naming the first such rows. Keys on tables changed in place stay
    /// as they are, their rows not read again.
    func addMissingForeignKeys() throws(StrataError) {
        for key in layout.foreignKeys {
            // The key as it stands on the column, if one does.
            let existing = try session.rows("""
                SELECT c.conname::text, (c.confrelid = to_regclass($3) AND c.confdeltype = $4::"char" \
                AND c.condeferrable = ($5::bigint <> 0) AND c.condeferred = ($5::bigint <> 0))::int4 \
                FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] \
                WHERE c.contype = 'f' AND c.conrelid = to_regclass($1) AND cardinality(c.conkey) = 1 AND a.attname = $2
                """, [
                    .text(key.table), .text(PostgresLayout.catalogName(key.column)), .text(key.referenced),
                    .text(Self.actionCode(key.action)), .integer(key.isDeferred ? 1 : 0),
                ])
            var matches = false
            for row in existing {
                let cells = try Array(row).map { cell throws(StrataError) in try PostgresSession.value(cell) }
                guard case .text(let name) = cells[0] else { continue }
                if cells[1] == .integer(1) {
                    matches = true
                } else {
                    // Strata's key from before, with another rule or target.
                    try session.execute("ALTER TABLE \(key.table) DROP CONSTRAINT \(quote(name))")
                }
            }
            if matches { continue }
            do throws(StrataError) {
                try session.withSavepoint { session throws(StrataError) in try session.execute(key.createSQL) }
            } catch where error.code == .validation {
                let column = quote(key.column)
                var examples: [String] = []
                for row in try session.rows("""
                    SELECT 'row ' || t.pk || ' → ' || t.\(column) FROM \(key.table) AS t WHERE t.\(column) IS NOT NULL \
                    AND NOT EXISTS (SELECT 1 FROM \(key.referenced) AS r WHERE r.pk = t.\(column)) ORDER BY t.pk LIMIT 5
                    """) {
                    for cell in row { if case .text(let example) = try PostgresSession.value(cell) { examples.append(example) } }
                }
                throw StrataError(
                    .migrationFailed,
                    "After migrating, relationships in \(key.table).\(column) point to rows that do not exist: "
                        + examples.joined(separator: "; "),
                    underlyingError: error)
            }
        }
    }

    /// `pg_constraint.confdeltype` for an `ON DELETE` action.
    private static func actionCode(_ action: String) -> String {
        switch action {
        case "CASCADE": "c"
        case "SET NULL": "n"
        case "RESTRICT": "r"
        case "SET DEFAULT": "d"
        default: "a"
        }
    }
}
