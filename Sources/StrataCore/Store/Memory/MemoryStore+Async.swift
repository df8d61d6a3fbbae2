extension MemoryStore: AsyncPersistentStore {
    // Each answer comes after a suspension, as a network store's would, so the
    // awaiting path of contexts is exercised for real.

    package func fetchRowsAsync(_ plan: FetchPlan) async throws(StrataError) -> [StoredRow] {
        await Task.yield()
        var rows: [StoredRow] = []
        try fetchRows(plan) { rows.append($0.stored()) }
        return rows
    }

    package func fetchKeysAsync(_ plan: FetchPlan) async throws(StrataError) -> [Int64] {
        await Task.yield()
        return try fetchKeys(plan)
    }

    package func countAsync(_ plan: FetchPlan) async throws(StrataError) -> Int {
        await Task.yield()
        return try count(plan)
    }

    package func fetchValuesAsync(_ plan: FetchPlan, columns: [StoreExpression]) async throws(StrataError) -> StoredValueRows {
        await Task.yield()
        return try collectValues(plan, columns: columns)
    }

    package func saveAsync(_ request: SaveRequest, origin: ObjectIdentifier?) async throws(StrataError) -> SaveResult {
        await Task.yield()
        return try save(request, origin: origin)
    }
}
