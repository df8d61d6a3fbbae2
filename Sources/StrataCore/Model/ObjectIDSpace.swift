import Synchronization

/// The entity and the store an ``ObjectID`` names: one instance per pair for
/// the life of the process, so an ID holds it without counting references.
///
/// An ID is then a pointer and a key, copied, compared and hashed without
/// touching either name. Spaces are never freed: a process makes one per
/// entity of each store it opens (and one per entity for temporary IDs),
/// about a hundred bytes each.
///
/// ```swift
/// let space = ObjectIDSpace.named(entity: "Book", store: store.identifier)
/// let id = ObjectID(space: space, primaryKey: 42)
/// ```
package final class ObjectIDSpace: Sendable {
    package let entityName: String
    package let storeIdentifier: String

    private init(entityName: String, storeIdentifier: String) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
    }

    private struct Names: Hashable {
        let entity: String
        let store: String
    }

    private static let spaces = Mutex<[Names: ObjectIDSpace]>([:])

    /// The space of an entity in a store (`""`: of temporary IDs).
    package static func named(entity: String, store: String) -> ObjectIDSpace {
        let names = Names(entity: entity, store: store)
        return spaces.withLock { spaces in
            if let space = spaces[names] { return space }
            let space = ObjectIDSpace(entityName: entity, storeIdentifier: store)
            spaces[names] = space
            return space
        }
    }

    /// The space of IDs not yet assigned (an object being made).
    package static let unassigned = named(entity: "", store: "")
}

/// The spaces of a schema's entities in one store, made on first use: what
/// code that makes many IDs of one store asks, instead of looking each up.
///
/// ```swift
/// var spaces = ObjectIDSpaces(store: store.identifier)
/// let id = ObjectID(space: spaces[entity], primaryKey: 42)
/// ```
package struct ObjectIDSpaces {
    package let storeIdentifier: String
    private var spaces: [ObjectIDSpace?] = []

    package init(store storeIdentifier: String) {
        self.storeIdentifier = storeIdentifier
    }

    package subscript(entity: EntityDescription) -> ObjectIDSpace {
        mutating get {
            if entity.index < spaces.count, let space = spaces[entity.index] { return space }
            if entity.index >= spaces.count { spaces += repeatElement(nil, count: entity.index + 1 - spaces.count) }
            let space = ObjectIDSpace.named(entity: entity.name, store: storeIdentifier)
            spaces[entity.index] = space
            return space
        }
    }
}
