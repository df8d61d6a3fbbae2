import Foundation
import StrataCore
import StrataSQL

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
            let folded = attribute?.type == .string ? StorageNaming.foldedColumn(name) : nil
            switch step.columns[ordinal] ?? .null {
            case .column(let old, let conversion, let whenNull):
                guard rename(old, name) else { return nil }
                if let folded {
                    guard conversion == .none, rename(StorageNaming.foldedColumn(old), folded) else { return nil }
                }
                if attribute == nil, let was = step.toOneSources[ordinal] {
                    let position = StorageNaming.positionColumn(forToOne: was)
                    if columns[position] != nil, !rename(position, StorageNaming.positionColumn(forToOne: name)) { return nil }
                }
                switch conversion {
                case .none:
                    break
                case .toReal:
                    let quoted = quote(name)
                    statements.append("ALTER TABLE \(table) ALTER COLUMN \(quoted) TYPE double precision USING \(quoted)::double precision")
                    columns[name] = PostgresLayout.Column(name: name, dataType: "double precision", isNullable: columns[name]?.isNullable ?? true)
                case .toText, .boolToText, .jsonToInteger:
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
}
