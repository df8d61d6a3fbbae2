import ArgumentParser
import Foundation
import Strata

extension StoreExport.Format: ExpressibleByArgument {}

/// `strata export FILE --to json|csv`: every row, to a file or a directory.
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

    @Option(name: .shortAndLong, help: "Where to write (default: the store's name with .json, or -csv for a directory).")
    var output: String?

    func run() throws {
        let store = URL(fileURLWithPath: options.file)
        let base = store.deletingPathExtension().lastPathComponent
        let destination = URL(fileURLWithPath: output ?? (to == .json ? base + ".json" : base + "-csv"))
        let bar = ProgressBar(label: "exporting")
        let summary = try options.read { url throws(StrataError) in
            try StoreExport.export(storeAt: url, as: to, to: destination, progress: bar.update)
        }
        bar.finish()
        if options.json {
            try options.printJSON(summary)
        } else {
            let rows = summary.rowCounts.values.reduce(0, +)
            print("\(summary.fileName): \(rows) \(rows == 1 ? "row" : "rows") of \(summary.rowCounts.count) entities to \(destination.path)")
        }
    }
}

/// `strata import FILE SOURCE`: an export's rows into a store without rows.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read an export back into a store of the same schema that has no rows yet.",
        discussion: """
            Create the store by loading the app's container once. Rows keep their keys, versions and \
            to-many order. The import is one transaction: on any problem nothing is written.
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
        let summary = try options.read { url throws(StrataError) in
            try StoreImport.import(from: URL(fileURLWithPath: source), as: format, into: url, progress: bar.update)
        }
        bar.finish()
        if options.json {
            try options.printJSON(summary)
        } else {
            let rows = summary.rowCounts.values.reduce(0, +)
            print("\(summary.fileName): imported \(rows) \(rows == 1 ? "row" : "rows") of \(summary.rowCounts.count) entities")
        }
    }
}
