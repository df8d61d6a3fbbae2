import Foundation
import StrataCore
import StrataSQL

extension StoreRows {
    /// Reads the rows of `entity` that meet every condition, sorted, at most `limit`.
    /// An unknown entity or column, or a value that is not of its column's type,
    /// fails with `.unsupportedPredicate` or `.valueConversion`, naming it.
    ///
    /// With `eachRow`, each row is handed to it as it is read, with the
    /// columns, and `rows` stays empty: a reader of many rows holds one at a time.
    public init(
        url: URL, entity entityName: String, conditions: [Condition] = [], sort: [SortKey] = [], limit: Int? = nil,
        eachRow: ((StoreRows, [StoredValue]) -> Void)? = nil
    ) throws(StrataError) {
        let inspection = StoreFileInspection(url: url)
        let (_, metadata, tables) = try inspection.requireStore()
        let layout = RecordedStoreLayout(metadata.schema)
        guard let entity = layout.entity(named: entityName) else {
            throw StrataError(
                .unsupportedPredicate,
                "\(url.lastPathComponent) has no entity \(entityName); it has \(layout.entities.map(\.name).joined(separator: ", "))")
        }
        self.init(
            fileName: url.lastPathComponent, entityName: entityName, columns: ["_pk"] + entity.columns.map(\.name),
            types: [nil] + entity.columns.map(\.type))
        var typeByColumn: [String: AttributeType?] = ["_pk": nil]
        for column in entity.columns { typeByColumn[column.name] = column.type }
        func known(_ column: String) throws(StrataError) -> String {
            guard typeByColumn[column] != nil else {
                throw StrataError(
                    .unsupportedPredicate, "\(entityName) has no stored attribute or to-one relationship \(column)",
                    entityName: entityName, propertyName: column)
            }
            return column == "_pk" ? "pk" : quote(column)
        }
        // Decimal text compares and sorts by its number, as in every store.
        func collation(_ type: AttributeType?) -> String {
            type == .decimal ? " COLLATE \(DecimalCollation.name)" : ""
        }
        var clauses: [String] = []
        var arguments: [StoredValue] = []
        for condition in conditions {
            let column = try known(condition.column)
            let type = typeByColumn[condition.column] ?? nil
            guard let text = condition.value else {
                switch condition.comparison {
                case .equal: clauses.append("\(column) IS NULL")
                case .notEqual: clauses.append("\(column) IS NOT NULL")
                default: throw StrataError(.unsupportedPredicate, "only = and != compare with nil", propertyName: condition.column)
                }
                continue
            }
            switch condition.comparison {
            case .contains, .beginsWith, .endsWith:
                guard let type, type.storageKind == .text else {
                    throw StrataError(
                        .unsupportedPredicate, "\(condition.comparison.rawValue) compares text; \(condition.column) is not text",
                        propertyName: condition.column)
                }
                arguments.append(.text(text))
                let parameter = "?\(arguments.count)"
                let clause = switch condition.comparison {
                case .contains: "instr(\(column), \(parameter)) > 0"
                case .beginsWith: "substr(\(column), 1, length(\(parameter))) = \(parameter)"
                default: "\(column) IS NOT NULL AND (length(\(parameter)) = 0 OR substr(\(column), -length(\(parameter))) = \(parameter))"
                }
                clauses.append(clause)
            default:
                let value = try StoreFileValueFormat.stored(
                    fromText: text, type: type ?? .int64, context: "\(entityName).\(condition.column)")
                arguments.append(value)
                clauses.append("\(column)\(collation(type)) \(condition.comparison.rawValue) ?\(arguments.count)")
            }
        }
        var sql = "SELECT " + (["pk"] + entity.columns.map { quote($0.name) }).joined(separator: ", ")
            + " FROM \(quote(entityName))"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        let order = try sort.map { key throws(StrataError) in
            try known(key.column) + collation(typeByColumn[key.column] ?? nil) + (key.ascending ? "" : " DESC")
        } + ["pk"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        if let limit { sql += " LIMIT \(max(0, limit))" }
        rows = []
        if tables[entityName] != nil {
            try inspection.withInspectionConnection { connection throws(StrataError) in
                try inspection.forEachRow(connection, sql, arguments: arguments) { row throws(StrataError) in
                    if let eachRow { eachRow(self, row) } else { rows.append(row) }
                }
            }
        }
    }
}
