/// One difference between a stored schema and the current one.
package struct SchemaDifference: Sendable, CustomStringConvertible {
    package var description: String

    package static func between(stored: SchemaSummary, current: SchemaSummary) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        let old = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let new = Dictionary(current.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for name in old.keys.sorted() where new[name] == nil {
            result.append(SchemaDifference(description: "entity \(name) was removed"))
        }
        for name in new.keys.sorted() where old[name] == nil {
            result.append(SchemaDifference(description: "entity \(name) was added"))
        }
        for name in new.keys.sorted() {
            guard let before = old[name], let after = new[name] else { continue }
            let beforeProperties = Dictionary(before.properties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            let afterProperties = Dictionary(after.properties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            for property in beforeProperties.keys.sorted() where afterProperties[property] == nil {
                result.append(SchemaDifference(description: "\(name).\(property) was removed"))
            }
            for property in afterProperties.keys.sorted() {
                guard let was = beforeProperties[property] else {
                    result.append(SchemaDifference(description: "\(name).\(property) was added"))
                    continue
                }
                if was != afterProperties[property] {
                    result.append(SchemaDifference(description: "\(name).\(property) changed"))
                }
            }
            if before.uniquenessConstraints != after.uniquenessConstraints || before.indexes != after.indexes {
                result.append(SchemaDifference(description: "\(name) has different constraints or indexes"))
            }
        }
        return result
    }
}
