import Foundation
import StrataCore
import StrataSQL
import GRDB

extension SQLiteStore {
    /// Creates the history tables when history tracking is on and they are
    /// missing (a store that was first used without history gets them on its
    /// first load with history).
    func prepareHistoryTables() throws {
        guard options.historyTracking, !isReadOnly else { return }
        try writer.write { db in
            for statement in HistoryLayout.createStatements { try db.execute(sql: statement) }
        }
    }

    /// Reads whole rows of one entity into `previous`. For batch operations, before they write.
    func capturePreviousValues(
        entityIndex: Int, primaryKeys: [Int64], into previous: inout PreviousValues, in db: Database
    ) throws {
        try previous.read(entityIndex: entityIndex, keys: primaryKeys, in: SQLiteWriteExecutor(store: self, db: db))
    }

    /// Records one committed change set as a history transaction, inside the
    /// transaction that writes it, when history tracking is on. Returns the
    /// transaction's token (nil when nothing was recorded).
    ///
    /// `previous` holds the rows as they were before the write (see
    /// `PreviousValues(for:schema:options:in:)`); without them deletions have no
    /// tombstone and updates no old values.
    @discardableResult
    func recordHistory(
        of changes: ChangeSet, previous: PreviousValues = PreviousValues(), in db: Database
    ) throws -> HistoryToken? {
        guard options.historyTracking, !changes.isEmpty else { return nil }
        let transaction = RawStatement(try db.cachedStatement(sql: HistoryLayout.insertTransactionSQL), in: db)
        transaction.reset()
        try transaction.bind(SQLHistory.transactionValues(
            of: changes, timestamp: .real(Date().timeIntervalSinceReferenceDate), origin: originIdentifier))
        try transaction.execute()
        let number = db.lastInsertedRowID
        let statement = RawStatement(try db.cachedStatement(sql: HistoryLayout.insertChangeSQL), in: db)
        for row in SQLHistory.changeRows(of: changes, number: number, schema: schema, options: options, previous: previous) {
            statement.reset()
            try statement.bind(row)
            try statement.execute()
        }
        return HistoryToken(storeIdentifier: identifier, transactionNumber: number)
    }
}


