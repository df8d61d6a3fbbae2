import PostgresNIO
import StrataCore
import StrataSQL

// Writing many rows' columns at once: one binary array per column where the
// values allow, else `VALUES` lists of bound values, in statements of a size
// PostgreSQL and postgres-nio take. Saves, batch updates and upserts share it.

extension PostgresStore {
    /// Updates rows given as (key, expected version, values…) and returns each
    /// updated row's key and new version: one binary array per column where
    /// every column can be one, else `VALUES` lists of bound values, in chunks
    /// PostgreSQL's 65,535 bound values allow.
    func updateRows(
        _ rows: ArraySlice<[StoredValue]>, types: [String], entityIndex: Int, columns: [Int], checkingVersion: Bool,
        in session: PostgresSession
    ) throws(StrataError) -> [PostgresRow] {
        if let arguments = Self.columnArrays(rows, types: types) {
            let sql = layout.updateSQL(
                entityIndex: entityIndex, columns: columns, checkingVersion: checkingVersion, source: Self.unnestSource(types))
            return try session.rows(sql, arguments: arguments)
        }
        var updated: [PostgresRow] = []
        for range in try PostgresSession.chunks(of: rows, maximumRows: max(1, 30_000 / types.count)) {
            var tuples: [String] = []
            var arguments: [StoredValue] = []
            for row in rows[range] {
                let first = arguments.count
                tuples.append("(" + zip(row.indices, types).map { "$\(first + $0 + 1)::\($1)" }.joined(separator: ", ") + ")")
                arguments += row
            }
            let sql = layout.updateSQL(
                entityIndex: entityIndex, columns: columns, checkingVersion: checkingVersion,
                source: "(VALUES \(tuples.joined(separator: ", ")))")
            updated += try session.rows(sql, arguments)
        }
        return updated
    }

    /// One binary array per column of `rows`; nil when a column's values
    /// cannot make one.
    static func columnArrays(_ rows: ArraySlice<[StoredValue]>, types: [String]) -> [PostgresArgument]? {
        var arguments: [PostgresArgument] = []
        arguments.reserveCapacity(types.count)
        for (index, type) in types.enumerated() {
            guard let column = PostgresColumnArray(sqlType: type, values: rows.map { $0[index] }) else { return nil }
            arguments.append(.column(column))
        }
        return arguments
    }

    /// The arrays bound as `$1…` expanded in a select list, which streams
    /// them, where `unnest(…)` in `FROM` would first copy them into a table.
    static func unnestSource(_ types: [String]) -> String {
        "(SELECT " + types.enumerated().map { "unnest($\($0.offset + 1)::\($0.element)[])" }.joined(separator: ", ") + ")"
    }

    /// The SQL types of the values an update binds for `columns` (each
    /// column, then its folded twin where it has one).
    func columnTypes(entityIndex: Int, columns: [Int]) -> [String] {
        let entity = schema.entities[entityIndex]
        var types: [String] = []
        for column in columns {
            let ordinal = entity.columnOrdinals[column]
            if let attribute = entity.attribute(at: ordinal) {
                types.append(PostgresLayout.bindType(attribute.type))
                if attribute.type == .string { types.append("text") }
            } else {
                types.append("bigint")
            }
        }
        return types
    }
}
