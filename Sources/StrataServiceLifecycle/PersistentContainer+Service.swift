import ServiceLifecycle
import StrataCore

/// A container is a swift-service-lifecycle `Service`: put it in the server's
/// `ServiceGroup`, before the services that use it, and the group loads its
/// store when it starts and closes it gracefully when it stops.
///
/// ```swift
/// let container = try PersistentContainer(name: "Library", schema: Schema(Author.self, Book.self), logger: logger)
/// let app = Application(router: router)
/// // Services shut down in reverse order: the app stops taking requests first,
/// // then the container finishes the saves in flight and closes its store.
/// let group = ServiceGroup(services: [container, app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
extension PersistentContainer: Service {
    /// Loads the store unless it is loaded, runs until the group shuts down
    /// gracefully (or is cancelled), then `close()`s: listeners stop,
    /// operations in flight finish, connections close.
    public func run() async throws {
        if !isLoaded { try await loadPersistentStores() }
        logger.info("Store loaded; closing it at shutdown")
        // Returns at a graceful shutdown; throws when the task is cancelled, which closes at once.
        try? await gracefulShutdown()
        try await close()
        logger.info("Store closed")
    }
}
