extension ManagedObjectContext {
    /// How many merges history that cannot be read waits for before the
    /// context refreshes its objects instead.
    static let historyMergeAttempts = 3

    /// Merges the change sets other contexts committed since the last call.
    ///
    /// Contexts that merge automatically call this at the start of every
    /// operation, and the container calls it promptly for `viewContext` and
    /// background contexts, so apps rarely need to.
    public func mergePendingChanges() {
        guard !inbox.isEmpty else { return }
        let items = inbox.drain()
        for (position, item) in items.enumerated() {
            switch item {
            case .changes(let changes): merge(changes)
            case .history(let transactions):
                do {
                    try mergeHistory(transactions)
                    failedHistoryMerges = 0
                } catch {
                    reportUnthrown(error)
                    failedHistoryMerges += 1
                    if failedHistoryMerges < Self.historyMergeAttempts {
                        // The store could not be read (a connection lost, say): these
                        // and what came after wait, in order, for the next merge.
                        inbox.putBack(items[position...])
                        return
                    }
                    // It keeps failing: refresh instead, as after history pruned unread.
                    failedHistoryMerges = 0
                    refreshAfterMissedHistory()
                }
            case .missedHistory: refreshAfterMissedHistory()
            }
        }
    }

    /// Takes in one committed change set: registered objects get the new values
    /// of properties they did not change themselves, deleted objects leave the
    /// context, and loaded to-many relationships that may have changed reload.
    public func merge(_ changes: ChangeSet) {
        guard parentStore.storeIdentifier == changes.storeIdentifier else { return }
        for row in changes.inserted {
            invalidateInverseMembers(entityIndex: row.entityIndex, ordinals: row.ordinals, values: row.values, old: nil)
        }
        for row in changes.updated {
            guard let pk = row.objectID.primaryKey else { continue }
            let object = registry[row.entityIndex][pk]
            let old = object.flatMap { $0.persistentBacking.isFault ? nil : $0.persistentBacking.committed }
            invalidateInverseMembers(entityIndex: row.entityIndex, ordinals: row.ordinals, values: row.values, old: old)
            guard let object else { continue }
            // A fault loads the new values when next read; observers read it again.
            defer { object.persistentBacking.notifyObservers(of: object, ordinals: row.ordinals) }
            guard !object.persistentBacking.isFault else { continue }
            let backing = object.persistentBacking
            let entity = schema.entities[row.entityIndex]
            for (ordinal, value) in zip(row.ordinals, row.values) {
                guard !backing.changedOrdinals.contains(ordinal) else {
                    backing.setCommittedValue(value, at: ordinal)
                    continue
                }
                backing.setCurrentAndCommittedValue(value, at: ordinal)
                if entity.relationship(at: ordinal) != nil, ordinal < backing.relations.count {
                    backing.relations[ordinal] = .unloaded
                }
            }
            backing.version = row.version
        }
        for row in changes.deleted {
            guard let pk = row.objectID.primaryKey, let object = registry[row.entityIndex][pk] else { continue }
            let backing = object.persistentBacking
            let old = backing.isFault ? nil : backing.committed
            if let old {
                let entity = schema.entities[row.entityIndex]
                invalidateInverseMembers(entityIndex: row.entityIndex, ordinals: entity.columnOrdinals, values: [], old: old)
            }
            registry[row.entityIndex][pk] = nil
            tracker.forget(object)
            removeFromLoadedRelationships(object)
            backing.invalidate()
            backing.notifyObserversOfEveryProperty(of: object)
        }
        mergeToManyChanges(changes.toManyChanges)
        if hasEventListeners { deliver(.didMerge(changes)) }
    }

    /// Marks loaded to-many relationships stale when a row's foreign keys moved.
    private func invalidateInverseMembers(
        entityIndex: Int, ordinals: [Int], values: [StoredValue], old: ContiguousArray<StoredValue>?
    ) {
        let entity = schema.entities[entityIndex]
        for (position, ordinal) in ordinals.enumerated() {
            guard entity.relationship(at: ordinal) != nil else { continue }
            let inverse = entity.inverseOrdinalByOrdinal[ordinal]
            guard inverse >= 0 else { continue }
            let destination = entity.destinationIndexByOrdinal[ordinal]
            var keys: [StoredValue] = []
            if position < values.count { keys.append(values[position]) }
            if let old, ordinal < old.count { keys.append(old[ordinal]) }
            for case .integer(let key) in keys {
                guard let target = registry[destination][key] else { continue }
                let backing = target.persistentBacking
                guard inverse < backing.relations.count, !backing.changedOrdinals.contains(inverse) else { continue }
                backing.relations[inverse] = .unloaded
                backing.notifyObservers(of: target, ordinals: CollectionOfOne(inverse))
            }
        }
    }

    /// Drops a vanished object from every relationship that holds it, loaded or
    /// not, so no registered object points at a row that no longer exists.
    private func removeFromLoadedRelationships(_ object: any PersistentModel) {
        guard let vanishedEntity = object.persistentBacking.entity,
              let vanishedKey = object.persistentBacking.primaryKey else { return }
        for entityObjects in registry {
            for candidate in entityObjects.values {
                let backing = candidate.persistentBacking
                for (ordinal, slot) in backing.relations.enumerated() {
                    if case .toMany(let members) = slot, members.contains(where: { $0 === object }) {
                        backing.relations[ordinal] = .toMany(members.filter { $0 !== object })
                        backing.notifyObservers(of: candidate, ordinals: CollectionOfOne(ordinal))
                    } else if case .toOne(let target?) = slot, target === object {
                        backing.relations[ordinal] = .toOne(nil)
                    }
                }
                guard !backing.isFault, let entity = backing.entity else { continue }
                for ordinal in entity.columnOrdinals where entity.relationship(at: ordinal) != nil
                    && entity.destinationIndexByOrdinal[ordinal] == vanishedEntity.index
                    && backing.committedValue(at: ordinal) == .integer(vanishedKey) {
                    if backing.changedOrdinals.contains(ordinal) {
                        backing.setCommittedValue(.null, at: ordinal)
                    } else {
                        backing.setCurrentAndCommittedValue(.null, at: ordinal)
                    }
                }
            }
        }
    }
}

import Foundation
