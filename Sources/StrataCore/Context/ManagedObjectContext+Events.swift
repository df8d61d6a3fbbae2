import Foundation

// Change events: what listeners of a context are told, and when.

extension ManagedObjectContext {
    /// Calls `handler` with each of the context's events, in its isolation,
    /// until the returned token is released or cancelled.
    ///
    /// ```swift
    /// let token = context.onEvent { event in
    ///     if case .objectsDidChange(let changes) = event { print(changes.inserted.count) }
    /// }
    /// ```
    public func onEvent(_ handler: @escaping (ContextEvent) -> Void) -> ContextObservation {
        let key = addListener(handler)
        return ContextObservation { [weak self] in self?.eventListeners[key] = nil }
    }

    /// Calls `handler` after each merged change set, until the token is released.
    ///
    /// ```swift
    /// let token = context.onMerge { changes in print(changes.updated.count) }
    /// ```
    public func onMerge(_ handler: @escaping (ChangeSet) -> Void) -> ContextObservation {
        onEvent { event in
            if case .didMerge(let changes) = event { handler(changes) }
        }
    }

    /// The context's events as an asynchronous sequence any task can iterate;
    /// it lists events from the moment it is made until its iteration ends.
    ///
    /// ```swift
    /// let events = context.events
    /// Task { for await event in events { print(event) } }
    /// ```
    public var events: AsyncStream<ContextEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ContextEvent.self)
        let ended = Locked(false)
        continuation.onTermination = { _ in ended.withLock { $0 = true } }
        var key: UUID?
        key = addListener { [weak self] event in
            // The stream may end on any thread; the listener leaves here, in the context's domain.
            if ended.withLock({ $0 }) {
                if let key { self?.eventListeners[key] = nil }
                return
            }
            continuation.yield(event)
        }
        return stream
    }

    /// Tells listeners what changed among the context's objects since the last
    /// call: one ``ContextEvent/objectsDidChange(_:)`` with the inserted,
    /// updated and deleted objects. A save calls it first; the view context
    /// calls it after each turn of the main actor that changed something.
    /// Other contexts call it when their owner wants listeners (such as a
    /// ``FetchedResultsController``) to see unsaved changes.
    ///
    /// ```swift
    /// context.insert(Book(title: "Dune", year: 1965))
    /// context.processPendingChanges()    // controllers over the context update
    /// ```
    public func processPendingChanges() {
        processingScheduled = false
        var changes = pendingObjectChanges
        pendingObjectChanges = ObjectChanges()
        for entry in tracker.takeJournal() {
            switch entry {
            case .inserted(let object), .deletionTakenBack(let object):
                let id = object.objectID
                if changes.deleted.remove(id) == nil { changes.inserted.insert(id) }
            case .insertionRemoved(let object), .deleted(let object):
                let id = object.objectID
                if changes.inserted.remove(id) == nil { changes.deleted.insert(id) }
            default:
                break
            }
        }
        let updated = unprocessedChanges
        unprocessedChanges = [:]
        for (object, ordinals) in updated.values {
            let id = object.objectID
            guard let entity = object.persistentBacking.entity,
                  !changes.inserted.contains(id), !changes.deleted.contains(id) else { continue }
            changes.updated[id, default: []].formUnion(ordinals.elements.map { entity.properties[$0].name })
        }
        guard !changes.isEmpty else { return }
        deliver(.objectsDidChange(changes))
    }

    /// Tells every listener; listeners added meanwhile hear the next event.
    func deliver(_ event: ContextEvent) {
        for listener in Array(eventListeners.values) { listener(event) }
    }

    /// Whether anything listens to the context's events.
    var hasEventListeners: Bool { !eventListeners.isEmpty }

    /// Notes a refresh or a rollback for the next change event.
    func noteInvalidated(_ object: (any PersistentModel)?) {
        guard hasEventListeners else { return }
        if let object {
            pendingObjectChanges.refreshed.insert(object.objectID)
        } else {
            pendingObjectChanges.invalidatedAll = true
        }
        scheduleProcessing()
    }

    /// Asks the context's owner (the view context's main actor) for a prompt
    /// ``processPendingChanges()``, once per batch of changes.
    func scheduleProcessing() {
        guard !processingScheduled, let wakeUp = processingWakeUp else { return }
        processingScheduled = true
        wakeUp()
    }

    /// Lists a property change for the next change event.
    package func recordPropertyChange(of object: any PersistentModel, at ordinal: Int) {
        unprocessedChanges[ObjectIdentifier(object), default: (object, OrdinalSet())].ordinals.insert(ordinal)
        scheduleProcessing()
    }

    private func addListener(_ handler: @escaping (ContextEvent) -> Void) -> UUID {
        let key = UUID()
        eventListeners[key] = handler
        tracker.startJournal()
        return key
    }
}
