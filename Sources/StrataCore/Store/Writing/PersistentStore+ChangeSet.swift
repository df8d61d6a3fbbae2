/// How every store describes what a write changed, in one place: the change
/// set of a save or batch request, its rows and its to-many changes.
///
/// ```swift
/// var changes = store.changeSet(author: request.author, contextName: request.contextName, origin: origin)
/// changes.deleted.append(store.deletedRow(entityIndex: book.index, primaryKey: 42))
/// ```
extension PersistentStore {
    /// An empty change set of this store, labelled with the write's author, context and origin.
    package func changeSet(author: String?, contextName: String?, origin: ObjectIdentifier?) -> ChangeSet {
        var changes = ChangeSet(storeIdentifier: identifier)
        changes.author = author
        changes.contextName = contextName
        changes.originToken = origin
        return changes
    }

    /// A row an insertion or update wrote: the properties at `ordinals` now hold `values`.
    package func changedRow(
        entityIndex: Int, primaryKey: Int64, ordinals: [Int], values: [StoredValue], version: Int64
    ) -> ChangeSet.Row {
        let entity = schema.entities[entityIndex]
        return ChangeSet.Row(
            objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: primaryKey),
            entity: entity, ordinals: ordinals, values: values, version: version)
    }

    /// A deleted row: no properties, version 0.
    package func deletedRow(entityIndex: Int, primaryKey: Int64) -> ChangeSet.Row {
        changedRow(entityIndex: entityIndex, primaryKey: primaryKey, ordinals: [], values: [], version: 0)
    }

    /// An owner whose to-many relationship at `ordinal` changed members or order.
    package func toManyChange(entityIndex: Int, ordinal: Int, primaryKey: Int64) -> ChangeSet.ToManyChange {
        let entity = schema.entities[entityIndex]
        return ChangeSet.ToManyChange(
            objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: primaryKey),
            relationshipName: entity.properties[ordinal].name, entityIndex: entityIndex, ordinal: ordinal)
    }
}

/// Makes the change-set rows of one entity of a store, having read the store
/// once: for writes that make a row per stored row, through a store the
/// compiler does not specialize for.
///
/// ```swift
/// let rows = ChangedRows(entityIndex: book.index, of: store)
/// changes.deleted += keys.map(rows.deleted)
/// ```
package struct ChangedRows {
    package let entity: EntityDescription
    let space: ObjectIDSpace

    package init(entityIndex: Int, of store: some PersistentStore) {
        self.init(store.schema.entities[entityIndex], storeIdentifier: store.identifier)
    }

    package init(_ entity: EntityDescription, storeIdentifier: String) {
        self.entity = entity
        space = .named(entity: entity.name, store: storeIdentifier)
    }

    /// A row an insertion or update wrote: the properties at `ordinals` now hold `values`.
    package func row(_ key: Int64, ordinals: [Int], values: [StoredValue], version: Int64) -> ChangeSet.Row {
        ChangeSet.Row(
            objectID: ObjectID(space: space, primaryKey: key), entity: entity,
            ordinals: ordinals, values: values, version: version)
    }

    /// A deleted row: no properties, version 0.
    package func deleted(_ key: Int64) -> ChangeSet.Row {
        row(key, ordinals: [], values: [], version: 0)
    }
}
