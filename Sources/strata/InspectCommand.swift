import ArgumentParser
import Foundation
import Strata

/// `strata inspect STORE`: what a store holds, without the app's models.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's schema version, entities with their properties and row counts, size and history.")

    @OptionGroup var options: StoreFileOptions

    func run() throws {
        let report = try StoreBrowser.report(at: options.file)
        if options.json {
            try options.printJSON(InspectionJSON(report))
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
            lines.append("\(entity.summary.name): \(CommandOutput.count(entity.rowCount, "row"))")
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
            lines.append("history: \(CommandOutput.count(history.transactionCount, "transaction"))"
                + (history.latestToken.map { ", latest token \($0)" } ?? ""))
        } else {
            lines.append("history: not kept")
        }
        return lines.joined(separator: "\n")
    }
}

/// `strata inspect --json`: a shape of its own, documented in "Looking at a
/// store from the command line", that does not change with Strata's types.
struct InspectionJSON: Encodable {
    struct Attribute: Encodable {
        var name: String
        var type: String
        var optional: Bool
        var options: [String]
    }

    struct Relationship: Encodable {
        var name: String
        var destination: String
        var toMany: Bool
        var deleteRule: String
        var inverse: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(destination, forKey: .destination)
            try container.encode(toMany, forKey: .toMany)
            try container.encode(deleteRule, forKey: .deleteRule)
            try container.encode(inverse, forKey: .inverse)
        }

        private enum CodingKeys: String, CodingKey { case name, destination, toMany, deleteRule, inverse }
    }

    struct Entity: Encodable {
        var name: String
        var rowCount: Int
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        var uniquenessConstraints: [[String]]
        var indexes: [[String]]
    }

    struct History: Encodable {
        var transactionCount: Int
        var latestToken: Int64?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(transactionCount, forKey: .transactionCount)
            try container.encode(latestToken, forKey: .latestToken)
        }

        private enum CodingKeys: String, CodingKey { case transactionCount, latestToken }
    }

    var store: String
    var sizeInBytes: Int64
    var storeIdentifier: String
    var formatVersion: Int
    var schemaVersion: String?
    var fingerprint: String
    var entities: [Entity]
    var history: History?

    init(_ report: StoreReport) {
        store = report.fileName
        sizeInBytes = report.sizeInBytes
        storeIdentifier = report.storeIdentifier
        formatVersion = report.formatVersion
        schemaVersion = report.schemaVersion
        fingerprint = report.fingerprint
        entities = report.entities.map { entity in
            var shown = Entity(
                name: entity.summary.name, rowCount: entity.rowCount,
                uniquenessConstraints: entity.summary.uniquenessConstraints, indexes: entity.summary.indexes)
            for property in entity.summary.properties {
                switch property {
                case .attribute(let attribute):
                    shown.attributes.append(Attribute(
                        name: attribute.name, type: attribute.type.rawValue, optional: attribute.isOptional,
                        options: attribute.options.map(\.rawValue).sorted()))
                case .relationship(let relationship):
                    shown.relationships.append(Relationship(
                        name: relationship.name, destination: relationship.destinationEntityName, toMany: relationship.isToMany,
                        deleteRule: relationship.deleteRule.rawValue, inverse: relationship.inverseName))
                }
            }
            return shown
        }
        history = report.history.map { History(transactionCount: $0.transactionCount, latestToken: $0.latestToken) }
    }

    /// Optionals are written as `null`, so every key is always there.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(store, forKey: .store)
        try container.encode(sizeInBytes, forKey: .sizeInBytes)
        try container.encode(storeIdentifier, forKey: .storeIdentifier)
        try container.encode(formatVersion, forKey: .formatVersion)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(fingerprint, forKey: .fingerprint)
        try container.encode(entities, forKey: .entities)
        try container.encode(history, forKey: .history)
    }

    private enum CodingKeys: String, CodingKey {
        case store, sizeInBytes, storeIdentifier, formatVersion, schemaVersion, fingerprint, entities, history
    }
}
