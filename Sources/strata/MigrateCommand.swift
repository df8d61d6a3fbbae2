import ArgumentParser
import Foundation
import Strata

/// `strata migrate FILE --schema app.json [--dry-run]`: what the next load of
/// the app's schema would do to the store, or doing it now, with a backup.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store file to the app's schema, keeping a backup; with --dry-run, only show what would happen.",
        discussion: """
            The schema is the JSON a store records. Write it with 'strata schema STORE -o app-schema.json' from a \
            store the new version of the app made, or in the app: \
            try schema.summary.canonicalJSON().write(to: URL(fileURLWithPath: "app-schema.json")). \
            An export ('strata export') holds it too, and is read as it is. \
            Only inferred steps are made; a store that needs a custom stage of the app's migration plan is \
            refused, unchanged. Exits 1 when the store cannot be migrated.
            """)

    @OptionGroup var options: StoreFileOptions

    @Flag(name: .long, help: "Only show what would happen; change nothing.")
    var dryRun = false

    @Option(name: .long, help: "The app's schema, as the JSON a store records (or an export that holds it).")
    var schema: String

    @Option(name: .long, help: "Where to copy the store first (default: beside it, <name>.backup.sqlite).")
    var backup: String?

    func run() throws {
        let target = try Self.schema(at: schema)
        let url = try StoreBrowser.sqliteFile(options.file, for: "migrate")
        let preview: StoreMigrationPreview
        if dryRun {
            preview = try StoreMigrationPreview(url: url, to: target)
        } else {
            let backup = URL(fileURLWithPath: backup
                ?? url.deletingPathExtension().path + ".backup." + (url.pathExtension.isEmpty ? "sqlite" : url.pathExtension))
            preview = try StoreFileMigration.migrate(storeAt: url, to: target, backup: backup)
            if preview.isNeeded, !options.json { print("Copied the store to \(backup.path) first.") }
        }
        if options.json {
            try options.printJSON(preview)
        } else {
            print(Self.text(preview, done: !dryRun))
        }
        if !preview.problems.isEmpty { throw ExitCode.failure }
    }

    /// A schema file: the JSON a store records, or an export holding it.
    static func schema(at path: String) throws(StrataError) -> SchemaSummary {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StrataError(.invalidStoreLocation, "\(path) cannot be read")
        }
        struct Export: Decodable { var schema: SchemaSummary }
        if let summary = try? JSONDecoder().decode(SchemaSummary.self, from: data) { return summary }
        if let export = try? JSONDecoder().decode(Export.self, from: data) { return export.schema }
        throw StrataError(
            .invalidSchema,
            "\(path) is neither a schema as a store records it nor an export holding one; "
                + "write it with 'strata schema STORE -o \(URL(fileURLWithPath: path).lastPathComponent)'")
    }

    static func text(_ preview: StoreMigrationPreview, done: Bool) -> String {
        guard preview.isNeeded else {
            return "\(preview.fileName): already at this schema (fingerprint \(preview.storedFingerprint)); nothing to do"
        }
        var lines = ["\(preview.fileName): schema \(preview.storedFingerprint) → \(preview.targetFingerprint)"]
        if !preview.differences.isEmpty {
            lines.append("differences:")
            lines += preview.differences.map { "  \($0)" }
        }
        if preview.problems.isEmpty {
            lines.append(done ? "migrated in one transaction:" : "the next load migrates in one transaction:")
            lines += preview.steps.map { "  \($0)" }
        } else {
            lines.append("the next load refuses the store, leaving it as it is, unless a custom stage covers:")
            lines += preview.problems.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}

/// `strata schema STORE [-o FILE]`: the schema a store records, as the JSON
/// `migrate --schema` reads.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Write the schema a store records, as the JSON 'strata migrate --schema' reads.",
        discussion: """
            Run it on a store the new version of the app made (a test or development store) to get the \
            schema to migrate older stores to.
            """)

    @Argument(help: "The store: a file, or a PostgreSQL URL.")
    var store: String

    @Option(name: .shortAndLong, help: "The file to write (default: standard output).")
    var output: String?

    func run() throws {
        let report = try StoreBrowser.report(at: store)
        let summary = try StoreBrowser.recordedSchema(in: report)
        let json = String(decoding: summary.canonicalJSON(), as: UTF8.self)
        guard let output else {
            print(json)
            return
        }
        do {
            try Data((json + "\n").utf8).write(to: URL(fileURLWithPath: output))
        } catch {
            throw StrataError(.invalidStoreLocation, "\(output) cannot be written: \(error.localizedDescription)")
        }
        print("\(report.fileName): wrote its schema (fingerprint \(summary.fingerprint)) to \(output)")
    }
}
