import Foundation
import Metrics

/// The load lifecycle of a container.
enum LoadState: Sendable {
    case notLoaded
    case loading(waiters: [CheckedContinuation<Void, any Error>])
    case loaded
    case failed(StrataError)
}

extension PersistentContainer {
    /// Opens the store described by ``storeDescriptions`` (creating it if needed).
    ///
    /// Loading again after success does nothing. A container has one store; extra
    /// descriptions are reported as errors. Throws `.corruptStore` for a file that
    /// is not SQLite and `.incompatibleStore` for a store with another schema;
    /// the file is left untouched in both cases.
    ///
    /// The opening runs on a thread of its own, not on Swift's cooperative
    /// threads: a store that waits for a server, or migrates a large store
    /// first, leaves them free for the rest of the app meanwhile.
    public func loadPersistentStores() async throws {
        let descriptions = storeDescriptions
        // Read here: a factory this task binds does not reach the loading thread.
        let metricsFactory = MetricsSystem.factory
        let results = await withCheckedContinuation { (continuation: CheckedContinuation<[(any Error)?], Never>) in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: self.loadAll(descriptions, metricsFactory: metricsFactory).map(\.1))
            }
        }
        if let failure = results.compactMap({ $0 }).first { throw failure }
    }

    /// Opens the stores and calls `completionHandler` once per store description.
    public func loadPersistentStores(
        completionHandler: @escaping @Sendable (StoreDescription, (any Error)?) -> Void
    ) {
        for (description, error) in loadAll(storeDescriptions, metricsFactory: MetricsSystem.factory) {
            completionHandler(description, error)
        }
    }

    /// Waits until the store is loaded (for code that starts before loading
    /// finishes); throws the load error if loading failed.
    public func waitUntilLoaded() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let resume: Result<Void, StrataError>? = loading.withLock { state in
                switch state {
                case .loaded: return .success(())
                case .failed(let error): return .failure(error)
                case .notLoaded: state = .loading(waiters: [continuation]); return nil
                case .loading(let waiters): state = .loading(waiters: waiters + [continuation]); return nil
                }
            }
            if let resume { continuation.resume(with: resume) }
        }
    }

    /// Whether the store is loaded.
    public var isLoaded: Bool { persistentStoreCoordinator.isLoaded }

    private func loadAll(
        _ descriptions: [StoreDescription], metricsFactory: any MetricsFactory
    ) -> [(StoreDescription, (any Error)?)] {
        guard let first = descriptions.first else {
            let error = StrataError(.storeNotLoaded, "The container has no store description to load")
            report(error)
            return []
        }
        var results: [(StoreDescription, (any Error)?)] = [(first, load(first, metricsFactory: metricsFactory))]
        for extra in descriptions.dropFirst() {
            let error = StrataError(
                .storeNotLoaded, "A container loads one store; the \(extra) was not loaded")
            report(error)
            results.append((extra, error))
        }
        return results
    }

    /// Loads one store, or returns why it could not.
    private func load(_ description: StoreDescription, metricsFactory: any MetricsFactory) -> StrataError? {
        if persistentStoreCoordinator.isLoaded { return nil }
        do {
            let store = try description.type.opener.open(schema, description, StoreOpening(
                migration: { stored, version in try self.migrationSteps(from: stored, version: version, description: description) },
                migrationProgress: migrationProgress, logger: logger, metricsFactory: metricsFactory))
            persistentStoreCoordinator.attach(store)
            finishLoading(.success(()))
            logger.debug("Loaded \(description)")
            return nil
        } catch {
            report(error)
            // A failed load may be retried (for example after fixing the file);
            // waiters learn of this failure.
            finishLoading(.failure(error))
            return error
        }
    }

    private func finishLoading(_ result: Result<Void, StrataError>) {
        let waiters: [CheckedContinuation<Void, any Error>] = loading.withLock { state in
            var waiters: [CheckedContinuation<Void, any Error>] = []
            if case .loading(let pending) = state { waiters = pending }
            switch result {
            case .success: state = .loaded
            case .failure(let error): state = .failed(error)
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
    }
}
