import Foundation
import StrataCore

/// An export read back, before anything is written: its schema and
/// fingerprint, and each entity's rows as fields by name.
///
/// ```swift
/// let document = try ImportedDocument(json: url)
/// let entities = try document.entities(in: RecordedStoreLayout(document.schema))
/// ```
struct ImportedDocument {
    let fileName: String
    let fingerprint: String
    let schema: SchemaSummary
    /// By entity name: the highest key the exported store had given (empty
    /// for exports made before it was recorded).
    let sequences: [String: Int64]
    /// By entity name: each row's fields by column name.
    let rows: [String: [[String: ImportedValue]]]

    /// A JSON export (`StoreExport`'s `.json`).
    init(json url: URL) throws(StrataError) {
        fileName = url.lastPathComponent
        let document: ExportDocument
        do {
            document = try JSONDecoder().decode(ExportDocument.self, from: Self.contents(of: url))
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.importFailed, "\(fileName) is not a Strata export: \(Self.reason(error))")
        }
        try Self.check(document.format, document.version, fileName: fileName)
        fingerprint = document.fingerprint
        schema = document.schema
        sequences = document.sequences ?? [:]
        rows = document.entities ?? [:]
    }

    /// A CSV export: a directory with `schema.json` and one `<Entity>.csv` per entity.
    init(csvDirectory url: URL) throws(StrataError) {
        fileName = url.lastPathComponent
        let header: ExportDocument
        do {
            header = try JSONDecoder().decode(ExportDocument.self, from: Self.contents(of: url.appendingPathComponent("schema.json")))
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.importFailed, "\(fileName)/schema.json is not a Strata export header: \(Self.reason(error))")
        }
        try Self.check(header.format, header.version, fileName: fileName)
        fingerprint = header.fingerprint
        schema = header.schema
        sequences = header.sequences ?? [:]
        var rows: [String: [[String: ImportedValue]]] = [:]
        for entity in header.schema.entities {
            let file = url.appendingPathComponent(entity.name + ".csv")
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            let text = String(decoding: try Self.contents(of: file), as: UTF8.self)
            let records = try CSVFormat.records(text, fileName: file.lastPathComponent)
            guard let names = records.first else { continue }
            rows[entity.name] = try records.dropFirst().enumerated().map { index, record throws(StrataError) in
                guard record.count == names.count else {
                    throw StrataError(
                        .importFailed,
                        "\(file.lastPathComponent), record \(index + 1): \(record.count) fields where the header has \(names.count)")
                }
                var fields: [String: ImportedValue] = [:]
                for (name, field) in zip(names, record) { fields[name ?? ""] = field.map(ImportedValue.string) ?? .null }
                return fields
            }
        }
        self.rows = rows
    }

    /// The rows of each entity of `layout`, converted by column type.
    func entities(in layout: RecordedStoreLayout) throws(StrataError) -> [StoreImport.Entity] {
        for name in rows.keys where layout.entity(named: name) == nil {
            throw StrataError(.importFailed, "\(fileName) has rows of \(name), which the schema does not have")
        }
        return try layout.entities.map { entity throws(StrataError) in
            let known = Set(["_pk", "_version"] + entity.columns.map(\.name) + entity.toMany.map(\.name))
            let records = try (rows[entity.name] ?? []).enumerated().map { index, fields throws(StrataError) in
                func failure(_ message: String) -> StrataError {
                    StrataError(.importFailed, "\(fileName): \(entity.name) row \(index + 1): \(message)", entityName: entity.name)
                }
                if let unknown = fields.keys.first(where: { !known.contains($0) }) {
                    throw failure("\(entity.name) has no property \(unknown)")
                }
                guard let key = fields["_pk"]?.integer else { throw failure("_pk is missing or not an integer") }
                let version = fields["_version"]?.integer ?? 1
                var values: [StoredValue] = []
                for column in entity.columns {
                    let text = fields[column.name]?.text(for: column.type)
                    let context = "\(fileName): \(entity.name) \(key): \(column.name)"
                    if let type = column.type {
                        let value = try StoreFileValueFormat.stored(fromText: text, type: type, context: context)
                        if value.isNull, !column.isOptional { throw failure("\(column.name) is required and has no value") }
                        values.append(value)
                    } else if let text {
                        guard let target = Int64(text) else { throw failure("\(column.name) must be the key of a row, not \(text)") }
                        values.append(.integer(target))
                    } else {
                        values.append(.null)
                    }
                }
                let members = try entity.toMany.map { toMany throws(StrataError) in
                    guard let keys = fields[toMany.name]?.keys else { throw failure("\(toMany.name) must list keys of rows") }
                    return keys
                }
                return StoreExport.Record(key: key, version: version, values: values, members: members)
            }
            return StoreImport.Entity(layout: entity, records: records)
        }
    }

    private static func contents(of url: URL) throws(StrataError) -> Data {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw StrataError(.importFailed, "\(url.path) cannot be read")
        }
        return data
    }

    private static func check(_ format: String, _ version: Int, fileName: String) throws(StrataError) {
        guard format == StoreExport.formatName else {
            throw StrataError(.importFailed, "\(fileName) is not a Strata export (its format is \(format))")
        }
        guard version <= StoreExport.formatVersion else {
            throw StrataError(.importFailed, "\(fileName) is an export of format \(version), newer than this version reads")
        }
    }

    private static func reason(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        if case DecodingError.keyNotFound(let key, _) = error { return "it has no \(key.stringValue)" }
        if case DecodingError.typeMismatch(_, let context) = error {
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        }
        return "\(error)"
    }
}

/// The head of an export, and in JSON its rows.
private struct ExportDocument: Decodable {
    var format: String
    var version: Int
    var fingerprint: String
    var schema: SchemaSummary
    var sequences: [String: Int64]?
    var entities: [String: [[String: ImportedValue]]]?
}

/// One field of an imported row: a JSON value, or a CSV field's text.
enum ImportedValue: Decodable {
    case null
    case bool(Bool)
    /// A JSON number, as an integer when it is one and as a floating-point
    /// number when it reads as one (`-0.0` is both 0 and -0.0).
    case number(Int64?, Double?)
    case string(String)
    case array([ImportedValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if case let (integer, real) = (try? container.decode(Int64.self), try? container.decode(Double.self)),
                  integer != nil || real != nil {
            self = .number(integer, real)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            self = .array(try container.decode([ImportedValue].self))
        }
    }

    /// The value as the text ``StoreFileValueFormat`` reads for `type`; nil for null.
    func text(for type: AttributeType?) -> String? {
        switch self {
        case .null, .array: nil
        case .bool(let value): value ? "true" : "false"
        case .number(let integer, let real):
            if let real, type == .double || type == .float || type == .date || integer == nil { "\(real)" } else { integer.map(String.init) }
        case .string(let value): value
        }
    }

    var integer: Int64? {
        switch self {
        case .number(let value, _): value
        case .string(let value): Int64(value)
        default: nil
        }
    }

    /// Keys of to-many members: a JSON array, or CSV text separated by spaces.
    var keys: [Int64]? {
        switch self {
        case .null: return []
        case .array(let values):
            let keys = values.compactMap(\.integer)
            return keys.count == values.count ? keys : nil
        case .string(let text):
            let words = text.split(separator: " ")
            let keys = words.compactMap { Int64($0) }
            return keys.count == words.count ? keys : nil
        default: return nil
        }
    }
}
