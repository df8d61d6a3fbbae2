import ArgumentParser
import Foundation
import Strata

extension StoreExport.Format: ExpressibleByArgument {}

/// `strata export STORE --to json|csv`: every row, to a file or a directory.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every row of a store as JSON (one file) or CSV (a directory, one file per entity).",
        discussion: """
            Values are exact, so 'strata import' reads them back unchanged: dates as seconds since \
            2001-01-01 00:00:00 UTC, data in Base64, to-one relationships as the related row's key and \
            to-many relationships as the members' keys in order.
            """)

    @OptionGroup var options: StoreFileOptions

    @Option(name: .long, help: "The format: json or csv.")
    var to: StoreExport.Format

    @Option(name: .shortAndLong, help: ArgumentHelp(
        "Where to write (default: beside the store file, its name with .json, or -csv for a directory; "
            + "for a PostgreSQL store, the schema's name in the current folder)."))
    var output: String?

    func run() throws {
        let destination = URL(fileURLWithPath: output ?? defaultOutput())
        let bar = ProgressBar(label: "exporting")
        let summary = try StoreBrowser.export(at: options.file, as: to, to: destination, progress: bar.update)
        bar.finish()
        if options.json {
            try options.printJSON(summary)
        } else {
            let rows = summary.rowCounts.values.reduce(0, +)
            print("\(summary.fileName): \(CommandOutput.count(rows, "row")) of \(CommandOutput.count(summary.rowCounts.count, "entity", "entities")) "
                + "to \(destination.path)")
        }
    }

    private func defaultOutput() -> String {
        let base: String
        if StoreBrowser.isPostgres(options.file) {
            let schema = URLComponents(string: options.file)?.queryItems?.first { $0.name == "schema" }?.value
            base = schema ?? "public"
        } else {
            let store = URL(fileURLWithPath: options.file)
            base = store.deletingLastPathComponent().appendingPathComponent(store.deletingPathExtension().lastPathComponent).path
        }
        return base + (to == .json ? ".json" : "-csv")
    }
}

/// `strata import FILE SOURCE`: an export's rows into a store without rows,
/// made from the export's schema when the file does not exist.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read an export back into a store of the same schema that has no rows yet, creating it if needed.",
        discussion: """
            A missing store file is created from the schema the export records. Rows keep their keys, versions \
            and to-many order. The import is one transaction: on any problem nothing is written.
            """)

    @OptionGroup var options: StoreFileOptions

    @Argument(help: "The export: a JSON file, or a CSV directory.")
    var source: String

    @Option(name: .long, help: "The export's format: json or csv (default: csv for a directory, json otherwise).")
    var format: StoreExport.Format?

    func run() throws {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory)
        let format = format ?? (exists && isDirectory.boolValue ? .csv : .json)
        let bar = ProgressBar(label: "importing")
        let url = try StoreBrowser.sqliteFile(options.file, for: "import")
        let summary = try StoreImport.import(
            from: URL(fileURLWithPath: source), as: format, into: url, createsStore: true, progress: bar.update)
        bar.finish()
        if options.json {
            try options.printJSON(summary)
        } else {
            let rows = summary.rowCounts.values.reduce(0, +)
            print("\(summary.fileName): imported \(CommandOutput.count(rows, "row")) of "
                + "\(CommandOutput.count(summary.rowCounts.count, "entity", "entities"))")
        }
    }
}
