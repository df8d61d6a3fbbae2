import Foundation
import StrataCore
import StrataSQL
import GRDB

extension SQLiteStore {
    /// The column type SQLite declares for an attribute: its storage class's affinity.
    static func columnType(_ type: AttributeType) -> String {
        switch type.storageKind {
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }

    /// Creates tables, indexes and metadata for a new store, in the caller's
    /// transaction. Returns the new store identifier.
    static func createSchema(_ db: Database, schema: Schema, layout: StoreLayout) throws -> String {
        try db.execute(sql: """
            CREATE TABLE \(StorageNaming.metadataTable) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
            CREATE TABLE \(StorageNaming.sequenceTable) (entity TEXT PRIMARY KEY NOT NULL, max_pk INTEGER NOT NULL);
            \(StoreLayout.createAppMetadataSQL);
            """)
        for entity in schema.entities {
            try db.execute(sql: createTableSQL(
                entity, schema: schema, positionColumns: layout.relationships.positionColumns[entity.index]))
            for statement in indexSQL(entity, orderedColumns: layout.relationships.orderedIndexColumns[entity.index]) {
                try db.execute(sql: statement)
            }
        }
        for statement in layout.relationships.joinTableStatements {
            try db.execute(sql: statement)
        }
        let metadata = StoreMetadata(
            storeIdentifier: UUID().uuidString, formatVersion: StoreMetadata.formatVersion,
            fingerprint: schema.fingerprint, schema: schema.summary, version: schema.version)
        try metadata.write(db)
        return metadata.storeIdentifier
    }

    /// `positionColumns` are the hidden columns that keep to-many order (see ``RelationshipLayout``).
    static func createTableSQL(_ entity: EntityDescription, schema: Schema, positionColumns: [String] = []) -> String {
        let definitions = columnDefinitions(entity, schema: schema, positionColumns: positionColumns)
        return "CREATE TABLE \(quote(entity.name)) (\(definitions.joined(separator: ", ")))"
    }

    /// The definitions of an entity's table: key, version, one per column
    /// ordinal in order, then the position columns.
    static func columnDefinitions(_ entity: EntityDescription, schema: Schema, positionColumns: [String] = []) -> [String] {
        var definitions = ["pk INTEGER PRIMARY KEY", "\(StorageNaming.versionColumn) INTEGER NOT NULL DEFAULT 1"]
        for ordinal in entity.columnOrdinals {
            switch entity.properties[ordinal] {
            case .attribute(let attribute):
                var definition = "\(quote(attribute.name)) \(Self.columnType(attribute.type))"
                if !attribute.isOptional { definition += " NOT NULL" }
                definitions.append(definition)
            case .relationship(let relationship):
                let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
                var definition = "\(quote(relationship.name)) INTEGER"
                // The rule of the inverse to-many decides what the database does
                // when the destination row goes, so the store stays consistent even
                // against writers that never loaded the relationship.
                if let action = schema.deleteRule(ofToOneAt: ordinal, of: entity).foreignKeyAction {
                    definition += " REFERENCES \(quote(destination.name))(pk) ON DELETE \(action) DEFERRABLE INITIALLY DEFERRED"
                }
                definitions.append(definition)
            }
        }
        definitions += positionColumns
        return definitions
    }

    /// `orderedColumns` replaces the column list of a foreign-key index whose
    /// to-many inverse keeps an order, by the to-one's ordinal.
    static func indexSQL(_ entity: EntityDescription, orderedColumns: [Int: String] = [:]) -> [String] {
        var statements: [String] = []
        let table = quote(entity.name)
        func indexName(_ kind: String, _ columns: [String]) -> String {
            quote("_strata_\(kind)_\(entity.name)_" + columns.joined(separator: "_"))
        }
        for ordinal in entity.columnOrdinals {
            switch entity.properties[ordinal] {
            case .attribute(let attribute) where attribute.isUnique:
                statements.append("CREATE UNIQUE INDEX \(indexName("unique", [attribute.name])) ON \(table)(\(quote(attribute.name)))")
            case .relationship(let relationship):
                let columns = orderedColumns[ordinal] ?? quote(relationship.name)
                statements.append("CREATE INDEX \(indexName("fk", [relationship.name])) ON \(table)(\(columns))")
            default:
                break
            }
        }
        for group in entity.uniquenessConstraints {
            let columns = group.map(quote).joined(separator: ", ")
            statements.append("CREATE UNIQUE INDEX \(indexName("unique", group)) ON \(table)(\(columns))")
        }
        for group in entity.indexes {
            // A folded entry indexes the value the folded predicates and sorts compute.
            let columns = group.map { name in
                IndexKey(name).foldedAttribute.map { "\(TextMatchingFunctions.name(of: .folded))(\(quote($0)))" } ?? quote(name)
            }.joined(separator: ", ")
            let nameParts = group.map { $0.replacingOccurrences(of: ".", with: "_") }
            statements.append("CREATE INDEX \(indexName("index", nameParts)) ON \(table)(\(columns))")
        }
        return statements
    }
}

extension SQLiteStore {
    /// Refuses, before anything is written, a store whose tables lack a column
    /// its recorded schema says they hold: damage in the schema's text (which
    /// no page check reads) or a change by another program.
    static func checkTables(
        _ columns: [String: Set<String>], layout: StoreLayout, schema: Schema, fileName: String
    ) throws(StrataError) {
        for entity in schema.entities {
            let definitions = columnDefinitions(
                entity, schema: schema, positionColumns: layout.relationships.positionColumns[entity.index])
            guard let stored = columns[entity.name] else {
                throw StrataError(
                    .corruptStore, "\(fileName) is damaged: it has no table for \(entity.name); it was left untouched",
                    entityName: entity.name)
            }
            let missing = definitions.map(columnName).filter { !stored.contains($0) }
            guard missing.isEmpty else {
                throw StrataError(
                    .corruptStore,
                    "\(fileName) is damaged: the table of \(entity.name) has no column "
                        + missing.joined(separator: ", ") + "; it was left untouched",
                    entityName: entity.name)
            }
        }
    }

    /// The name a column definition declares (quoted or bare).
    private static func columnName(_ definition: String) -> String {
        guard definition.hasPrefix("\"") else { return String(definition.prefix { $0 != " " }) }
        var name = "", characters = definition.dropFirst().makeIterator()
        while let character = characters.next() {
            if character == "\"" {
                guard characters.next() == "\"" else { break }
            }
            name.append(character)
        }
        return name
    }
}
