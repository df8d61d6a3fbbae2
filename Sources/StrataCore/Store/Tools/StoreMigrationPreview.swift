import Foundation

/// What the next load of a store with another schema would do, worked out
/// without the app's model types and without changing the file:
/// `strata migrate FILE --dry-run --schema app.json` prints it.
///
/// The app gives its schema as the JSON a store records
/// (`schema.summary.canonicalJSON()`). The preview compares it with the
/// schema the store records, then describes the inferred (lightweight) step
/// between the two, or why it cannot be inferred. Custom stages of a
/// ``SchemaMigrationPlan`` run the app's own code and are not predicted. The
/// JSON carries no declared default values, so a new or newly required
/// attribute is described as taking its declared default.
///
/// ```swift
/// let target = try JSONDecoder().decode(SchemaSummary.self, from: Data(contentsOf: schemaURL))
/// let preview = try StoreMigrationPreview(url: storeURL, to: target)
/// if preview.problems.isEmpty { preview.steps.forEach { print($0) } }
/// ```
public struct StoreMigrationPreview: Sendable, Codable {
    public var fileName: String
    /// The fingerprints of the schema the store records and of the one given.
    public var storedFingerprint: String
    public var targetFingerprint: String
    /// Whether a load with the given schema migrates the store at all.
    public var isNeeded: Bool
    /// How the two schemas differ, one line each.
    public var differences: [String]
    /// What the inferred step does, one sentence each; empty when nothing changes.
    public var steps: [String]
    /// Why the step cannot be inferred; a load without a custom stage for
    /// these changes would refuse the store and leave it as it is.
    public var problems: [String]

    /// Compares a store named `fileName` that records `stored` (with its
    /// `fingerprint`) with `target`.
    package init(fileName: String, stored: SchemaSummary, fingerprint: String, to target: SchemaSummary) {
        self.fileName = fileName
        storedFingerprint = fingerprint
        targetFingerprint = target.fingerprint
        isNeeded = storedFingerprint != targetFingerprint
        differences = SchemaDifference.between(stored: stored, current: target).map(\.description)
        guard isNeeded else {
            steps = []
            problems = []
            return
        }
        let schema = Schema(recorded: target, assumedDefault: .null)
        let step = InferredMigration(from: stored, to: schema)
        problems = step.problems
        steps = Self.describe(step, schema: schema, stored: stored)
    }

    private static func describe(_ step: InferredMigration, schema: Schema, stored: SchemaSummary) -> [String] {
        let storedEntities = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var lines: [String] = []
        for entityStep in step.entities {
            let entity = schema.entities[entityStep.entityIndex]
            guard let source = entityStep.source, let before = storedEntities[source] else {
                lines.append("creates \(entity.name), with no rows")
                continue
            }
            for ordinal in entity.columnOrdinals {
                let property = entity.properties[ordinal]
                let name = "\(entity.name).\(property.name)"
                let isOptional = if case .attribute(let attribute) = property { attribute.isOptional } else { true }
                switch entityStep.columns[ordinal] ?? .null {
                case .column(let column, let conversion, let whenNull):
                    var parts: [String] = []
                    if column != property.name { parts.append("takes the values of \(source).\(column)") }
                    switch conversion {
                    case .none: break
                    case .toReal: parts.append("converts them to floating-point numbers")
                    case .toText, .boolToText: parts.append("converts them to text")
                    case .jsonToInteger: parts.append("reads their JSON numbers as integers")
                    }
                    if whenNull != nil { parts.append("gives rows without a value its declared default") }
                    if !parts.isEmpty { lines.append("\(name) " + parts.joined(separator: ", ")) }
                case .value:
                    lines.append(isOptional
                        ? "\(name) is new: stored rows get its declared default, or nil without one"
                        : "\(name) is new: stored rows get its declared default (required, so it must declare one)")
                case .null:
                    if before.properties.contains(where: { $0.name == property.name }) { continue }
                    lines.append("\(name) is new: stored rows have none")
                case .pairedKey(let pairEntity, let relationship, _):
                    lines.append("\(name) becomes to-one: each row keeps its one member of \(pairEntity).\(relationship)")
                }
            }
            let kept = Set(entity.properties.map(\.name)).union(entity.properties.compactMap(Self.originalName))
            for property in before.properties where !kept.contains(property.name) {
                lines.append("\(entity.name).\(property.name) is removed, with its values")
            }
        }
        for join in step.joins {
            let entity = schema.entities[join.ownerEntity]
            let name = "\(entity.name).\(entity.properties[join.ordinal].name)"
            switch join.source {
            case .pairs(let pairEntity, let relationship, let swapped):
                if swapped || pairEntity != entity.name || relationship != entity.properties[join.ordinal].name {
                    lines.append("\(name) keeps the pairs stored under \(pairEntity).\(relationship)")
                }
            case .foreignKey(let memberEntity, let toOne):
                lines.append("\(name) becomes many-to-many, keeping each \(memberEntity).\(toOne) as a pair")
            case .ownerToOne(let toOne):
                lines.append("\(name) becomes to-many, keeping each row's \(entity.name).\(toOne) as its one member")
            case .none:
                lines.append("\(name) is new: no pairs yet")
            }
        }
        for removed in step.removedEntities {
            lines.append("\(removed) is removed, with its rows")
        }
        return lines
    }

    private static func originalName(_ property: PropertyDescription) -> String? {
        switch property {
        case .attribute(let attribute): attribute.originalName
        case .relationship(let relationship): relationship.originalName
        }
    }
}
