import Foundation

extension StoreRows {
    /// The rows of `entity` in an open store of any kind, read through the
    /// store's own queries: what `strata fetch` shows of a PostgreSQL store.
    /// Conditions and sort keys mean what they mean for a file
    /// (`init(url:entity:conditions:sort:limit:eachRow:)`).
    ///
    /// ```swift
    /// let rows = try StoreRows(store: store, name: "app|library", entity: "Book",
    ///                          conditions: [try StoreRows.Condition(parsing: "year >= 1970")])
    /// ```
    package init(
        store: any PersistentStore, name: String, entity entityName: String, conditions: [Condition] = [],
        sort: [SortKey] = [], limit: Int? = nil, eachRow: ((StoreRows, [StoredValue]) -> Void)? = nil
    ) throws(StrataError) {
        let schema = store.schema
        guard let entity = schema.entity(named: entityName) else {
            throw StrataError(
                .unsupportedPredicate,
                "\(name) has no entity \(entityName); it has \(schema.entities.map(\.name).joined(separator: ", "))")
        }
        let row = ObjectOperand.row(0, entity: entity.index)
        let ordinals = entity.properties.indices.filter { entity.properties[$0].hasColumn }
        self.init(
            fileName: name, entityName: entityName, columns: ["_pk"] + ordinals.map { entity.properties[$0].name },
            types: [nil] + ordinals.map { entity.attribute(at: $0)?.type })

        func column(_ name: String) throws(StrataError) -> (StoreExpression, AttributeType?) {
            if name == "_pk" { return (.key(row), nil) }
            guard let ordinal = ordinals.first(where: { entity.properties[$0].name == name }) else {
                throw StrataError(
                    .unsupportedPredicate, "\(entityName) has no stored attribute or to-one relationship \(name)",
                    entityName: entityName, propertyName: name)
            }
            return (.property(row, ordinal), entity.attribute(at: ordinal)?.type)
        }
        var predicate: StoreExpression?
        for condition in conditions {
            let (value, type) = try column(condition.column)
            let clause = try Self.expression(condition, on: value, type: type, entityName: entityName)
            predicate = predicate.map { .and($0, clause) } ?? clause
        }
        let terms = try sort.map { key throws(StrataError) in
            let (value, type) = try column(key.column)
            return SortTerm(value, ascending: key.ascending, collation: type == .decimal ? .decimal : .binary)
        }
        let plan = FetchPlan(
            entityIndex: entity.index, predicate: predicate, sort: terms + [SortTerm(.key(row), ascending: true)],
            limit: limit.map { max(0, $0) })
        rows = []
        var read: [[StoredValue]] = []
        try store.fetchRows(plan) { stored in
            let values = stored.decodeValues()
            let row = [StoredValue.integer(stored.primaryKey)] + ordinals.map { values[$0] }
            if let eachRow { eachRow(self, row) } else { read.append(row) }
        }
        rows = read
    }

    /// A condition as the store's expression of `value`.
    private static func expression(
        _ condition: Condition, on value: StoreExpression, type: AttributeType?, entityName: String
    ) throws(StrataError) -> StoreExpression {
        guard let text = condition.value else {
            switch condition.comparison {
            case .equal: return .isNull(value)
            case .notEqual: return .not(.isNull(value))
            default: throw StrataError(.unsupportedPredicate, "only = and != compare with nil", propertyName: condition.column)
            }
        }
        switch condition.comparison {
        case .contains, .beginsWith, .endsWith:
            guard let type, type.storageKind == .text else {
                throw StrataError(
                    .unsupportedPredicate, "\(condition.comparison.rawValue) compares text; \(condition.column) is not text",
                    propertyName: condition.column)
            }
            let argument = StoreExpression.value(.text(text))
            return switch condition.comparison {
            case .contains: .containsText(value, argument)
            case .beginsWith: .hasPrefix(value, argument)
            // PostgreSQL reverses text by code point, as the file tool compares it.
            default: .hasPrefix(.transformed(value, .backwards), .value(.text(String(String.UnicodeScalarView(text.unicodeScalars.reversed())))))
            }
        default:
            let stored = StoreExpression.value(try StoreFileValueFormat.stored(
                fromText: text, type: type ?? .int64, context: "\(entityName).\(condition.column)"))
            let collation: Collation = type == .decimal ? .decimal : .binary
            return switch condition.comparison {
            case .equal: .compare(value, .equal, stored, collation)
            // As in a file: rows without a value are not among those unequal to one.
            case .notEqual: .and(.not(.isNull(value)), .not(.compare(value, .equal, stored, collation)))
            case .less: .compare(value, .lessThan, stored, collation)
            case .lessOrEqual: .compare(value, .lessThanOrEqual, stored, collation)
            case .greater: .compare(value, .greaterThan, stored, collation)
            default: .compare(value, .greaterThanOrEqual, stored, collation)
            }
        }
    }
}
