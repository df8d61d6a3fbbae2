import Logging

// How a context tells of errors: those it throws go to the container's
// `logError` and, Strata's own, to the log at debug; those no caller can
// receive are warnings. A container running the context's work reports an
// error the context reported already only once.
extension ManagedObjectContext {
    /// The container's logger, with this context's name and author.
    var logger: Logger {
        var logger = coordinator.logger
        if let name { logger[metadataKey: LogMetadata.context] = .string(name) }
        if let transactionAuthor { logger[metadataKey: LogMetadata.author] = .string(transactionAuthor) }
        return logger
    }

    /// Hands an error the context throws, or cannot throw, to the
    /// container's `logError`.
    package func report(_ error: any Error) {
        logger.noteThrown(error)
        logError?(error)
        lastReported = Self.reportKey(error)
    }

    /// Logs an error no caller receives (an accessor, a merge and a
    /// controller's refetch cannot throw) as a warning, and hands it to the
    /// container's `logError`.
    package func reportUnthrown(_ error: any Error) {
        logger.warning(
            "\((error as? StrataError)?.message ?? "\(error)")",
            metadata: (error as? StrataError).map { [LogMetadata.errorCode: .string($0.code.rawValue)] })
        logError?(error)
    }

    /// Whether `error` is the last one this context reported since
    /// ``forgetReported()``: a container running the context's work reports
    /// each error once.
    package func hasReported(_ error: any Error) -> Bool {
        lastReported == Self.reportKey(error)
    }

    /// Starts a unit of work: an error met again in it is reported again.
    package func forgetReported() {
        lastReported = nil
    }

    private static func reportKey(_ error: any Error) -> String {
        "\(type(of: error)) \(error)"
    }
}
