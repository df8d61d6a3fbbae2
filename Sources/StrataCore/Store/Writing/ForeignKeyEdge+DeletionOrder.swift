extension ForeignKeyEdge {
    /// The entities of `present` in the order a save deletes their rows: each
    /// after the entities its rows cascade to, else in the given order.
    ///
    /// `ON DELETE CASCADE` takes a deleted parent's children at once (SQLite)
    /// or when the statement ends (PostgreSQL), so deleting the parents first
    /// would leave fewer child rows than the save expects: its version check
    /// would fail and the save run again, checking first. Entities that
    /// cascade to each other in a cycle keep their order.
    ///
    /// ```swift
    /// ForeignKeyEdge.deletionOrder(of: [author, book], cascades: schema.cascadeEdges)  // [book, author]
    /// ```
    package static func deletionOrder(of present: [Int], cascades: [ForeignKeyEdge]) -> [Int] {
        let edges = cascades.filter {
            $0.childIndex != $0.parentIndex && present.contains($0.childIndex) && present.contains($0.parentIndex)
        }
        guard !edges.isEmpty else { return present }
        var remaining = present
        var order: [Int] = []
        while !remaining.isEmpty {
            let next = remaining.firstIndex { entity in
                !edges.contains { $0.parentIndex == entity && remaining.contains($0.childIndex) }
            }
            guard let next else { return order + remaining }
            order.append(remaining.remove(at: next))
        }
        return order
    }
}
