@testable import StrataCore
import Synchronization
import Testing

@Suite("Merge inbox")
struct MergeInboxTests {
    /// Every post calls the wake-up; reading it must not wrap it in another
    /// layer each time, or a long-lived context's stack grows with every save.
    @Test func wakingAContextCostsTheSameOnTheMillionthPostAsOnTheFirst() {
        let inbox = MergeInbox(owner: ObjectIdentifier(MergeInboxTests.self))
        let calls = Atomic<Int>(0)
        inbox.setWakeUp { calls.add(1, ordering: .relaxed) }
        let transactions: [HistoryTransaction] = []
        for _ in 0..<1_000_000 {
            inbox.post(transactions)
            _ = inbox.drain()
        }
        #expect(calls.load(ordering: .relaxed) == 1_000_000)
    }
}
