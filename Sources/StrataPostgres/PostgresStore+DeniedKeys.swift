import StrataCore
import StrataSQL

// Rows that go together may point at each other through a `.deny` rule (a
// publisher deleted with the contract that would deny it). PostgreSQL's
// `RESTRICT` is checked when each `DELETE` ends, even in a deferred key, so
// whichever table went first would fail. Strata checks `.deny` rules against
// the rows that stay before it deletes; the keys the going rows hold on each
// other are cleared first.

extension PostgresWriteExecutor {
    /// Clears the `.deny`-guarded keys that rows a save deletes hold on other
    /// rows it deletes. The rows go in the same transaction, so no one sees
    /// the cleared keys; their versions are left as they are.
    func releaseDeniedKeys(_ edges: [ForeignKeyEdge], among deletes: [RowDelete]) throws(StrataError) {
        var keys: [Int: [Int64]] = [:]
        for delete in deletes { keys[delete.entityIndex, default: []].append(delete.primaryKey) }
        for edge in edges {
            guard let children = keys[edge.childIndex], let parents = keys[edge.parentIndex] else { continue }
            try session.execute(
                "UPDATE \(store.layout.entities[edge.childIndex].table) SET \(edge.column) = NULL WHERE pk = ANY($1) AND \(edge.column) = ANY($2)",
                arguments: [.keys(children), .keys(parents)])
        }
    }
}
