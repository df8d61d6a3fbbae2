/// The names every SQL store gives what it keeps beside the entities' tables:
/// its metadata, key sequence and history tables, the row version column, the
/// hidden position and folded-text columns, and the join tables of
/// many-to-many relationships. One list, so a store file and a PostgreSQL
/// schema read alike and the tools find the same names in both.
///
/// Names are unquoted; a store quotes them (and PostgreSQL shortens long ones).
///
/// ```swift
/// StorageNaming.joinTableName(entity: "Book", relationship: "tags")   // "_strata_join_Book_tags"
/// StorageNaming.positionColumn(forToOne: "author")                    // "_order_author"
/// ```
package enum StorageNaming {
    /// Every name Strata makes up starts so; no entity may.
    package static let reservedPrefix = "_strata_"
    package static let metadataTable = "_strata_metadata"
    /// The highest key each entity has given.
    package static let sequenceTable = "_strata_sequence"
    /// The app's own metadata, kept beside the store's.
    package static let appMetadataTable = "_strata_app_metadata"
    package static let historyTransactionTable = "_strata_history_transaction"
    package static let historyChangeTable = "_strata_history_change"
    /// The primary key column of every entity's table.
    package static let keyColumn = "pk"
    /// The row version column, counted up by each save that changes the row.
    package static let versionColumn = "_version"
    /// The prefix of every join table.
    package static let joinTablePrefix = "_strata_join_"

    /// The hidden column beside a to-one's key that keeps the row's place in
    /// its owner's ordered to-many.
    package static func positionColumn(forToOne name: String) -> String { "_order_\(name)" }

    /// The hidden column holding an attribute's case- and diacritic-folded text.
    package static func foldedColumn(_ attribute: String) -> String { "_folded_\(attribute)" }

    /// The join table kept under `entity.relationship`, its canonical side.
    package static func joinTableName(entity: String, relationship: String) -> String {
        "\(joinTablePrefix)\(entity)_\(relationship)"
    }

    /// The join table of one side of a many-to-many relationship, and which of
    /// its columns hold the owner and the member; nil for other shapes.
    package static func joinTable(
        of entity: EntityDescription, ordinal: Int, in schema: Schema
    ) -> (table: String, owner: String, member: String)? {
        guard case .join(let key, let ownerIsSource, _)? = schema.toManyShape(entityIndex: entity.index, ordinal: ordinal) else {
            return nil
        }
        // The canonical side names the table and is `source`.
        let canonical = schema.entities[key.entityIndex]
        let table = joinTableName(entity: canonical.name, relationship: canonical.properties[key.ordinal].name)
        return ownerIsSource ? (table, "source", "target") : (table, "target", "source")
    }
}
