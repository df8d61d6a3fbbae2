import Foundation
import StrataCore
import StrataSQL
import GRDB

/// Changing a table in place during an inferred migration: when every change
/// to an entity's table is a renamed column or an added attribute whose value
/// for existing rows is a constant, `ALTER TABLE … RENAME COLUMN` and
/// `ADD COLUMN … DEFAULT` do it without copying a row, so adding an attribute
/// to a table of millions of rows takes milliseconds. Anything else (a column
/// removed, a type widened, a relationship changed) rebuilds the table.
extension SQLiteStore {
    /// The statements that turn the stored table into the new one in place, or
    /// nil when it must be rebuilt. Columns an earlier in-place step added sit
    /// at the end and carry a `DEFAULT`: tables compare as sets of definitions.
    static func inPlaceChanges(
        _ entity: EntityDescription, _ step: InferredMigration.EntityStep, schema: Schema, positionColumns: [String],
        storedSQL: String
    ) -> [String]? {
        guard let stored = storedDefinitions(storedSQL, table: entity.name) else { return nil }
        let definitions = columnDefinitions(entity, schema: schema, positionColumns: positionColumns)
        let table = quote(entity.name)
        var expected = Array(definitions.prefix(2)) + definitions.dropFirst(2 + entity.columnOrdinals.count)
        var renames: [String] = [], additions: [String] = []
        for (offset, ordinal) in entity.columnOrdinals.enumerated() {
            let definition = definitions[2 + offset]
            let name = quote(entity.properties[ordinal].name)
            let attribute = entity.attribute(at: ordinal)
            switch step.columns[ordinal] ?? .null {
            case .column(let old, .none, whenNull: nil):
                guard old != entity.properties[ordinal].name else {
                    expected.append(definition)
                    continue
                }
                expected.append(quote(old) + definition.dropFirst(name.count))
                renames.append("ALTER TABLE \(table) RENAME COLUMN \(quote(old)) TO \(name)")
            case .value(let value) where attribute != nil:
                guard let literal = sqlLiteral(value), !value.isNull || attribute?.isOptional == true else { return nil }
                additions.append("ALTER TABLE \(table) ADD COLUMN \(definition) DEFAULT \(literal)")
            case .null where attribute?.isOptional == true:
                additions.append("ALTER TABLE \(table) ADD COLUMN \(definition)")
            default:
                return nil
            }
        }
        guard stored.sorted() == expected.sorted() else { return nil }
        return renames + additions
    }

    /// The column definitions of a table Strata created and may since have
    /// changed in place, each without the `DEFAULT` an added column carries;
    /// nil for any other shape.
    private static func storedDefinitions(_ sql: String, table: String) -> [String]? {
        let prefix = "CREATE TABLE \(quote(table)) ("
        guard sql.hasPrefix(prefix), sql.hasSuffix(")") else { return nil }
        let body = sql.dropFirst(prefix.count).dropLast()
        var definitions: [String] = [], current = "", depth = 0
        var quoteCharacter: Character?
        for character in body {
            if let open = quoteCharacter {
                if character == open { quoteCharacter = nil }
            } else if character == "'" || character == "\"" {
                quoteCharacter = character
            } else if character == "(" {
                depth += 1
            } else if character == ")" {
                depth -= 1
            } else if character == ",", depth == 0 {
                definitions.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            }
            current.append(character)
        }
        definitions.append(current.trimmingCharacters(in: .whitespaces))
        return definitions.map { definition in
            // A quoted name is never followed by " DEFAULT " inside the name:
            // skip past it, then drop the clause an in-place addition wrote.
            guard definition.hasPrefix("\""), let end = definition.dropFirst().firstIndex(of: "\""),
                  let clause = definition[end...].range(of: " DEFAULT ") else { return definition }
            return String(definition[..<clause.lowerBound])
        }
    }

    /// A constant SQLite reads back as exactly `value`; nil for reals, whose
    /// decimal spelling might not round-trip, and for text SQL cannot hold.
    private static func sqlLiteral(_ value: StoredValue) -> String? {
        switch value {
        case .null: "NULL"
        case .integer(let number): String(number)
        case .real: nil
        case .text(let text) where !text.contains("\0"): sqlTextLiteral(text)
        case .text: nil
        case .blob(let data): "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// Replaces the entity's indexes when the new schema's differ from those stored.
    static func replaceIndexesIfChanged(_ indexes: [String], of entity: EntityDescription, in db: Database) throws {
        let strataIndexes = """
            SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? \
            AND name LIKE '\\_strata\\_%' ESCAPE '\\'
            """
        let stored = try Row.fetchAll(db, sql: strataIndexes, arguments: [entity.name])
        guard Set(stored.map { $0["sql"] as String }) != Set(indexes) else { return }
        for row in stored {
            try db.execute(sql: "DROP INDEX \(quote(row["name"] as String))")
        }
        try createIndexes(indexes, of: entity, in: db)
    }
}
