import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO
import StrataCore

extension PostgresSession {
    /// How much longer than `queryTimeout` the store waits before it stops
    /// waiting for the server: time for the server's own cancellation (its
    /// `statement_timeout`) to arrive first, which says the statement was undone.
    static let answerGrace: Duration = .seconds(1)

    /// The answer to a statement sent on this session's connection.
    ///
    /// The server cancels a statement that runs past `queryTimeout` by
    /// itself. A server that says nothing at all (stopped, or cut off by the
    /// network with the connection left open) is given up on `answerGrace`
    /// later: the connection is closed, so the pool opens a new one for the
    /// next caller, and the call fails with `.postgres` instead of waiting
    /// for ever. Without a limit this waits as `EventLoopFuture.wait()` does.
    ///
    /// ```swift
    /// let rows = try session.answer(to: connection.query(query, logger: logger), doing: "reading books").rows
    /// ```
    func answer<Value: Sendable>(to future: EventLoopFuture<Value>, doing: @autoclosure () -> String) throws(StrataError) -> Value {
        guard let queryTimeout else {
            do {
                return try future.wait()
            } catch {
                throw Self.translate(error, doing: doing())
            }
        }
        let answered = ConditionLock(value: false)
        let outcome = NIOLockedValueBox<Result<Value, any Error>?>(nil)
        future.whenComplete { result in
            outcome.withLockedValue { $0 = result }
            answered.lock()
            answered.unlock(withValue: true)
        }
        let patience = queryTimeout + Self.answerGrace
        let seconds = Double(patience.components.seconds) + Double(patience.components.attoseconds) * 1e-18
        guard answered.lock(whenValue: true, timeoutSeconds: seconds) else {
            // Closing fails the statement's future; nothing else waits on this connection.
            _ = try? connection.close().wait()
            throw StrataError(
                .postgres,
                "PostgreSQL gave no answer within \(Self.milliseconds(patience)) ms, \(doing()); the connection was closed. "
                    + "The server rolls back a transaction whose connection closes before its COMMIT arrives; "
                    + "a COMMIT or a one-statement save it had received may still have taken effect")
        }
        answered.unlock()
        do {
            // Set before `answered` became true.
            return try outcome.withLockedValue { $0! }.get()
        } catch {
            throw Self.translate(error, doing: doing())
        }
    }

    /// A duration in whole milliseconds, at least 1.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .max }
        return max(1, product.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue)
    }
}
