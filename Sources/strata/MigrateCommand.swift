import ArgumentParser
import Foundation
import Strata

/// `strata migrate FILE --dry-run --schema app.json`: what the next load of
/// the app's schema would do to the store, changing nothing.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Show what loading a store with another schema would do (--dry-run); exits 1 if it would be refused.",
        discussion: """
            The app writes its schema as the JSON a store records: \
            try schema.summary.canonicalJSON().write(to: URL(fileURLWithPath: "app-schema.json")). \
            The store migrates itself when the app loads it; this command only previews the inferred step. \
            Custom stages of a migration plan run the app's code and are not predicted.
            """)

    @OptionGroup var options: StoreFileOptions

    @Flag(name: .long, help: "Only show what would happen (required: the app migrates its store when it loads it).")
    var dryRun = false

    @Option(name: .long, help: "The app's schema, as the JSON a store records.")
    var schema: String

    func validate() throws {
        guard dryRun else {
            throw ValidationError("strata migrate only previews: add --dry-run (the app migrates its store when it loads it)")
        }
    }

    func run() throws {
        guard let data = FileManager.default.contents(atPath: schema) else {
            FileHandle.standardError.write(Data("strata: \(schema) cannot be read\n".utf8))
            throw ExitCode.failure
        }
        let target: SchemaSummary
        do {
            target = try JSONDecoder().decode(SchemaSummary.self, from: data)
        } catch {
            FileHandle.standardError.write(Data("strata: \(schema) is not a schema as a store records it (\(error))\n".utf8))
            throw ExitCode.failure
        }
        let preview = try options.read { url throws(StrataError) in try StoreMigrationPreview(url: url, to: target) }
        if options.json {
            try options.printJSON(preview)
        } else {
            print(Self.text(preview))
        }
        if !preview.problems.isEmpty { throw ExitCode.failure }
    }

    static func text(_ preview: StoreMigrationPreview) -> String {
        guard preview.isNeeded else {
            return "\(preview.fileName): already at this schema (fingerprint \(preview.storedFingerprint)); loading changes nothing"
        }
        var lines = ["\(preview.fileName): schema \(preview.storedFingerprint) → \(preview.targetFingerprint)"]
        if !preview.differences.isEmpty {
            lines.append("differences:")
            lines += preview.differences.map { "  \($0)" }
        }
        if preview.problems.isEmpty {
            lines.append("the next load migrates in one transaction:")
            lines += preview.steps.map { "  \($0)" }
        } else {
            lines.append("the next load refuses the store, leaving it as it is, unless a custom stage covers:")
            lines += preview.problems.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
