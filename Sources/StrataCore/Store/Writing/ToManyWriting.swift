/// Writes a save's to-many order and many-to-many membership through a
/// store's executor, after the save's inserts and updates (so foreign keys
/// and new keys exist) and before its deletes (whose pairs then go with them).
///
/// Only owners the context changed are written. Each relationship touched, on
/// either side, is recorded as a to-many change, so merging contexts reload it.
///
/// ```swift
/// result.changes.toManyChanges += try ToManyWriting.write(request, assignedKeys: result.assignedKeys, of: self, in: executor)
/// ```
package enum ToManyWriting {
    package static func write<Executor: StoreWriteExecutor>(
        _ request: SaveRequest, assignedKeys: [UInt64: Int64], of store: some PersistentStore, in executor: Executor
    ) throws(Executor.Failure) -> [ChangeSet.ToManyChange] {
        guard !request.toManyWrites.isEmpty || !request.toManyAppends.isEmpty else { return [] }
        let schema = store.schema
        func key(_ reference: RowReference) throws(Executor.Failure) -> Int64 {
            switch reference {
            case .stored(let key):
                return key
            case .pending(let temporary):
                guard let key = assignedKeys[temporary] else {
                    throw Executor.failure(StrataError(.validation, "A relationship holds an object that is not being saved"))
                }
                return key
            }
        }
        var changes: [ChangeSet.ToManyChange] = []
        func record(_ entityIndex: Int, _ ordinal: Int, _ primaryKey: Int64) {
            // A to-many without an inverse has no other side to report.
            guard ordinal >= 0 else { return }
            changes.append(store.toManyChange(entityIndex: entityIndex, ordinal: ordinal, primaryKey: primaryKey))
        }
        for write in request.toManyWrites {
            guard let shape = schema.toManyShape(entityIndex: write.entityIndex, ordinal: write.ordinal) else { continue }
            let owner = try key(write.owner)
            var members: [Int64] = []
            members.reserveCapacity(write.members.count)
            for member in write.members { members.append(try key(member)) }
            record(write.entityIndex, write.ordinal, owner)
            switch shape {
            case .foreignKey:
                guard !members.isEmpty else { continue }
                try executor.setMemberPositions(entityIndex: write.entityIndex, ordinal: write.ordinal, members: members)
            case .join(_, _, let destination):
                let inverse = schema.entities[write.entityIndex].inverseOrdinalByOrdinal[write.ordinal]
                let stored = try executor.joinedMembers(entityIndex: write.entityIndex, ordinal: write.ordinal, owner: owner)
                let removed = stored.subtracting(members).sorted()
                if !removed.isEmpty {
                    try executor.removeJoinedMembers(
                        entityIndex: write.entityIndex, ordinal: write.ordinal, owner: owner, members: removed)
                    for member in removed { record(destination, inverse, member) }
                }
                guard !members.isEmpty else { continue }
                try executor.setJoinedMembers(
                    entityIndex: write.entityIndex, ordinal: write.ordinal, owner: owner, members: members, stored: stored)
                for member in members where !stored.contains(member) { record(destination, inverse, member) }
            }
        }
        for append in request.toManyAppends {
            guard case .foreignKey? = schema.toManyShape(entityIndex: append.entityIndex, ordinal: append.ordinal) else { continue }
            let owner = try key(append.owner)
            try executor.appendMember(entityIndex: append.entityIndex, ordinal: append.ordinal, owner: owner, member: try key(append.member))
            record(append.entityIndex, append.ordinal, owner)
        }
        return changes
    }
}
