import Foundation
import Observation

/// The results of a fetch request, kept current as the context changes, in
/// sections when asked: Core Data's `NSFetchedResultsController`.
///
/// After ``performFetch()`` the controller follows its context's events: its
/// own unsaved inserts, changes and deletions (as
/// ``ManagedObjectContext/processPendingChanges()`` tells them), its saves, and
/// the merges of other contexts' saves, batch operations and other processes'
/// commits. Each change that moves the results reports one ``FetchedResultsChange``.
/// The controller is `Observable`: a SwiftUI view that reads ``fetchedObjects``
/// or ``sections`` updates with it.
///
/// ```swift
/// let controller = FetchedResultsController(
///     fetchRequest: FetchRequest<Book>(sortBy: [SortDescriptor(\.year), SortDescriptor(\.title)]),
///     context: container.viewContext, sectionBy: \.year)
/// try controller.performFetch()
/// controller.onChange = { change in
///     tableView.apply(change.difference, reloading: change.updatedObjectIDs)
/// }
/// ```
///
/// Objects move only when a change can move them: an update of properties the
/// request does not sort by keeps the object in place (it is reported in
/// ``FetchedResultsChange/updatedObjectIDs``) unless it stops matching the
/// predicate. A request with a limit or an offset is fetched again after each
/// change, since an object entering or leaving the page moves others in or out.
public final class FetchedResultsController<Model: PersistentModel>: Observable {
    /// What the controller fetches; its predicate, order, limit and offset apply.
    public let fetchRequest: FetchRequest<Model>
    /// The context whose objects the controller holds.
    public let context: ManagedObjectContext
    /// Called after each change of the results, in the context's isolation.
    public var onChange: ((FetchedResultsChange) -> Void)?

    private let sectionName: ((Model) -> String)?
    private let registrar = ObservationRegistrar()
    private var objects: [Model] = []
    /// The identities of `objects`, in order, and as a set: kept beside them so
    /// that finding an object takes no generic code or hashing of IDs.
    private var identities: [ObjectIdentifier] = []
    private var members = Set<ObjectIdentifier>()
    /// The IDs of `objects` as last reported (an object's ID changes when it is saved).
    private var reportedIDs: [ObjectID] = []
    private var cachedSections: [FetchedResultsSection<Model>]?
    private var listener: ContextObservation?
    private var sortKeys: [SortKey] = []
    /// The names of the properties the order reads; nil when it reads through
    /// relationships or transforms, so that any update may move an object.
    private var sortedPropertyNames: Set<String>?
    private let entityName: String

    /// A controller of a request's results in one list.
    public init(fetchRequest: FetchRequest<Model>, context: ManagedObjectContext) {
        self.fetchRequest = fetchRequest
        self.context = context
        self.sectionName = nil
        self.entityName = Model.entityName
    }

    /// A controller of a request's results in sections: consecutive results with
    /// the same value at `sectionBy` form a section named by that value. Sort
    /// by that key path first, as Core Data asks, so each value makes one section.
    public init<Key: CustomStringConvertible>(
        fetchRequest: FetchRequest<Model>, context: ManagedObjectContext, sectionBy: KeyPath<Model, Key>
    ) {
        self.fetchRequest = fetchRequest
        self.context = context
        self.sectionName = { $0[keyPath: sectionBy].description }
        self.entityName = Model.entityName
    }

    /// Sections by an optional value; objects without one form a section named "".
    public init<Key: CustomStringConvertible>(
        fetchRequest: FetchRequest<Model>, context: ManagedObjectContext, sectionBy: KeyPath<Model, Key?>
    ) {
        self.fetchRequest = fetchRequest
        self.context = context
        self.sectionName = { $0[keyPath: sectionBy]?.description ?? "" }
        self.entityName = Model.entityName
    }

    /// The results, in the request's order.
    public var fetchedObjects: [Model] {
        registrar.access(self, keyPath: \.fetchedObjects)
        return objects
    }

    /// The results in sections (one unnamed section without `sectionBy`).
    public var sections: [FetchedResultsSection<Model>] {
        registrar.access(self, keyPath: \.sections)
        if let cachedSections { return cachedSections }
        let made = makeSections()
        cachedSections = made
        return made
    }

    /// Fetches the results and starts following the context's changes.
    public func performFetch() throws {
        let compiler = try PredicateCompiler(schema: context.schema, entity: context.schema.entity(for: Model.self))
        sortKeys = try compiler.sortKeys(fetchRequest.sortBy)
        let entity = try context.schema.entity(for: Model.self)
        let names = sortKeys.map { key in entity.ordinal(for: key.keyPath).map { entity.properties[$0].name } }
        sortedPropertyNames = names.contains(nil) ? nil : Set(names.compactMap { $0 })
        let fetched = try context.fetch(fetchRequest)
        replace(with: fetched)
        if listener == nil {
            listener = context.onEvent { [weak self] event in self?.handle(event) }
        }
    }

    // MARK: - Following the context

    private func handle(_ event: ContextEvent) {
        switch event {
        case .objectsDidChange(let changes):
            if changes.invalidatedAll {
                // Any object may have changed: each one that stays is reported updated.
                refetch(updating: nil)
                return
            }
            var candidates: [ObjectID: Set<String>?] = [:]
            for id in changes.inserted { candidates[id] = .some(nil) }
            for id in changes.refreshed { candidates[id] = .some(nil) }
            for (id, names) in changes.updated where candidates[id] == nil { candidates[id] = names }
            update(candidates: candidates, deleted: changes.deleted)
        case .didMerge(let merged):
            var candidates: [ObjectID: Set<String>?] = [:]
            for row in merged.inserted where row.entityName == entityName { candidates[row.objectID] = .some(nil) }
            for row in merged.updated where row.entityName == entityName { candidates[row.objectID] = Set(row.propertyNames) }
            // Members that joined or left (a batch delete of the other side, say)
            // can change whether an object matches a predicate on the relationship.
            for change in merged.toManyChanges where change.objectID.entityName == entityName {
                switch candidates[change.objectID] {
                case nil: candidates[change.objectID] = [change.relationshipName]
                case .some(.some(let names)): candidates[change.objectID] = names.union([change.relationshipName])
                case .some(.none): break
                }
            }
            let deleted = Set(merged.deleted.lazy.filter { $0.entityName == self.entityName }.map(\.objectID))
            update(candidates: candidates, deleted: deleted)
        case .didSave(let saved):
            // Saved objects keep their places; only new objects' IDs changed,
            // and the next change names them by their permanent IDs.
            guard saved.inserted.contains(where: { $0.entityName == entityName }) else { return }
            for (offset, object) in objects.enumerated() where reportedIDs[offset].isTemporary {
                reportedIDs[offset] = object.objectID
            }
        }
    }

    /// Applies changed objects (with the names of the properties that changed,
    /// nil when unknown) and deleted ones to the results, touching only the
    /// places that change.
    private func update(candidates: [ObjectID: Set<String>?], deleted: Set<ObjectID>) {
        guard !candidates.isEmpty || !deleted.isEmpty else { return }
        if fetchRequest.fetchLimit != nil || fetchRequest.fetchOffset > 0 {
            refetch(updating: Set(candidates.keys))
            return
        }
        var leaving = Set<Int>()          // old offsets
        var toPlace: [Model] = []
        var updatedInPlace = Set<ObjectID>()
        // Listed objects whose sort values may have changed, with their offsets.
        var movable: [(object: Model, offset: Int)] = []
        if !deleted.isEmpty {
            // Deleted objects in the results are deleted here or gone with a merge.
            for (offset, object) in objects.enumerated() where !Self.isLive(object) { leaving.insert(offset) }
        }
        for (id, names) in candidates {
            guard let object = resolve(id) else { continue }
            let identity = ObjectIdentifier(object)
            let offset = members.contains(identity) ? identities.firstIndex(of: identity) : nil
            let listed = offset.map { !leaving.contains($0) } ?? false
            let matches = Self.isLive(object)
                && ((try? fetchRequest.predicate.map { try PredicateEvaluation.evaluate($0, for: object) } ?? true) ?? false)
            if listed, let offset, !matches {
                leaving.insert(offset)
            } else if !listed && matches && offset == nil {
                toPlace.append(object)
            } else if listed, let offset {
                let sortValuesChanged = names.map { changed in sortedPropertyNames.map { !changed.isDisjoint(with: $0) } ?? true } ?? true
                if sortValuesChanged {
                    movable.append((object, offset))
                } else {
                    updatedInPlace.insert(object.objectID)
                }
            }
        }
        // One moved object is checked against its neighbours that stay. Several
        // may be each other's neighbours, so they all leave and are placed again
        // among objects whose order did not change.
        if movable.count == 1, isInPlace(movable[0].object, at: movable[0].offset, skipping: leaving) {
            updatedInPlace.insert(movable[0].object.objectID)
        } else {
            for (object, offset) in movable {
                leaving.insert(offset)
                toPlace.append(object)
            }
        }
        guard !leaving.isEmpty || !toPlace.isEmpty else {
            if !updatedInPlace.isEmpty {
                if sectionName != nil {
                    // An object in place may still have changed the value its section is named by.
                    registrar.willSet(self, keyPath: \.sections)
                    cachedSections = nil
                    registrar.didSet(self, keyPath: \.sections)
                }
                report(FetchedResultsChange(difference: CollectionDifference([])!, updatedObjectIDs: updatedInPlace))
            }
            return
        }
        let leavingOffsets = leaving.sorted()
        var changes: [CollectionDifference<ObjectID>.Change] = leavingOffsets.map { offset in
            .remove(offset: offset, element: reportedIDs[offset], associatedWith: nil)
        }
        registrar.willSet(self, keyPath: \.fetchedObjects)
        registrar.willSet(self, keyPath: \.sections)
        for offset in leavingOffsets.reversed() {
            members.remove(identities[offset])
            objects.remove(at: offset)
            identities.remove(at: offset)
            reportedIDs.remove(at: offset)
        }
        for object in toPlace {
            let offset = insertionIndex(of: object, in: objects)
            objects.insert(object, at: offset)
            identities.insert(ObjectIdentifier(object), at: offset)
            reportedIDs.insert(object.objectID, at: offset)
            members.insert(ObjectIdentifier(object))
        }
        // Insertions name offsets in the final list.
        let placed = Set(toPlace.map { ObjectIdentifier($0) })
        if placed.count * 8 < identities.count {
            for identity in placed {
                let offset = identities.firstIndex(of: identity)!
                changes.append(.insert(offset: offset, element: reportedIDs[offset], associatedWith: nil))
            }
        } else {
            for (offset, identity) in identities.enumerated() where placed.contains(identity) {
                changes.append(.insert(offset: offset, element: reportedIDs[offset], associatedWith: nil))
            }
        }
        cachedSections = nil
        registrar.didSet(self, keyPath: \.fetchedObjects)
        registrar.didSet(self, keyPath: \.sections)
        let inserted = Set(toPlace.map { $0.objectID })
        report(FetchedResultsChange(
            difference: CollectionDifference(changes) ?? CollectionDifference([])!,
            updatedObjectIDs: updatedInPlace.subtracting(inserted)))
    }

    /// Whether an object is still where the order puts it among its nearest
    /// neighbours that stay (those at `leaving` offsets go).
    private func isInPlace(_ object: Model, at index: Int, skipping leaving: Set<Int>) -> Bool {
        var before = index - 1
        while before >= 0, leaving.contains(before) { before -= 1 }
        if before >= 0, !precedes(objects[before], object) { return false }
        var after = index + 1
        while after < objects.count, leaving.contains(after) { after += 1 }
        if after < objects.count, !precedes(object, objects[after]) { return false }
        return true
    }

    /// The index where the order puts `object` in a sorted list.
    private func insertionIndex(of object: Model, in list: [Model]) -> Int {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(list[middle], object) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The request's order, ties broken as stores break them (saved objects by
    /// key, then unsaved ones in insertion order).
    private func precedes(_ lhs: Model, _ rhs: Model) -> Bool {
        switch sortKeys.compare(lhs, rhs) {
        case .orderedAscending: true
        case .orderedDescending: false
        case .orderedSame: ManagedObjectContext.keyOrder(lhs.objectID.key, rhs.objectID.key)
        }
    }

    private func resolve(_ id: ObjectID) -> Model? {
        if let registered = context.registeredObject(for: id) { return registered as? Model }
        guard id.entityName == entityName, !id.isTemporary else { return nil }
        return try? context.existingObject(with: id, as: Model.self)
    }

    private static func isLive(_ object: Model) -> Bool {
        let state = object.persistentBacking.state
        return state == .registered || state == .inserted
    }

    /// Fetches again; objects that keep their place and are among `changed`
    /// (every one, when nil) are reported updated.
    private func refetch(updating changed: Set<ObjectID>?) {
        do {
            apply(try context.fetch(fetchRequest), updating: changed)
        } catch {
            context.reportUnthrown(error)
        }
    }

    // MARK: - Reporting

    /// Replaces the results without reporting a change (a first fetch).
    private func replace(with fetched: [Model]) {
        registrar.willSet(self, keyPath: \.fetchedObjects)
        registrar.willSet(self, keyPath: \.sections)
        objects = fetched
        identities = fetched.map { ObjectIdentifier($0) }
        members = Set(identities)
        reportedIDs = fetched.map { $0.objectID }
        cachedSections = nil
        registrar.didSet(self, keyPath: \.fetchedObjects)
        registrar.didSet(self, keyPath: \.sections)
    }

    /// Takes results fetched again and reports how they differ from the last ones.
    private func apply(_ new: [Model], updating changed: Set<ObjectID>?) {
        let newIdentities = new.map { ObjectIdentifier($0) }
        let stays = Set(unchangedOrder(from: identities, to: newIdentities))
        let updated = Set(new.lazy.filter { object in
            stays.contains(ObjectIdentifier(object)) && (changed?.contains(object.objectID) ?? true)
        }.map(\.objectID))
        var changes: [CollectionDifference<ObjectID>.Change] = []
        for (offset, identity) in identities.enumerated() where !stays.contains(identity) {
            changes.append(.remove(offset: offset, element: reportedIDs[offset], associatedWith: nil))
        }
        for (offset, identity) in newIdentities.enumerated() where !stays.contains(identity) {
            changes.append(.insert(offset: offset, element: new[offset].objectID, associatedWith: nil))
        }
        guard !changes.isEmpty || !updated.isEmpty else { return }
        replace(with: new)
        report(FetchedResultsChange(difference: CollectionDifference(changes) ?? CollectionDifference([])!, updatedObjectIDs: updated))
    }

    private func report(_ change: FetchedResultsChange) {
        onChange?(change)
    }

    private func makeSections() -> [FetchedResultsSection<Model>] {
        guard let sectionName else { return objects.isEmpty ? [] : [FetchedResultsSection(name: "", objects: objects)] }
        var sections: [FetchedResultsSection<Model>] = []
        for object in objects {
            let name = sectionName(object)
            if sections.last?.name == name {
                sections[sections.count - 1].objects.append(object)
            } else {
                sections.append(FetchedResultsSection(name: name, objects: [object]))
            }
        }
        return sections
    }
}

/// One section of a ``FetchedResultsController``'s results.
///
/// ```swift
/// for section in controller.sections { print(section.name, section.objects.count) }
/// ```
public struct FetchedResultsSection<Model: PersistentModel> {
    /// The section's value of the controller's `sectionBy` key path, as text.
    public let name: String
    /// The section's objects, in the request's order.
    public internal(set) var objects: [Model]
}

/// How a ``FetchedResultsController``'s results changed: the removals and
/// insertions that turn the old list of IDs into the new one (an object that
/// moved is removed and inserted; `inferringMoves()` pairs them), and the
/// objects that stayed in place with changed values.
///
/// ```swift
/// controller.onChange = { change in
///     for case .insert(let offset, let id, _) in change.difference { print("new at", offset, id) }
///     print(change.updatedObjectIDs.count, "changed in place")
/// }
/// ```
public struct FetchedResultsChange: Sendable {
    /// From the previous ``FetchedResultsController/fetchedObjects`` IDs to the current ones.
    public let difference: CollectionDifference<ObjectID>
    /// Objects still in the results, in place, whose values changed.
    public let updatedObjectIDs: Set<ObjectID>
}

/// The objects found in both lists that keep their relative order (a longest
/// such run); the others moved, left or came.
func unchangedOrder(from old: [ObjectIdentifier], to new: [ObjectIdentifier]) -> [ObjectIdentifier] {
    var newOffset: [ObjectIdentifier: Int] = [:]
    newOffset.reserveCapacity(new.count)
    for (offset, identity) in new.enumerated() { newOffset[identity] = offset }
    let common = old.filter { newOffset[$0] != nil }
    return longestIncreasingRun(common.map { newOffset[$0]! }).map { common[$0] }
}

/// The indices of a longest strictly increasing subsequence of `values`
/// (patience sorting, O(n log n)).
func longestIncreasingRun(_ values: [Int]) -> [Int] {
    var tails: [Int] = []          // index in `values` of the smallest tail of each length
    var previous = [Int](repeating: -1, count: values.count)
    for (index, value) in values.enumerated() {
        var low = 0, high = tails.count
        while low < high {
            let middle = (low + high) / 2
            if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
        }
        if low > 0 { previous[index] = tails[low - 1] }
        if low == tails.count { tails.append(index) } else { tails[low] = index }
    }
    var run: [Int] = []
    var cursor = tails.last ?? -1
    while cursor >= 0 {
        run.append(cursor)
        cursor = previous[cursor]
    }
    return run.reversed()
}
