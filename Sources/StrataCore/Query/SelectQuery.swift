/// The SQL of one fetch request: `SELECT … FROM … WHERE … ORDER BY … LIMIT … OFFSET …`.
package struct SelectQuery {
    let table: String
    let selectList: String
    let whereClause: String?
    let orderClause: String?
    /// Values bound by the WHERE and ORDER BY clauses.
    package let arguments: [StoredValue]
    let whereArguments: [StoredValue]
    let limit: Int?
    let offset: Int

    package init<T: PersistentModel>(
        request: FetchRequest<T>, schema: Schema, entity: EntityDescription, store: SQLiteStore
    ) throws(StrataError) {
        let compiler = PredicateCompiler(schema: schema, entity: entity)
        var arguments: [StoredValue] = []
        if let predicate = request.predicate {
            let fragment = try compiler.compile(predicate)
            whereClause = fragment.sql
            arguments += fragment.arguments
        } else {
            whereClause = nil
        }
        whereArguments = arguments
        let sort = try compiler.compileSort(request.sortBy)
        orderClause = sort.sql.isEmpty ? nil : sort.sql
        arguments += sort.arguments
        self.arguments = arguments
        table = store.tableName(entityIndex: entity.index)
        selectList = store.selectList(entityIndex: entity.index)
        limit = request.fetchLimit
        offset = max(0, request.fetchOffset)
    }

    private func sql(columns: String, limited: Bool) -> String {
        var sql = "SELECT \(columns) FROM \(table) AS t0"
        if let whereClause { sql += " WHERE \(whereClause)" }
        // A stable order: the requested one, then the primary key.
        sql += " ORDER BY " + (orderClause.map { "\($0), t0.pk" } ?? "t0.pk")
        if limited, limit != nil || offset > 0 { sql += " LIMIT ? OFFSET ?" }
        return sql
    }

    package func selectSQL(limited: Bool) -> String { sql(columns: selectList, limited: limited) }
    package func keysSQL(limited: Bool) -> String { sql(columns: "t0.pk", limited: limited) }

    package func countSQL() -> String {
        var sql = "SELECT count(*) FROM \(table) AS t0"
        if let whereClause { sql += " WHERE \(whereClause)" }
        if limit != nil || offset > 0 {
            sql = "SELECT count(*) FROM (SELECT 1 FROM \(table) AS t0"
                + (whereClause.map { " WHERE \($0)" } ?? "") + " LIMIT ? OFFSET ?)"
        }
        return sql
    }

    package func arguments(limited: Bool) -> [StoredValue] {
        guard limited, limit != nil || offset > 0 else { return arguments }
        return arguments + [.integer(Int64(limit ?? -1)), .integer(Int64(offset))]
    }

    package func countArguments() -> [StoredValue] {
        guard limit != nil || offset > 0 else { return whereArguments }
        return whereArguments + [.integer(Int64(limit ?? -1)), .integer(Int64(offset))]
    }
}
