/// What a store does for a write inside its own transaction, in rows: the
/// narrow half of the write pipeline. What a write means (which rows conflict,
/// which deletions go first, what the change set and history say) is worked
/// out once, above this protocol, for every store; a store answers these
/// calls with its own statements and sees the transaction's own writes.
///
/// Each store's executor is a value made for one transaction (the SQLite
/// store's holds its connection, the PostgreSQL store's its session, the
/// in-memory store's its database). `Failure` is the error its calls throw:
/// `StrataError`, or for a store on a library that throws its own errors,
/// `any Error` translated once where the transaction ends.
///
/// ```swift
/// let checks = try SaveChecks(request, schema: schema, versions: true, in: executor)
/// if !checks.conflicts.isEmpty { return SaveResult(changes: ChangeSet(storeIdentifier: identifier), conflicts: checks.conflicts) }
/// ```
package protocol StoreWriteExecutor {
    associatedtype Failure: Error

    /// A Strata error as this executor's failure (the planner's own, such as a
    /// relationship that holds an unsaved object).
    static func failure(_ error: StrataError) -> Failure

    /// The schema of the store written.
    var schema: Schema { get }

    /// The stored rows with these keys, in any order; keys without a row are skipped.
    func readRows(entityIndex: Int, keys: [Int64], _ body: (StoredRow) -> Void) throws(Failure)

    /// The stored rows (at most one, under a unique index) whose `columns`
    /// hold `values`, none of them NULL. `constraint` is the position of the
    /// constraint in `schema.uniqueKeys[entityIndex]`, for a store that indexes by it.
    func rowsHolding(
        entityIndex: Int, constraint: Int, columns: [Int], values: [StoredValue], _ body: (StoredRow) -> Void
    ) throws(Failure)

    /// Which of these rows are not at the expected version, ascending by key,
    /// each with the row now stored (nil: it is gone). The default reads every
    /// row whole; a store with a cheaper way to read versions alone overrides it.
    func staleRows(entityIndex: Int, expected: [(primaryKey: Int64, version: Int64)]) throws(Failure) -> [RowConflict]

    // MARK: Saving (see SaveWriter)

    /// Takes `count` new keys of an entity; returns the first (the rest follow it).
    func reserveKeys(entityIndex: Int, count: Int64) throws(Failure) -> Int64
    /// Inserts an entity's rows at version 1: `rows[i]`, values in column order, under `keys[i]`.
    func insertRows(entityIndex: Int, keys: [Int64], rows: [[StoredValue]]) throws(Failure)
    /// Writes updates of one entity and column set, every one with an
    /// expected version or none, and returns the version each leaves its row
    /// at: nil for a row gone or (with an expected version) at another one.
    /// `checked`: versions were checked first, so a miss means the row went.
    /// A first attempt may stop at its first miss.
    func updateRows(_ updates: [RowUpdate], checked: Bool) throws(Failure) -> [Int64?]
    /// Deletes rows of one entity, ascending by key, each once; false when a
    /// first attempt (not `checked`) found one at another version or gone,
    /// else rows already gone are skipped. Calls `whileDeleting` once, when
    /// it can do the caller's work in parallel with the store's.
    func deleteRows(
        entityIndex: Int, _ rows: ArraySlice<RowDelete>, checked: Bool, whileDeleting: () -> Void
    ) throws(Failure) -> Bool
    /// Clears the keys of `edges` (`.deny` rules) that rows among `deletes` hold on each other.
    func releaseDeniedKeys(_ edges: [ForeignKeyEdge], among deletes: [RowDelete]) throws(Failure)
    /// Sets (nil: removes) app metadata keys.
    func writeMetadata(_ metadata: [String: StoredValue?]) throws(Failure)

    // MARK: To-many relationships, addressed by the owner's entity and the relationship's ordinal

    /// One-to-many: member `i` takes position `i` among its owner's members.
    func setMemberPositions(entityIndex: Int, ordinal: Int, members: [Int64]) throws(Failure)
    /// One-to-many: `member` goes after its owner's other members.
    func appendMember(entityIndex: Int, ordinal: Int, owner: Int64, member: Int64) throws(Failure)
    /// Many-to-many (or without an inverse): the owner's stored members.
    func joinedMembers(entityIndex: Int, ordinal: Int, owner: Int64) throws(Failure) -> Set<Int64>
    /// Removes the owner's pairs with these members.
    func removeJoinedMembers(entityIndex: Int, ordinal: Int, owner: Int64, members: [Int64]) throws(Failure)
    /// Adds or moves the owner's pairs: member `i` at the owner's position `i`;
    /// a new pair (one not in `stored`) goes last among the member's own owners.
    func setJoinedMembers(entityIndex: Int, ordinal: Int, owner: Int64, members: [Int64], stored: Set<Int64>) throws(Failure)
}

extension StoreWriteExecutor where Failure == StrataError {
    package static func failure(_ error: StrataError) -> StrataError { error }
}

extension StoreWriteExecutor where Failure == any Error {
    package static func failure(_ error: StrataError) -> any Error { error }
}

extension StoreWriteExecutor {
    package func staleRows(
        entityIndex: Int, expected: [(primaryKey: Int64, version: Int64)]
    ) throws(Failure) -> [RowConflict] {
        var found: [Int64: StoredRow] = [:]
        try readRows(entityIndex: entityIndex, keys: expected.map(\.primaryKey)) { found[$0.primaryKey] = $0 }
        return expected.compactMap { key, version in
            let stored = found[key]
            return stored?.version == version ? nil : RowConflict(entityIndex: entityIndex, primaryKey: key, stored: stored)
        }
    }
}
