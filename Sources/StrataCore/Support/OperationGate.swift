import Synchronization

/// Counts a store's operations in flight, so that closing the store lets
/// them finish and refuses new ones.
///
/// ```swift
/// try gate.enter()
/// defer { gate.leave() }
/// // … the operation …
/// await gate.drain()   // elsewhere: no new operation starts; returns when the last one left
/// ```
package final class OperationGate: Sendable {
    /// Set once closing began; the bits below count operations in flight.
    private static let closingBit = 1 << (Int.bitWidth - 2)
    private let state = Atomic<Int>(0)

    package init() {}

    /// Lets an operation in, or refuses it with `.storeNotLoaded` once the store is closing.
    package func enter() throws(StrataError) {
        let (_, now) = state.wrappingAdd(1, ordering: .acquiring)
        guard now & Self.closingBit != 0 else { return }
        state.wrappingSubtract(1, ordering: .releasing)
        throw StrataError(.storeNotLoaded, "The store is closing: it finishes the operations in flight and starts no new ones")
    }

    package func leave() {
        state.wrappingSubtract(1, ordering: .releasing)
    }

    /// How many operations are running.
    package var inFlight: Int { state.load(ordering: .acquiring) & ~Self.closingBit }

    /// Refuses new operations and waits until those running have finished,
    /// or until the task is cancelled (then it returns at once).
    package func drain() async {
        state.bitwiseOr(Self.closingBit, ordering: .acquiringAndReleasing)
        while inFlight > 0 {
            do {
                try await Task.sleep(for: .milliseconds(1))
            } catch {
                return
            }
        }
    }
}
