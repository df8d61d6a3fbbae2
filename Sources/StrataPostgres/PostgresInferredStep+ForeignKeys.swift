import StrataCore
import StrataSQL

/// Foreign keys across a migration step. A table that is replaced or dropped
/// first loses the keys on it and those that point at it; at the end, the keys
/// the new schema wants and the store lacks are added (which checks their
/// rows), Strata's keys it no longer wants go, and keys an app added itself
/// are put back. Tables changed in place keep their keys, their rows unread.
extension PostgresInferredStep {
    /// A foreign key added to the store's tables outside Strata, as it stood
    /// when its table, or the one it points at, was about to be replaced.
    struct UserForeignKey {
        /// One side of the key: its table (by catalog name and oid) and columns.
        struct End {
            let namespace: String
            let table: String
            let oid: Int64
            let columns: [String]
            let numbers: [Int64]
        }

        let name: String
        let from: End
        let to: End
        /// What follows the referenced columns: `MATCH`, the actions, deferral.
        let options: String
    }

    /// Drops a table of the namespace, after the foreign keys on it and those
    /// that point at it; collects those among them that Strata did not make.
    func dropTable(_ name: String, ifExists: Bool = false, keeping userKeys: inout [UserForeignKey]) throws(StrataError) {
        userKeys += try dropForeignKeys(touching: name)
        try session.execute("DROP TABLE \(ifExists ? "IF EXISTS " : "")\(layout.qualified(name))")
    }

    /// Whether a key on these columns is one Strata makes: on a join table's
    /// pair columns, or on one to-one column of either schema's entity.
    private func isStrata(namespace: String, table: String, columns: [String], toOnes: [String: Set<String>]) -> Bool {
        guard namespace == layout.namespace else { return false }
        if table.hasPrefix(StorageNaming.joinTablePrefix) { return columns.allSatisfy { $0 == "source" || $0 == "target" } }
        return columns.count == 1 && toOnes[table]?.contains(columns[0]) == true
    }

    /// The to-one columns of the stored and the new schema, by table, as the catalog names them.
    private func toOneColumns() -> [String: Set<String>] {
        var columns: [String: Set<String>] = [:]
        func add(_ entity: String, _ properties: [PropertyDescription]) {
            columns[PostgresLayout.catalogName(entity), default: []].formUnion(properties.compactMap { property in
                guard case .relationship(let relationship) = property, !relationship.isToMany else { return nil }
                return PostgresLayout.catalogName(relationship.name)
            })
        }
        for entity in stored.entities { add(entity.name, entity.properties) }
        for entity in schema.entities { add(entity.name, entity.properties) }
        return columns
    }

    /// Names are joined with the unit separator, which no identifier holds.
    private static let separator = "\u{1F}"

    /// Drops the foreign keys on a table and those that point at it, so it
    /// can be replaced; returns the ones Strata did not make.
    private func dropForeignKeys(touching name: String) throws(StrataError) -> [UserForeignKey] {
        func names(_ keys: String, _ table: String) -> String {
            "(SELECT string_agg(a.attname::text, chr(31) ORDER BY k.n) FROM unnest(c.\(keys)) WITH ORDINALITY AS k(attnum, n) "
                + "JOIN pg_attribute a ON a.attrelid = c.\(table) AND a.attnum = k.attnum)"
        }
        let rows = try session.rows("""
            SELECT c.conname::text, pg_get_constraintdef(c.oid), \
            n.nspname::text, t.relname::text, c.conrelid::bigint, array_to_string(c.conkey, ','), \(names("conkey", "conrelid")), \
            rn.nspname::text, r.relname::text, c.confrelid::bigint, array_to_string(c.confkey, ','), \(names("confkey", "confrelid")) \
            FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace \
            JOIN pg_class r ON r.oid = c.confrelid JOIN pg_namespace rn ON rn.oid = r.relnamespace \
            WHERE c.contype = 'f' AND (c.conrelid = to_regclass($1) OR c.confrelid = to_regclass($1))
            """, [.text(layout.qualified(name))])
        let toOnes = toOneColumns()
        var kept: [UserForeignKey] = []
        for row in rows {
            let cells = try Array(row).map { cell throws(StrataError) in try PostgresSession.value(cell) }
            func text(_ index: Int) -> String { if case .text(let value) = cells[index] { value } else { "" } }
            func end(at index: Int) -> UserForeignKey.End {
                let oid = if case .integer(let value) = cells[index + 2] { value } else { Int64(0) }
                return UserForeignKey.End(
                    namespace: text(index), table: text(index + 1), oid: oid,
                    columns: text(index + 4).components(separatedBy: Self.separator),
                    numbers: text(index + 3).split(separator: ",").compactMap { Int64($0) })
            }
            let (constraint, from, to) = (text(0), end(at: 2), end(at: 7))
            if !isStrata(namespace: from.namespace, table: from.table, columns: from.columns, toOnes: toOnes) {
                kept.append(UserForeignKey(name: constraint, from: from, to: to, options: Self.options(of: text(1))))
            }
            try session.execute("ALTER TABLE \(quote(from.namespace)).\(quote(from.table)) DROP CONSTRAINT \(quote(constraint))")
        }
        return kept
    }

    /// What follows `REFERENCES table(columns)` in a key's definition.
    private static func options(of definition: String) -> String {
        guard let references = definition.range(of: " REFERENCES "),
              let open = definition[references.upperBound...].firstIndex(of: "("),
              let close = definition[open...].firstIndex(of: ")") else { return "" }
        return String(definition[definition.index(after: close)...])
    }

    /// Adds again the foreign keys added outside Strata that a replaced table
    /// took with it, between the tables and columns as they are now named. One
    /// that no longer fits (a column was removed, or the rows break it) fails
    /// the step, naming it.
    func restore(_ keys: [UserForeignKey]) throws(StrataError) {
        for key in keys {
            // A table that went with its entity took its keys with it.
            guard let from = try current(key.from), let to = try current(key.to) else { continue }
            let sql = "ALTER TABLE \(from.table) ADD CONSTRAINT \(quote(key.name)) FOREIGN KEY (\(from.columns.map(quote).joined(separator: ", "))) "
                + "REFERENCES \(to.table)(\(to.columns.map(quote).joined(separator: ", ")))\(key.options)"
            do throws(StrataError) {
                try session.withSavepoint { session throws(StrataError) in try session.execute(sql) }
            } catch where !PostgresStore.isLockTimeout(error) {
                throw StrataError(
                    .migrationFailed,
                    "The foreign key \(key.name) added to \(key.from.table) outside Strata does not fit the migrated tables "
                        + "(\(error.message)); nothing was changed. Drop it before migrating, or add it again in a stage's didMigrate",
                    underlyingError: error)
            }
        }
    }

    /// Where one side of a kept key is now: its table's current name and
    /// columns when the table is still there (changed in place, or not at all);
    /// else the table of the entity that replaced it, the columns as the step
    /// renamed them; nil when it went with its entity.
    private func current(_ end: UserForeignKey.End) throws(StrataError) -> (table: String, columns: [String])? {
        let found = try session.rows("""
            SELECT n.nspname::text, t.relname::text, (SELECT string_agg(a.attname::text, chr(31) ORDER BY k.n) \
            FROM unnest($2::bigint[]) WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) \
            FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace WHERE t.oid = $1::bigint::oid
            """, arguments: [.integer(end.oid), .keys(end.numbers)])
        if let row = found.first {
            let cells = try Array(row).map { cell throws(StrataError) in try PostgresSession.value(cell) }
            guard case .text(let namespace) = cells[0], case .text(let table) = cells[1], case .text(let columns) = cells[2] else { return nil }
            return ("\(quote(namespace)).\(quote(table))", columns.components(separatedBy: Self.separator))
        }
        guard end.namespace == layout.namespace,
              let entityStep = step.entities.first(where: { $0.source.map(PostgresLayout.catalogName) == end.table })
        else { return nil }
        let entity = schema.entities[entityStep.entityIndex]
        var renamed: [String: String] = [:]
        for (ordinal, source) in entityStep.columns {
            if case .column(let old, _, _) = source { renamed[PostgresLayout.catalogName(old)] = entity.properties[ordinal].name }
        }
        return (layout.qualified(entity.name), end.columns.map { renamed[$0] ?? $0 })
    }

    /// Makes the store's foreign keys the new schema's: adds those it lacks
    /// (of replaced tables, new relationships, changed rules), which checks
    /// their rows, a relationship that points at no row failing the step with
    /// the first such rows named; drops Strata's keys it no longer wants.
    /// Keys that already match stay, their rows not read again.
    func addMissingForeignKeys() throws(StrataError) {
        struct Shape: Hashable {
            let table: String, column: String, referenced: String, action: String, deferred: Bool
        }
        func shape(of key: PostgresLayout.ForeignKey) -> Shape {
            Shape(
                table: PostgresLayout.catalogName(key.tableName), column: PostgresLayout.catalogName(key.column),
                referenced: PostgresLayout.catalogName(key.referencedName), action: Self.actionCode(key.action), deferred: key.isDeferred)
        }
        let wanted = Set(layout.foreignKeys.map(shape))
        var present = Set<Shape>()
        let toOnes = toOneColumns()
        for row in try session.rows("""
            SELECT t.relname::text, a.attname::text, c.conname::text, r.relname::text, (r.relnamespace = t.relnamespace)::int4, \
            c.confdeltype::text, (c.condeferrable AND c.condeferred)::int4 \
            FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid \
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] \
            WHERE c.contype = 'f' AND cardinality(c.conkey) = 1 AND t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)
            """, [.text(layout.namespace)]) {
            let cells = try Array(row).map { cell throws(StrataError) in try PostgresSession.value(cell) }
            guard case .text(let table) = cells[0], case .text(let column) = cells[1], case .text(let name) = cells[2],
                  case .text(let referenced) = cells[3], case .text(let action) = cells[5],
                  isStrata(namespace: layout.namespace, table: table, columns: [column], toOnes: toOnes) else { continue }
            let found = Shape(table: table, column: column, referenced: referenced, action: action, deferred: cells[6] == .integer(1))
            if cells[4] == .integer(1), wanted.contains(found), present.insert(found).inserted { continue }
            // Strata's key from before that the new schema does not want as it is.
            try session.execute("ALTER TABLE \(layout.qualified(table)) DROP CONSTRAINT \(quote(name))")
        }
        for key in layout.foreignKeys where !present.contains(shape(of: key)) {
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
