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

    /// History a context could not merge (the store unreachable) waits, ahead
    /// of what arrived after it, and putting it back wakes nobody.
    @Test func itemsPutBackComeFirstInTheNextDrainWithoutAWakeUp() {
        let inbox = MergeInbox(owner: ObjectIdentifier(MergeInboxTests.self))
        let calls = Atomic<Int>(0)
        inbox.setWakeUp { calls.add(1, ordering: .relaxed) }
        inbox.post([HistoryTransaction]())
        inbox.postMissedHistory()
        let drained = inbox.drain()
        inbox.post(ChangeSet(storeIdentifier: "later"))
        inbox.putBack(drained[...])
        #expect(calls.load(ordering: .relaxed) == 3)
        let next = inbox.drain()
        #expect(next.count == 3)
        if case .history = next[0], case .missedHistory = next[1], case .changes(let changes) = next[2] {
            #expect(changes.storeIdentifier == "later")
        } else {
            Issue.record("the put-back items come first, in order: \(next)")
        }
    }
}
