import Strata
import Testing

extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// The first element that `matches`, or nil when none comes within
    /// `timeout`: awaits the sequence itself (a context's `events`, a
    /// container's `remoteChanges`), with the clock only as the bound.
    ///
    /// ```swift
    /// let events = container.viewContext.events     // listen before the change
    /// try background.save()
    /// let merged = try await events.first(within: .seconds(5)) { $0.isMerge }
    /// ```
    public func first(
        within timeout: Duration, where matches: @escaping @Sendable (Element) -> Bool = { _ in true }
    ) async throws -> Element? {
        try await withThrowingTaskGroup(of: Element?.self) { group in
            group.addTask {
                for try await element in self where matches(element) { return element }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

extension ContextEvent {
    /// Whether the event is a merge of changes from elsewhere.
    public var isMerge: Bool {
        if case .didMerge = self { true } else { false }
    }

    /// The merged change set, for a merge.
    public var mergedChanges: ChangeSet? {
        if case .didMerge(let changes) = self { changes } else { nil }
    }
}

/// Records a test issue for each problem `ManagedObjectContext.objectGraphProblems()`
/// finds: identity map entries, inverse relationships and change lists that
/// disagree.
///
/// ```swift
/// try context.save()
/// expectValidObjectGraph(context)
/// ```
public func expectValidObjectGraph(_ context: ManagedObjectContext, sourceLocation: SourceLocation = #_sourceLocation) {
    for problem in context.objectGraphProblems() {
        Issue.record("Object graph: \(problem)", sourceLocation: sourceLocation)
    }
}

/// Waits on the main actor until `condition` holds, up to `timeout`, checking
/// every 2 ms: for conditions no event announces. Prefer awaiting an event
/// with ``_Concurrency/AsyncSequence/first(within:where:)`` where one does.
@MainActor
public func eventually(timeout: Duration = .seconds(5), _ condition: () throws -> Bool) async rethrows -> Bool {
    let start = ContinuousClock.now
    while ContinuousClock.now - start < timeout {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return try condition()
}
