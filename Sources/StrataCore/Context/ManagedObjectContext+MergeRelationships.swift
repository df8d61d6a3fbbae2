extension ManagedObjectContext {
    /// Marks loaded to-many relationships that another context's save changed
    /// (members or order) to reload on next use, which loads them in the new
    /// stored order. Relationships this context changed itself are kept, as
    /// unsaved attribute changes are.
    func mergeToManyChanges(_ changes: [ChangeSet.ToManyChange]) {
        for change in changes {
            guard let pk = change.objectID.primaryKey, let object = registry[change.entityIndex][pk] else { continue }
            let backing = object.persistentBacking
            guard change.ordinal < backing.relations.count, !backing.changedOrdinals.contains(change.ordinal) else { continue }
            backing.relations[change.ordinal] = .unloaded
            backing.notifyObservers(of: object, ordinals: CollectionOfOne(change.ordinal))
        }
    }
}
