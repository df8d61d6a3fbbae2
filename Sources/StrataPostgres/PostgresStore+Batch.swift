import StrataCore

extension PostgresStore {
    private func batchUnsupported() -> StrataError {
        StrataError(.postgres, "Batch requests are not supported by the PostgreSQL store yet; save through a context")
    }

    func batchInsert(entityIndex: Int, rows: [[StoredValue]], transaction: BatchTransaction) throws(StrataError) -> BatchWriteResult {
        throw batchUnsupported()
    }

    func batchUpsert(
        entityIndex: Int, rows: BatchRows, action: UpsertAction, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        throw batchUnsupported()
    }

    func batchUpdate(
        entityIndex: Int, predicate: StoreExpression?, ordinals: [Int], values: [StoredValue], transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        throw batchUnsupported()
    }

    func batchDelete(
        entityIndex: Int, selection: BatchDeleteSelection, transaction: BatchTransaction
    ) throws(StrataError) -> BatchWriteResult {
        throw batchUnsupported()
    }
}
