import Logging

/// The metadata keys Strata adds to the app's `Logger`, so a log line says
/// which container, store, context and author it came from.
///
/// ```swift
/// let container = try PersistentContainer(name: "Library", schema: schema, logger: Logger(label: "app"))
/// // Lines from it carry strata.container=Library, and strata.store=Library.sqlite once loaded.
/// ```
package enum LogMetadata {
    package static let container = "strata.container"
    package static let store = "strata.store"
    package static let context = "strata.context"
    package static let author = "strata.author"
    package static let errorCode = "strata.error"
}

extension Logger {
    /// This logger with one more metadata value.
    package func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy[metadataKey: key] = .string(value)
        return copy
    }

    /// Notes an error Strata is about to throw. The caller decides whether to
    /// report it; a library that logged what it throws would show each error
    /// twice or three times. Only Strata's own errors are noted, at `.debug`:
    /// an app's error passing through a closure is the app's to log.
    package func noteThrown(_ error: any Error) {
        guard logLevel <= .debug, let error = error as? StrataError else { return }
        debug("\(error.message)", metadata: [LogMetadata.errorCode: .string(error.code.rawValue)])
    }
}
