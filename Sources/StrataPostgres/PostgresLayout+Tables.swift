import StrataCore
import StrataSQL

/// A join table as created: its unqualified name and the entities its
/// `source` and `target` columns point at.
struct JoinTableDefinition: Sendable {
    let name: String
    let source: String
    let target: String
}

/// The tables, columns, indexes and foreign keys a schema's store has in
/// PostgreSQL, as statements and as shapes a migration compares with what
/// is stored.
///
/// ```swift
/// for statement in layout.createStatements { try session.execute(statement) }
/// layout.columns(of: entity)   // pk, _version, each column and its folded twin, positions
/// ```
extension PostgresLayout {
    /// A column as `information_schema.columns` reports it.
    struct Column: Hashable, Sendable {
        let name: String
        /// `bigint`, `double precision`, `bytea` or `text`.
        let dataType: String
        let isNullable: Bool

        /// Its definition in `CREATE TABLE` or `ADD COLUMN`.
        var definition: String {
            let type = dataType == "text" ? "TEXT COLLATE \"C\"" : dataType.uppercased()
            return quote(name) + " " + type + (isNullable ? "" : " NOT NULL")
        }
    }

    /// An index Strata makes on an entity's table.
    struct Index: Hashable, Sendable {
        let name: String
        let isUnique: Bool
        /// Unquoted column names, in order.
        let columns: [String]

        func createSQL(on table: String) -> String {
            "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(quote(name)) ON \(table)(\(columns.map(quote).joined(separator: ", ")))"
        }
    }

    /// A foreign key: `table.column` points at `referenced.pk`.
    struct ForeignKey: Sendable {
        /// Qualified and quoted.
        let table: String
        /// As named in the schema (to find it in the catalog).
        let tableName: String
        let column: String
        /// Qualified and quoted.
        let referenced: String
        let referencedName: String
        let action: String
        let isDeferred: Bool

        var createSQL: String {
            "ALTER TABLE \(table) ADD FOREIGN KEY (\(quote(column))) REFERENCES \(referenced)(pk) ON DELETE \(action)"
                + (isDeferred ? " DEFERRABLE INITIALLY DEFERRED" : "")
        }
    }

    /// Every statement that creates the store's tables, in order.
    var createStatements: [String] {
        var statements = [
            "CREATE TABLE \(metadataTable) (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE \(sequenceTable) (entity TEXT PRIMARY KEY, max_pk BIGINT NOT NULL)",
            """
            CREATE TABLE \(appMetadataTable) (key TEXT PRIMARY KEY, \
            integer_value BIGINT, real_value DOUBLE PRECISION, text_value TEXT, blob_value BYTEA)
            """,
            """
            CREATE TABLE \(transactionTable) (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
            timestamp DOUBLE PRECISION NOT NULL, author TEXT, context_name TEXT, process_id BIGINT NOT NULL, origin TEXT NOT NULL)
            """,
            "CREATE INDEX \(quote("_strata_history_transaction_timestamp")) ON \(transactionTable)(timestamp)",
            """
            CREATE TABLE \(changeTable) (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
            transaction_id BIGINT NOT NULL, change_type BIGINT NOT NULL, entity TEXT NOT NULL, pk BIGINT NOT NULL, \
            updated_properties TEXT, tombstone TEXT, old_values TEXT, new_values TEXT)
            """,
            "CREATE INDEX \(quote("_strata_history_change_transaction")) ON \(changeTable)(transaction_id, entity)",
        ]
        statements += PostgresFunctions.createStatements(namespace: namespace)
        // Tables first, then the foreign keys between them (entities may point at each other).
        for entity in schema.entities {
            statements.append(createTableSQL(entity, named: entities[entity.index].table))
        }
        for entity in schema.entities {
            statements += indexes(of: entity).map { $0.createSQL(on: entities[entity.index].table) }
        }
        for join in joinTables { statements += createJoinTableSQL(join, named: qualified(join.name)) }
        return statements + foreignKeys.map(\.createSQL)
    }

    /// The name of the join table kept under `entity.relationship`.
    static func joinTableName(entity: String, relationship: String) -> String {
        identifier(StorageNaming.joinTableName(entity: entity, relationship: relationship))
    }

    /// A name Strata makes up, fit for PostgreSQL: as it is up to 63 bytes;
    /// longer, its first 46 bytes and a hash of the whole, so two long names
    /// that share a beginning stay apart.
    static func identifier(_ name: String) -> String {
        guard name.utf8.count > 63 else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let digits = String(hash, radix: 16)
        return clipped(name, to: 46) + "_" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// A name as PostgreSQL keeps it: its first 63 bytes, cut at a character.
    static func catalogName(_ name: String) -> String { clipped(name, to: 63) }

    private static func clipped(_ name: String, to limit: Int) -> String {
        guard name.utf8.count > limit else { return name }
        var bytes = 0
        var kept = ""
        for scalar in name.unicodeScalars {
            let width = String(scalar).utf8.count
            guard bytes + width <= limit else { break }
            bytes += width
            kept.unicodeScalars.append(scalar)
        }
        return kept
    }

    /// A name in the store's namespace, quoted.
    func qualified(_ name: String) -> String { quote(namespace) + "." + quote(name) }

    /// The columns of an entity's table: key, version, each column followed
    /// by its folded twin when it holds a `String`, then the positions it
    /// keeps for its owners' to-manys.
    func columns(of entity: StrataCore.EntityDescription) -> [Column] {
        var columns = [
            Column(name: StorageNaming.keyColumn, dataType: "bigint", isNullable: false),
            Column(name: StorageNaming.versionColumn, dataType: "bigint", isNullable: false),
        ]
        for ordinal in entity.columnOrdinals {
            switch entity.properties[ordinal] {
            case .attribute(let attribute):
                columns.append(Column(name: attribute.name, dataType: Self.bindType(attribute.type), isNullable: attribute.isOptional))
                if attribute.type == .string {
                    columns.append(Column(name: StorageNaming.foldedColumn(attribute.name), dataType: "text", isNullable: true))
                }
            case .relationship(let relationship):
                columns.append(Column(name: relationship.name, dataType: "bigint", isNullable: true))
            }
        }
        return columns + positionColumns[entity.index].map { Column(name: $0, dataType: "bigint", isNullable: true) }
    }

    /// `CREATE TABLE` for an entity, under `table` (qualified).
    func createTableSQL(_ entity: StrataCore.EntityDescription, named table: String) -> String {
        let definitions = columns(of: entity).map { column in
            switch column.name {
            case StorageNaming.keyColumn: "pk BIGINT PRIMARY KEY"
            case StorageNaming.versionColumn: "\(StorageNaming.versionColumn) BIGINT NOT NULL DEFAULT 1"
            default: column.definition
            }
        }
        return "CREATE TABLE \(table) (\(definitions.joined(separator: ", ")))"
    }

    /// A join table and its index on the target side, without foreign keys.
    func createJoinTableSQL(_ join: JoinTableDefinition, named table: String) -> [String] {
        [
            """
            CREATE TABLE \(table) (\
            "source" BIGINT NOT NULL, "target" BIGINT NOT NULL, \
            "source_position" BIGINT NOT NULL DEFAULT 0, "target_position" BIGINT NOT NULL DEFAULT 0, \
            PRIMARY KEY ("source", "target"))
            """,
            "CREATE INDEX \(quote(Self.identifier(join.name + "_target"))) ON \(table)(\"target\", \"target_position\")",
        ]
    }

    /// Every foreign key of the store: each to-one's, with the delete rule of
    /// its inverse, checked at commit; each join table's two, cascading.
    var foreignKeys: [ForeignKey] {
        var keys: [ForeignKey] = []
        for entity in schema.entities {
            for ordinal in entity.columnOrdinals {
                guard case .relationship(let relationship) = entity.properties[ordinal] else { continue }
                let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
                // The rule of the inverse to-many decides what the database does when
                // the destination row goes, as in the SQLite store.
                guard let action = schema.deleteRule(ofToOneAt: ordinal, of: entity).foreignKeyAction else { continue }
                keys.append(ForeignKey(
                    table: entities[entity.index].table, tableName: entity.name, column: relationship.name,
                    referenced: entities[destination.index].table, referencedName: destination.name, action: action, isDeferred: true))
            }
        }
        for join in joinTables {
            for (column, entity) in [("source", join.source), ("target", join.target)] {
                keys.append(ForeignKey(
                    table: qualified(join.name), tableName: join.name, column: column, referenced: qualified(entity),
                    referencedName: entity, action: "CASCADE", isDeferred: false))
            }
        }
        return keys
    }

    /// The indexes of an entity's table: unique attributes and constraints,
    /// each to-one (with its position when ordered), and `#Index` groups,
    /// whose folded entries index the hidden folded column.
    func indexes(of entity: StrataCore.EntityDescription) -> [Index] {
        var indexes: [Index] = []
        func name(_ kind: String, _ columns: [String]) -> String {
            Self.identifier("_strata_\(kind)_\(entity.name)_" + columns.joined(separator: "_"))
        }
        for ordinal in entity.columnOrdinals {
            switch entity.properties[ordinal] {
            case .attribute(let attribute) where attribute.isUnique:
                indexes.append(Index(name: name("unique", [attribute.name]), isUnique: true, columns: [attribute.name]))
            case .relationship(let relationship):
                let columns = orderedIndexColumns[entity.index][ordinal] ?? [relationship.name]
                indexes.append(Index(name: name("fk", [relationship.name]), isUnique: false, columns: columns))
            default:
                break
            }
        }
        for group in entity.uniquenessConstraints {
            indexes.append(Index(name: name("unique", group), isUnique: true, columns: group))
        }
        for group in entity.indexes {
            let columns = group.map { entry in
                entry.hasSuffix(".folded") ? StorageNaming.foldedColumn(String(entry.dropLast(".folded".count))) : entry
            }
            indexes.append(Index(
                name: name("index", group.map { $0.replacingOccurrences(of: ".", with: "_") }), isUnique: false, columns: columns))
        }
        return indexes
    }
}
