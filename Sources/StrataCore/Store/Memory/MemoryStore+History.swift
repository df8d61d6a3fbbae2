import Foundation

/// The persistent history an in-memory store keeps: transactions with their
/// changes, numbered as SQLite's `AUTOINCREMENT` numbers them (never reused).
struct MemoryHistory: Sendable {
    var transactions: [HistoryTransaction] = []
    var lastNumber: Int64 = 0
    /// The highest transaction number pruned so far (0: none).
    var prunedThrough: Int64 = 0
}

extension MemoryStore {
    /// Records a committed change set as one history transaction, when history
    /// tracking is on; returns its token.
    func recordHistory(
        of changes: ChangeSet, previous: PreviousValues, in history: inout MemoryHistory
    ) -> HistoryToken? {
        guard options.historyTracking, !changes.isEmpty else { return nil }
        history.lastNumber += 1
        let token = HistoryToken(storeIdentifier: identifier, transactionNumber: history.lastNumber)
        let recorded = HistoryRecording(schema: schema, recordsValues: options.recordsValueChanges, previous: previous)
            .changes(of: changes)
        history.transactions.append(HistoryTransaction(
            token: token, timestamp: Date(), author: changes.author, contextName: changes.contextName,
            processID: ProcessInfo.processInfo.processIdentifier, origin: originIdentifier, changes: recorded))
        return token
    }

    package func fetchHistory(_ request: HistoryRequest) throws(StrataError) -> [HistoryTransaction] {
        try checkHistoryIsTracked()
        return try withDatabase { _, history throws(StrataError) in
            var after: Int64 = 0
            var since: Date?
            switch request.start {
            case .beginning:
                break
            case .token(let token):
                try check(token)
                guard token.transactionNumber >= history.prunedThrough else {
                    throw StrataError(
                        .historyTokenExpired,
                        "History after this token was deleted (pruned through transaction \(history.prunedThrough)); "
                            + "fetch from the beginning or from a date, and refresh the objects you rely on")
                }
                after = token.transactionNumber
            case .date(let date):
                since = date
            }
            if let limit = request.fetchLimit, limit <= 0 { return [] }
            var selected: [HistoryTransaction] = []
            for var transaction in history.transactions where transaction.token.transactionNumber > after {
                if let since, transaction.timestamp <= since { continue }
                if let authors = request.authors, !(transaction.author.map(authors.contains) ?? false) { continue }
                if let origin = request.excludedOrigin, transaction.origin == origin { continue }
                if let names = request.entityNames {
                    transaction.changes = transaction.changes.filter { names.contains($0.entityName) }
                    if transaction.changes.isEmpty { continue }
                }
                selected.append(transaction)
                if let limit = request.fetchLimit, selected.count >= limit { break }
            }
            return selected
        }
    }

    package func currentHistoryToken() throws(StrataError) -> HistoryToken? {
        try checkHistoryIsTracked()
        return try withDatabase { _, history in
            let number = history.transactions.last?.token.transactionNumber ?? (history.prunedThrough > 0 ? history.prunedThrough : nil)
            return number.map { HistoryToken(storeIdentifier: identifier, transactionNumber: $0) }
        }
    }

    package func deleteHistory(before token: HistoryToken) throws(StrataError) -> Int {
        try checkHistoryIsTracked()
        try check(token)
        return try prune(through: token.numberBefore)
    }

    package func deleteHistory(before date: Date) throws(StrataError) -> Int {
        try checkHistoryIsTracked()
        let through = try withDatabase { _, history in
            // The transactions before the first one at or after `date`: a
            // later one with an earlier time (another clock) is kept, not the other way.
            if let first = history.transactions.first(where: { $0.timestamp >= date }) {
                return first.token.transactionNumber - 1
            }
            return history.transactions.last?.token.transactionNumber ?? 0
        }
        return try prune(through: through)
    }

    private func prune(through number: Int64) throws(StrataError) -> Int {
        guard number > 0 else { return 0 }
        return try withDatabase { _, history in
            let before = history.transactions.count
            history.transactions.removeAll { $0.token.transactionNumber <= number }
            history.prunedThrough = max(history.prunedThrough, number)
            return before - history.transactions.count
        }
    }

}
