import Synchronization

/// A value guarded by a mutex, shared by reference.
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
///
/// Keep closures in a class or a struct field, not as the value itself: each
/// `withLock` writes the value back, and a bare function value is written back
/// wrapped in one more reabstraction thunk per call.
package final class Locked<Value: ~Copyable>: Sendable where Value: Sendable {
    private let mutex: Mutex<Value>

    package init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    package func withLock<Result: ~Copyable>(
        _ body: (inout sending Value) throws -> sending Result
    ) rethrows -> sending Result {
        try mutex.withLock(body)
    }
}

extension Locked where Value: Copyable {
    package var value: Value { withLock { $0 } }
}
