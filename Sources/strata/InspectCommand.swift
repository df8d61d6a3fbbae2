import ArgumentParser
import Foundation
import Strata

/// `strata inspect FILE`: what a store holds, without the app's models.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's schema version, entities with their properties and row counts, size and history.")

    @OptionGroup var options: StoreFileOptions

    func run() throws {
        let report = try options.read { url throws(StrataError) in try StoreReport(url: url) }
        if options.json {
            try options.printJSON(report)
        } else {
            print(Self.text(report))
        }
    }

    static func text(_ report: StoreReport) -> String {
        let size = ByteCountFormatter.string(fromByteCount: report.sizeInBytes, countStyle: .file)
        var lines = ["\(report.fileName): \(size), store format \(report.formatVersion), schema "
            + "\(report.schemaVersion.map { "version \($0), " } ?? "")fingerprint \(report.fingerprint)",
            "store \(report.storeIdentifier)"]
        for entity in report.entities {
            lines.append("")
            lines.append("\(entity.summary.name): \(entity.rowCount) \(entity.rowCount == 1 ? "row" : "rows")")
            for property in entity.summary.properties {
                switch property {
                case .attribute(let attribute):
                    var traits = [attribute.type.rawValue + (attribute.isOptional ? "?" : "")]
                    traits += attribute.options.map(\.rawValue).sorted()
                    lines.append("  \(attribute.name): \(traits.joined(separator: ", "))")
                case .relationship(let relationship):
                    var traits = ["\(relationship.isToMany ? "to-many" : "to-one") \(relationship.destinationEntityName)",
                                  "delete rule \(relationship.deleteRule.rawValue)"]
                    if let inverse = relationship.inverseName { traits.append("inverse \(inverse)") }
                    lines.append("  \(relationship.name): \(traits.joined(separator: ", "))")
                }
            }
            for constraint in entity.summary.uniquenessConstraints { lines.append("  unique (\(constraint.joined(separator: ", ")))") }
            for index in entity.summary.indexes { lines.append("  index (\(index.joined(separator: ", ")))") }
        }
        lines.append("")
        if let history = report.history {
            lines.append("history: \(history.transactionCount) transactions"
                + (history.latestToken.map { ", latest token \($0)" } ?? ""))
        } else {
            lines.append("history: not kept")
        }
        return lines.joined(separator: "\n")
    }
}
