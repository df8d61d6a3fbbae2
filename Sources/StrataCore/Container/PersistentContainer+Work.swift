extension PersistentContainer {
    /// Runs `body` with a fresh private context off the caller's actor and
    /// returns its `Sendable` result. Save inside `body` to keep changes.
    ///
    /// ```swift
    /// let id = try await container.performBackgroundTask { context in
    ///     let book = Book(title: "Dune", year: 1965)
    ///     context.insert(book)
    ///     try context.save()
    ///     return book.objectID
    /// }
    /// ```
    @concurrent
    public func performBackgroundTask<T: Sendable>(
        _ body: @Sendable (ManagedObjectContext) throws -> T
    ) async throws -> T {
        let context = newContext()
        context.name = "backgroundTask"
        do {
            _ = try persistentStoreCoordinator.loadedStore()
            return try body(context)
        } catch {
            if !context.hasReported(error) { report(error) }
            throw error
        }
    }

    /// The synchronous unit of work: runs `body` with a fresh context, saves it
    /// when `body` returns with changes, then resets it when
    /// ``cleanUpAfterExecution`` is on, so no managed object outlives the call.
    ///
    /// ```swift
    /// try container.perform { context in
    ///     context.insert(Book(title: "Dune", year: 1965))
    /// }
    /// ```
    public func perform<T>(_ body: (ManagedObjectContext) throws -> T) throws -> T {
        let context = newContext()
        context.name = "perform"
        do {
            _ = try persistentStoreCoordinator.loadedStore()
            defer { if cleanUpAfterExecution { context.reset() } }
            let result = try body(context)
            if context.hasChanges { try context.save() }
            return result
        } catch {
            if !context.hasReported(error) { report(error) }
            throw error
        }
    }

    /// A long-lived context owned by an actor; run work with `perform`.
    ///
    /// Configure it here, as Core Data code does right after creating one;
    /// inside `perform` the context's properties can change at any time.
    ///
    /// ```swift
    /// let importer = container.newBackgroundContext(
    ///     name: "importer", transactionAuthor: "sync", mergePolicy: .mergeByPropertyObjectTrump)
    /// try await importer.perform { context in
    ///     context.insert(Book(title: "Dune", year: 1965))
    ///     try context.save()
    /// }
    /// ```
    /// - Parameters:
    ///   - name: the context's ``ManagedObjectContext/name``, for logs and history.
    ///   - transactionAuthor: recorded as the author of its saves in history.
    ///   - mergePolicy: how its saves settle conflicts (default `.error`).
    ///   - automaticallyMergesChangesFromParent: merge other contexts' saves
    ///     promptly on the context's actor.
    public func newBackgroundContext(
        name: String? = "background", transactionAuthor: String? = nil, mergePolicy: MergePolicy = .error,
        automaticallyMergesChangesFromParent: Bool = false
    ) -> BackgroundContext {
        let context = newContext()
        context.name = name
        context.transactionAuthor = transactionAuthor
        context.mergePolicy = mergePolicy
        return BackgroundContext(container: self, context: context, merges: automaticallyMergesChangesFromParent)
    }
}

/// A context confined to its own actor. Every use goes through ``perform(_:)``.
///
/// ```swift
/// let background = container.newBackgroundContext()
/// let count = try await background.perform { context in
///     try context.count(for: FetchRequest<Book>())
/// }
/// ```
public actor BackgroundContext {
    private let context: ManagedObjectContext
    private let container: PersistentContainer

    init(container: PersistentContainer, context: ManagedObjectContext, merges: Bool) {
        let inbox = context.inbox
        context.automaticallyMergesChangesFromParent = merges
        self.container = container
        self.context = context
        if merges { inbox.setWakeUp(Self.wakeUp(self)) }
    }

    /// Schedules a merge on the actor after each post to its inbox.
    private static func wakeUp(_ background: BackgroundContext) -> @Sendable () -> Void {
        { [weak background] in Task { await background?.mergePendingChanges() } }
    }

    /// Runs `body` on this actor with the context and returns its result. Errors
    /// are reported to the container's `logError` and rethrown.
    public func perform<T: Sendable>(_ body: @Sendable (ManagedObjectContext) throws -> T) throws -> T {
        do {
            context.forgetReported()
            _ = try container.persistentStoreCoordinator.loadedStore()
            context.mergePendingChanges()
            return try body(context)
        } catch {
            if !context.hasReported(error) { container.report(error) }
            throw error
        }
    }

    /// Turns automatic merging of other contexts' saves on or off; when on,
    /// merges run promptly on this actor.
    public func setAutomaticallyMergesChangesFromParent(_ merges: Bool) {
        context.automaticallyMergesChangesFromParent = merges
        context.inbox.setWakeUp(merges ? Self.wakeUp(self) : nil)
    }

    /// Merges change sets waiting for this context.
    public func mergePendingChanges() {
        context.mergePendingChanges()
    }
}
