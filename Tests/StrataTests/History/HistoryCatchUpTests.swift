import Foundation
import Strata
@testable import StrataCore
import Testing

@Suite("Catching up with other writers' history")
struct HistoryCatchUpTests {
    /// Five saves of one container; the tokens of its history.
    private func fiveSaves(_ container: PersistentContainer) throws -> [HistoryToken] {
        for year in 1...5 {
            try save(in: container, author: "writer \(year)") { $0.insert(Book(title: "Book \(year)", year: year)) }
        }
        return try container.fetchHistory(after: nil).map(\.token)
    }

    @Test(arguments: testedStoreKinds)
    func aCatchUpReadsHistoryAPageAtATimeAndReportsEveryTransactionOnce(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let tokens = try fiveSaves(stack.container)
        try #require(tokens.count == 5)
        let store = try stack.container.persistentStoreCoordinator.loadedStore()
        var positions: [HistoryToken] = []
        var events: [RemoteChange] = []
        try RemoteChange.catchUp(
            from: store, after: tokens[0], skippingOrigin: UUID(), pageSize: 2,
            advance: { positions.append($0); return true }, report: { events.append($0) })
        // Four transactions after the first, two to a page.
        #expect(events.map(\.transactions.count) == [2, 2])
        #expect(events.flatMap(\.transactions).map(\.token) == Array(tokens[1...]))
        #expect(events.flatMap(\.transactions).map(\.author) == ["writer 2", "writer 3", "writer 4", "writer 5"])
        #expect(events.map(\.historyToken) == [tokens[2], tokens[4]])
        #expect(events.allSatisfy { $0.origin == .otherWriter })
        #expect(positions == [tokens[2], tokens[4]])
    }

    @Test(arguments: testedStoreKinds)
    func aCatchUpMovesPastTheWatchersOwnTransactionsWithoutReportingThem(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let tokens = try fiveSaves(stack.container)
        let origin = try #require(stack.container.historyOrigin)
        let store = try stack.container.persistentStoreCoordinator.loadedStore()
        var positions: [HistoryToken] = []
        var events: [RemoteChange] = []
        try RemoteChange.catchUp(
            from: store, after: nil, skippingOrigin: origin, pageSize: 3,
            advance: { positions.append($0); return true }, report: { events.append($0) })
        #expect(events.isEmpty)
        #expect(positions == [tokens[2], tokens[4]])
    }

    @Test(arguments: testedStoreKinds)
    func aCatchUpEndsUnreportedWhenWatchingStopsBetweenPages(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let tokens = try fiveSaves(stack.container)
        let store = try stack.container.persistentStoreCoordinator.loadedStore()
        var positions: [HistoryToken] = []
        var events: [RemoteChange] = []
        try RemoteChange.catchUp(
            from: store, after: nil, skippingOrigin: UUID(), pageSize: 2,
            advance: { token in
                positions.append(token)
                // Watching stops while the second page is read.
                return positions.count < 2
            }, report: { events.append($0) })
        #expect(positions == [tokens[1], tokens[3]])
        #expect(events.map(\.transactions.count) == [2], "the page read after the stop is not reported")
    }

    @Test(arguments: testedStoreKinds)
    func aCatchUpWithNothingNewReportsNothingAndStaysPut(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let tokens = try fiveSaves(stack.container)
        let store = try stack.container.persistentStoreCoordinator.loadedStore()
        var moved = false
        var reported = false
        try RemoteChange.catchUp(
            from: store, after: tokens[4], skippingOrigin: UUID(), pageSize: 2,
            advance: { _ in moved = true; return true }, report: { _ in reported = true })
        #expect(!moved)
        #expect(!reported)
    }
}
