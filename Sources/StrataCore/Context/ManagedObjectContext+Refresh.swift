extension ManagedObjectContext {
    /// Discards every unsaved insert, change and deletion.
    public func rollback() {
        for object in tracker.insertedByKey.values { object.persistentBacking.invalidate() }
        for object in tracker.deleted.objects {
            let backing = object.persistentBacking
            backing.state = .registered
            // Changes made before the deletion go too.
            backing.revertToCommitted()
            backing.changedOrdinals.removeAll()
        }
        for object in tracker.changed.objects {
            let backing = object.persistentBacking
            backing.revertToCommitted()
            backing.changedOrdinals.removeAll()
        }
        tracker.removeAll()
        pendingMetadata = [:]
        undoManager?.removeAllActions()
        // Loaded relationships may hold rolled-back members; reload on next use.
        for entityObjects in registry {
            for object in entityObjects.values {
                object.persistentBacking.relations = []
                object.persistentBacking.notifyObserversOfEveryProperty(of: object)
            }
        }
        noteInvalidated(nil)
    }

    /// Forgets every object. Objects fetched before must not be used afterwards.
    public func reset() {
        for entityObjects in registry {
            for object in entityObjects.values { object.persistentBacking.invalidate() }
        }
        for object in tracker.insertedByKey.values { object.persistentBacking.invalidate() }
        for registered in registry { registered.removeAll() }
        tracker.removeAll()
        pendingMetadata = [:]
        // The objects saved with temporary IDs are gone from this context too.
        permanentKeysByTemporaryKey.removeAll()
        resetCount &+= 1
        _ = inbox.drain()
        unprocessedChanges = [:]
        undoManager?.removeAllActions()
        noteInvalidated(nil)
    }

    /// Reloads an object from the store. With `mergeChanges` false, unsaved
    /// changes are dropped and the object becomes a fault; with true, stored
    /// values replace only the properties this context did not change.
    public func refresh(_ object: some PersistentModel, mergeChanges: Bool) {
        let backing = object.persistentBacking
        guard backing.coordinator === self, backing.state == .registered || backing.state == .deleted else { return }
        defer {
            backing.notifyObserversOfEveryProperty(of: object)
            noteInvalidated(object)
        }
        if !mergeChanges {
            tracker.removeChanged(object)
            if backing.state == .registered { backing.turnIntoFault() }
            return
        }
        guard !backing.isFault, let entity = backing.entity else { return }
        do {
            guard let row = try parentStore.currentValues(of: backing, in: self) else { return }
            for ordinal in entity.columnOrdinals {
                if backing.changedOrdinals.contains(ordinal) {
                    backing.setCommittedValue(row.values[ordinal], at: ordinal)
                } else {
                    backing.setCurrentAndCommittedValue(row.values[ordinal], at: ordinal)
                    if entity.relationship(at: ordinal) != nil, ordinal < backing.relations.count {
                        backing.relations[ordinal] = .unloaded
                    }
                }
            }
            for (ordinal, property) in entity.properties.enumerated() where !property.hasColumn {
                if ordinal < backing.relations.count, !backing.changedOrdinals.contains(ordinal) {
                    backing.relations[ordinal] = .unloaded
                }
            }
            backing.version = row.version
        } catch {
            reportUnthrown(error)
        }
    }

    /// Refreshes every registered object, keeping unsaved changes.
    public func refreshAllObjects() {
        mergePendingChanges()
        for entityObjects in registry {
            for object in entityObjects.values {
                refreshAny(object)
            }
        }
    }

    private func refreshAny(_ object: any PersistentModel, mergeChanges: Bool = true) {
        refresh(object, mergeChanges: mergeChanges)
    }

    /// Another writer's history was pruned before this context could merge it,
    /// so which rows changed is unknown: objects without unsaved changes become
    /// faults, read again on next use (one whose row is gone reports
    /// `.objectNotFound`), and the others take the stored values of the
    /// properties this context did not change.
    func refreshAfterMissedHistory() {
        for entityObjects in registry {
            for object in entityObjects.values {
                let backing = object.persistentBacking
                let unchanged = backing.state == .registered && backing.changedOrdinals.isEmpty
                refreshAny(object, mergeChanges: !unchanged)
            }
        }
    }
}
