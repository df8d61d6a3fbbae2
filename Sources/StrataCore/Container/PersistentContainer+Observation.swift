import Foundation

extension PersistentContainer {
    /// The results of a request as `Sendable` snapshots, first as they are, then
    /// again after each commit that changes them: a save of any context of this
    /// container, a batch operation, or another process's commit (with remote
    /// change notifications on). Any task can iterate it; consecutive results
    /// are never the same. Each reading runs in a fresh context of its own.
    ///
    /// ```swift
    /// let unread = FetchRequest<Book>(predicate: #Predicate { $0.rating == nil }, sortBy: [SortDescriptor(\.title)])
    /// for try await books in container.snapshots(of: unread) {
    ///     print(books.map(\.title))
    /// }
    /// ```
    ///
    /// A commit that changes nothing the request returns (another entity, a row
    /// that does not match) emits nothing. The sequence ends with an error when
    /// a reading fails, and when the iterating task is cancelled.
    public func snapshots<Model: PersistentModel>(of request: FetchRequest<Model>) -> AsyncThrowingStream<[Snapshot<Model>], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [Snapshot<Model>].self, bufferingPolicy: .bufferingNewest(1))
        // Listening starts before the first reading, so no commit falls between.
        let commits = persistentStoreCoordinator.remoteChanges(includingOwnCommits: true)
        let reader = SnapshotReader(container: self, request: request)
        let task = Task {
            do {
                var last = try reader.read()
                continuation.yield(last)
                for await _ in commits {
                    let current = try reader.read()
                    guard current != last else { continue }
                    last = current
                    continuation.yield(current)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// Reads a request's results as snapshots in a context made for each reading.
private struct SnapshotReader<Model: PersistentModel>: @unchecked Sendable {
    // @unchecked: FetchRequest is not Sendable (its prefetching key paths are not); the request is only read, by one task.
    let container: PersistentContainer
    let request: FetchRequest<Model>

    func read() throws -> [Snapshot<Model>] {
        let context = container.newContext()
        return try context.fetch(request).map(Snapshot.init)
    }
}
