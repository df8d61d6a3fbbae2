import Foundation

/// Writes every row of a store file as JSON or CSV, without the app's models
/// and without changing the file: `strata export` runs it, and
/// `StoreImport` reads what it writes back into a store of the same schema.
///
/// - JSON: one file holding the recorded schema, its fingerprint and, per
///   entity, one object per row: `_pk`, `_version`, each stored attribute and
///   to-one relationship (the related row's key), and each to-many
///   relationship as the members' keys in order.
/// - CSV: a directory with `schema.json` (the same header) and one
///   `<Entity>.csv` per entity with the same columns; to-many keys are
///   separated by spaces, an empty field is nil and `""` is empty text.
///
/// Values are written exactly (see `StoreFileValueFormat`): dates as seconds
/// since 2001-01-01 00:00:00 UTC, data in Base64.
///
/// ```swift
/// let summary = try StoreExport.export(storeAt: storeURL, as: .json, to: URL(fileURLWithPath: "library.json"))
/// summary.rowCounts["Book"]   // 1200
/// ```
public enum StoreExport {
    /// The formats the tools write and read.
    public enum Format: String, Sendable, Codable, CaseIterable {
        case json, csv
    }

    /// What an export or import moved.
    public struct Summary: Sendable, Codable {
        public var fileName: String
        public var format: Format
        /// Rows per entity.
        public var rowCounts: [String: Int]

        package init(fileName: String, format: Format, rowCounts: [String: Int]) {
            self.fileName = fileName
            self.format = format
            self.rowCounts = rowCounts
        }
    }

    /// The format name and version at the head of every export.
    package static let formatName = "strata-export", formatVersion = 1


    /// What an export holds besides its rows.
    package struct Contents {
        package var fingerprint: String
        package var schema: SchemaSummary
        package var layout: RecordedStoreLayout
        /// The highest key each entity has given.
        package var sequences: [String: Int64] = [:]
        package var rowCounts: [String: Int] = [:]

        package init(fingerprint: String, schema: SchemaSummary) {
            self.fingerprint = fingerprint
            self.schema = schema
            layout = RecordedStoreLayout(schema)
        }
    }

    /// Writes an export: the header, then each entity's records as `records` reads them.
    package static func write(
        _ contents: Contents, as format: Format, to destination: URL, progress: ((Int, Int) -> Void)?,
        records: (RecordedStoreLayout.Entity, (Record) throws(StrataError) -> Void) throws(StrataError) -> Void
    ) throws(StrataError) {
        let sequences = contents.sequences.sorted { $0.key < $1.key }
            .map { StoreFileValueFormat.jsonString($0.key) + ": \($0.value)" }
        let header = "\"format\": \"\(formatName)\", \"version\": \(formatVersion), \"fingerprint\": "
            + StoreFileValueFormat.jsonString(contents.fingerprint) + ", \"schema\": "
            + String(decoding: contents.schema.canonicalJSON(), as: UTF8.self)
            + ", \"sequences\": {" + sequences.joined(separator: ", ") + "}"
        let total = contents.rowCounts.values.reduce(0, +)
        var written = 0
        func rowWritten() {
            written += 1
            if written % 1000 == 0 || written == total { progress?(written, total) }
        }
        progress?(0, total)
        switch format {
        case .json:
            let output = try ExportOutput(url: destination)
            try output.write("{" + header + ", \"entities\": {")
            for (index, entity) in contents.layout.entities.enumerated() {
                try output.write((index == 0 ? "\n" : ",\n") + StoreFileValueFormat.jsonString(entity.name) + ": [")
                var first = true
                try records(entity) { record throws(StrataError) in
                    var fields = ["\"_pk\": \(record.key)", "\"_version\": \(record.version)"]
                    for (column, value) in zip(entity.columns, record.values) {
                        fields.append(StoreFileValueFormat.jsonString(column.name) + ": "
                            + StoreFileValueFormat.json(value, type: column.type))
                    }
                    for (toMany, members) in zip(entity.toMany, record.members) {
                        fields.append(StoreFileValueFormat.jsonString(toMany.name) + ": ["
                            + members.map(String.init).joined(separator: ", ") + "]")
                    }
                    try output.write((first ? "\n  {" : ",\n  {") + fields.joined(separator: ", ") + "}")
                    first = false
                    rowWritten()
                }
                try output.write(first ? "]" : "\n]")
            }
            try output.write("\n}}\n")
            try output.close()
        case .csv:
            do {
                try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
            } catch {
                throw StrataError(.invalidStoreLocation, "\(destination.path) cannot be created: \(error.localizedDescription)")
            }
            let schemaFile = try ExportOutput(url: destination.appendingPathComponent("schema.json"))
            try schemaFile.write("{" + header + "}\n")
            try schemaFile.close()
            for entity in contents.layout.entities {
                let output = try ExportOutput(url: destination.appendingPathComponent(entity.name + ".csv"))
                try output.write(CSVFormat.line(["_pk", "_version"] + entity.columns.map(\.name) + entity.toMany.map(\.name)) + "\n")
                try records(entity) { record throws(StrataError) in
                    var fields: [String?] = [String(record.key), String(record.version)]
                    for (column, value) in zip(entity.columns, record.values) {
                        fields.append(StoreFileValueFormat.text(value, type: column.type))
                    }
                    fields += record.members.map { $0.map(String.init).joined(separator: " ") }
                    try output.write(CSVFormat.line(fields) + "\n")
                    rowWritten()
                }
                try output.close()
            }
        }
    }

    /// One row of an entity, with the keys of each to-many's members in order.
    package struct Record {
        package var key: Int64
        package var version: Int64
        package var values: [StoredValue]
        package var members: [[Int64]]

        package init(key: Int64, version: Int64, values: [StoredValue], members: [[Int64]]) {
            self.key = key
            self.version = version
            self.values = values
            self.members = members
        }
    }

}

/// A file written in large pieces, so an export of millions of rows does not
/// make a write call per row.
private final class ExportOutput {
    private let handle: FileHandle
    private let url: URL
    private var buffer = Data()

    init(url: URL) throws(StrataError) {
        self.url = url
        guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = FileHandle(forWritingAtPath: url.path) else {
            throw StrataError(.invalidStoreLocation, "\(url.path) cannot be written")
        }
        self.handle = handle
    }

    func write(_ text: String) throws(StrataError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 20 { try flush() }
    }

    func close() throws(StrataError) {
        try flush()
        try? handle.close()
    }

    private func flush() throws(StrataError) {
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw StrataError(.invalidStoreLocation, "\(url.path) cannot be written: \(error.localizedDescription)")
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
