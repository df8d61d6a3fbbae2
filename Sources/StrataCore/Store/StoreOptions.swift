/// What a store does beyond storing rows, as its description asks.
package struct StoreOptions: Sendable, Hashable {
    /// Record a history transaction with every save.
    package var historyTracking = false
    /// With history: also record old and new values of changed attributes.
    package var recordsValueChanges = false
    /// Watch the file for commits by other processes and containers.
    package var remoteChangeNotifications = false
    /// Run SQLite's `quick_check` and `foreign_key_check` on an existing file before opening it.
    package var verifiesIntegrity = false
    /// The permission bits of a newly created store file.
    package var filePermissions: UInt16 = 0o600

    package init(historyTracking: Bool = false, recordsValueChanges: Bool = false, remoteChangeNotifications: Bool = false) {
        self.historyTracking = historyTracking
        self.recordsValueChanges = recordsValueChanges
        self.remoteChangeNotifications = remoteChangeNotifications
    }
}
