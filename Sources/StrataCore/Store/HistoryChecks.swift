/// The checks every store makes before reading or pruning its history, with
/// the same errors in each.
///
/// ```swift
/// try store.checkHistoryIsTracked()
/// try store.check(token)   // a token of another store is refused
/// ```
extension PersistentStore {
    /// Throws `.historyTrackingDisabled` unless the store records history.
    package func checkHistoryIsTracked() throws(StrataError) {
        guard options.historyTracking else {
            throw StrataError(
                .historyTrackingDisabled,
                "History tracking is off for this store; set historyTracking on its StoreDescription before loading")
        }
    }

    /// Throws `.invalidHistoryToken` for a token another store issued.
    package func check(_ token: HistoryToken) throws(StrataError) {
        guard token.storeIdentifier == identifier else {
            throw StrataError(
                .invalidHistoryToken,
                "The history token belongs to store \(token.storeIdentifier), not to this store (\(identifier)); "
                    + "tokens are only meaningful for the store that issued them")
        }
    }
}

extension ForeignKeyEdge {
    /// The error of a batch delete that a `.deny` rule stops: the rule, and
    /// the rows (`blockers`, keys of the child entity) that still point at a doomed one.
    package func denial(blockers: [Int64], in schema: Schema, storeIdentifier: String) -> StrataError {
        let parent = schema.entities[parentIndex], child = schema.entities[childIndex]
        let rule = inverseOrdinal >= 0 ? parent.properties[inverseOrdinal].name : child.properties[ordinal].name
        return StrataError(
            .validation,
            "\(parent.name).\(rule) denies deleting \(withArticle(parent.name)) that still has \(child.name) objects; nothing was deleted",
            entityName: parent.name, propertyName: rule,
            objectIDs: blockers.prefix(100).map { ObjectID(entityName: child.name, storeIdentifier: storeIdentifier, primaryKey: $0) })
    }
}
