/// A schema rebuilt from the summary a store records, for tools that work on a
/// store without the app's model types (`strata migrate --dry-run`).
///
/// The summary carries names, types and relationships but no Swift types and
/// no declared default values; `assumedDefault`, when given, stands in for
/// every attribute's default, so a step that needs one is described as taking
/// it rather than refused.
///
/// ```swift
/// let stored = Schema(recorded: report.schema, assumedDefault: nil)
/// stored.entity(named: "Book")?.properties.map(\.name)
/// ```
extension Schema {
    package convenience init(recorded summary: SchemaSummary, assumedDefault: StoredValue?) {
        let indexByName = Dictionary(summary.entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let entities = summary.entities.enumerated().map { index, entity in
            var destinations: [Int] = []
            var inverses: [Int] = []
            var defaults: [StoredValue?] = []
            for property in entity.properties {
                switch property {
                case .attribute:
                    destinations.append(-1)
                    inverses.append(-1)
                    defaults.append(assumedDefault)
                case .relationship(let relationship):
                    let destination = indexByName[relationship.destinationEntityName] ?? -1
                    destinations.append(destination)
                    let inverse = destination < 0 ? nil : relationship.inverseName.flatMap { name in
                        summary.entities[destination].properties.firstIndex { $0.name == name }
                    }
                    inverses.append(inverse ?? -1)
                    defaults.append(nil)
                }
            }
            return EntityDescription(
                name: entity.name, properties: entity.properties, metadata: [],
                uniquenessConstraints: entity.uniquenessConstraints, indexes: entity.indexes, modelType: RecordedModel.self,
                index: index, destinationIndexByOrdinal: destinations, inverseOrdinalByOrdinal: inverses, defaultValues: defaults)
        }
        self.init(entities: entities, problems: [], version: nil)
    }
}

/// The model type of every entity of a recorded schema: its objects are never
/// made, since such a schema only describes stored rows.
private final class RecordedModel: PersistentModel {
    static let schemaProperties: [PropertyMetadata] = []
    let persistentBacking: ModelBacking
    init(backing: ModelBacking) { persistentBacking = backing }
}
