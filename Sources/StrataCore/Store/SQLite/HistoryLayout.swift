import Foundation

/// The tables persistent history lives in, and how values are written there.
///
/// The tables exist only in stores loaded with history tracking on; they carry
/// the reserved `_strata_` prefix, so no entity can collide with them, and they
/// are not part of the schema fingerprint (turning history on or off never
/// makes a store incompatible).
///
/// Transaction numbers come from `AUTOINCREMENT`, so they keep growing after
/// pruning and a pruned token can be told from a live one.
enum HistoryLayout {
    static let transactionTable = "_strata_history_transaction"
    static let changeTable = "_strata_history_change"
    /// The metadata key holding the highest transaction number pruned so far.
    static let prunedThroughKey = "historyPrunedThrough"

    static let createStatements = [
        """
        CREATE TABLE IF NOT EXISTS \(transactionTable) (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            timestamp REAL NOT NULL,
            author TEXT,
            context_name TEXT,
            process_id INTEGER NOT NULL,
            origin TEXT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS _strata_history_transaction_timestamp ON \(transactionTable)(timestamp)",
        """
        CREATE TABLE IF NOT EXISTS \(changeTable) (
            id INTEGER PRIMARY KEY,
            transaction_id INTEGER NOT NULL,
            change_type INTEGER NOT NULL,
            entity TEXT NOT NULL,
            pk INTEGER NOT NULL,
            updated_properties TEXT,
            tombstone TEXT,
            old_values TEXT,
            new_values TEXT)
        """,
        "CREATE INDEX IF NOT EXISTS _strata_history_change_transaction ON \(changeTable)(transaction_id, entity)",
    ]

    static let insertTransactionSQL = """
        INSERT INTO \(transactionTable) (timestamp, author, context_name, process_id, origin) VALUES (?, ?, ?, ?, ?)
        """
    static let insertChangeSQL = """
        INSERT INTO \(changeTable)
            (transaction_id, change_type, entity, pk, updated_properties, tombstone, old_values, new_values)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let selectChangesSQL = """
        SELECT transaction_id, change_type, entity, pk, updated_properties, tombstone, old_values, new_values
        FROM \(changeTable) WHERE transaction_id > ? AND transaction_id <= ?
        """
    static let prunedThroughSQL = "SELECT value FROM \(StoreLayout.metadataTable) WHERE key = '\(prunedThroughKey)'"
    static let latestSQL = "SELECT MAX(id) FROM \(transactionTable)"
    static let prunableBeforeDateSQL = HistoryPruning.lastBeforeDateSQL(table: transactionTable, date: "?")

    /// Change types as stored.
    static func code(_ type: HistoryChange.ChangeType) -> Int64 {
        switch type {
        case .insert: 1
        case .update: 2
        case .delete: 3
        }
    }

    static func changeType(_ code: Int64) -> HistoryChange.ChangeType? {
        switch code {
        case 1: .insert
        case 2: .update
        case 3: .delete
        default: nil
        }
    }

    /// Property names are validated identifiers (letters, digits, underscore),
    /// so a comma separates them unambiguously.
    static let propertySeparator: Character = ","
}

/// Encodes attribute values by name as JSON text, so history stays readable
/// with any SQLite tool and survives schema changes. The shape is
/// `StoredValue`'s `Codable` one (`{"title":{"text":"Dune"}}`).
///
/// Encoding is written out by hand because it runs for every change of large
/// saves, where `JSONEncoder` doubled the cost of a delete; decoding (reads)
/// uses `JSONDecoder`.
package struct HistoryValueCoder {
    private let decoder: JSONDecoder

    package init() {
        decoder = JSONDecoder()
        // Doubles may be NaN or infinite; JSON has no spelling for them.
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
    }

    package func encode(_ values: [String: StoredValue]) -> StoredValue {
        var json = "{"
        for (position, name) in values.keys.sorted().enumerated() {
            if position > 0 { json += "," }
            Self.appendString(name, to: &json)
            json += ":"
            switch values[name]! {
            case .null:
                json += #"{"null":true}"#
            case .integer(let value):
                json += #"{"integer":\#(value)}"#
            case .real(let value):
                if value.isNaN {
                    json += #"{"real":"nan"}"#
                } else if value.isInfinite {
                    json += value < 0 ? #"{"real":"-inf"}"# : #"{"real":"+inf"}"#
                } else {
                    // Swift prints the shortest text that reads back as the same Double.
                    json += #"{"real":\#(value)}"#
                }
            case .text(let text):
                json += #"{"text":"#
                Self.appendString(text, to: &json)
                json += "}"
            case .blob(let data):
                json += #"{"blob":"\#(data.base64EncodedString())"}"#
            }
        }
        json += "}"
        return .text(json)
    }

    package func decode(_ value: StoredValue) throws -> [String: StoredValue]? {
        guard case .text(let text) = value else { return nil }
        return try decoder.decode([String: StoredValue].self, from: Data(text.utf8))
    }

    /// Appends a JSON string literal, escaping quotes, backslashes and control characters.
    private static func appendString(_ string: String, to json: inout String) {
        json += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }
}
