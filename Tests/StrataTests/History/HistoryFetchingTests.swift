import Foundation
import GRDB
import Strata
import Testing

@Suite("Fetching and pruning persistent history")
struct HistoryFetchingTests {
    /// Three saves, one per author, returning their tokens.
    private func threeSaves(_ container: PersistentContainer) throws -> [HistoryToken] {
        try save(in: container, author: "app") { $0.insert(Book(title: "Dune", year: 1965)) }
        try save(in: container, author: "extension") { $0.insert(Memo(title: "Note")) }
        try save(in: container, author: "app") { $0.insert(Book(title: "Emma", year: 1815)) }
        return try container.fetchHistory(after: nil).map(\.token)
    }

    @Test(arguments: testedStoreKinds)
    func fetchingAfterATokenReturnsOnlyLaterTransactions(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let tokens = try threeSaves(stack.container)
        try #require(tokens.count == 3)
        #expect(try stack.container.fetchHistory(after: tokens[0]).map(\.token) == [tokens[1], tokens[2]])
        #expect(try stack.container.fetchHistory(after: tokens[2]).isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func historyCanBeFilteredByAuthorEntityOriginAndCount(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let tokens = try threeSaves(stack.container)
        var byAuthor = HistoryRequest()
        byAuthor.authors = ["extension"]
        #expect(try stack.container.fetchHistory(byAuthor).map(\.token) == [tokens[1]])

        var byEntity = HistoryRequest(after: tokens[0])
        byEntity.entityNames = ["Book"]
        let books = try stack.container.fetchHistory(byEntity)
        #expect(books.map(\.token) == [tokens[2]])
        #expect(books.flatMap(\.changes).allSatisfy { $0.entityName == "Book" })

        var limited = HistoryRequest()
        limited.fetchLimit = 2
        #expect(try stack.container.fetchHistory(limited).map(\.token) == [tokens[0], tokens[1]])

        var others = HistoryRequest()
        others.excludedOrigin = stack.container.historyOrigin
        #expect(try stack.container.fetchHistory(others).isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func fetchingAfterADateSkipsEarlierTransactions(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        try save(in: stack.container, author: "before") { $0.insert(Memo(title: "Old")) }
        try await Task.sleep(for: .milliseconds(20))
        let cut = Date()
        try await Task.sleep(for: .milliseconds(20))
        try save(in: stack.container, author: "after") { $0.insert(Memo(title: "New")) }
        #expect(try stack.container.fetchHistory(after: cut).map(\.author) == ["after"])
        #expect(try stack.container.deleteHistory(before: cut) == 1)
        #expect(try stack.container.fetchHistory(after: nil).map(\.author) == ["after"])
    }

    @Test(arguments: testedStoreKinds)
    func pruningThenUsingAnOlderTokenThrowsHistoryTokenExpired(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let log = ErrorLog()
        stack.container.logError = log.record
        let tokens = try threeSaves(stack.container)
        try #require(tokens.count == 3)

        #expect(try stack.container.deleteHistory(before: tokens[2]) == 2)
        #expect(try stack.container.fetchHistory(after: nil).map(\.token) == [tokens[2]])
        let error = #expect(throws: StrataError.self) { try stack.container.fetchHistory(after: tokens[0]) }
        #expect(error?.code == .historyTokenExpired)
        #expect(log.errors.withLock { $0 } == [.historyTokenExpired])
        // The newest pruned token still works: nothing after it was deleted.
        #expect(try stack.container.fetchHistory(after: tokens[1]).map(\.token) == [tokens[2]])

        // Numbers are never reused, even once everything is pruned.
        #expect(try stack.container.deleteHistory(before: try #require(try stack.container.currentHistoryToken()).next) == 1)
        #expect(try stack.container.currentHistoryToken() == tokens[2])
        try save(in: stack.container) { $0.insert(Memo(title: "After pruning")) }
        let latest = try #require(try stack.container.fetchHistory(after: tokens[2]).first?.token)
        #expect(latest > tokens[2])
    }

    @Test(arguments: testedStoreKinds)
    func aTokenFromAnotherStoreIsRejectedClearly(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind)
        let other = try await TestStack(history: kind)
        try save(in: other.container) { $0.insert(Memo(title: "Elsewhere")) }
        let foreign = try #require(try other.container.currentHistoryToken())
        let error = #expect(throws: StrataError.self) { try stack.container.fetchHistory(after: foreign) }
        #expect(error?.code == .invalidHistoryToken)
        #expect(throws: StrataError.self) { try stack.container.deleteHistory(before: foreign) }
    }

    @Test
    func tokensRoundTripThroughJSONAndKeepTheirOrder() async throws {
        let stack = try await TestStack(history: .inMemory)
        let tokens = try threeSaves(stack.container)
        let data = try JSONEncoder().encode(tokens)
        let decoded = try JSONDecoder().decode([HistoryToken].self, from: data)
        #expect(decoded == tokens)
        #expect(decoded.sorted() == tokens)
        #expect(try stack.container.fetchHistory(after: decoded[1]).map(\.token) == [tokens[2]])

        let transactions = try stack.container.fetchHistory(after: nil)
        let copy = try JSONDecoder().decode([HistoryTransaction].self, from: JSONEncoder().encode(transactions))
        #expect(copy == transactions)
    }

    @Test
    func pruningByDateKeepsALaterTransactionAnEarlierClockStamped() async throws {
        let stack = try await TestStack(history: .file)
        let tokens = try threeSaves(stack.container)
        try #require(tokens.count == 3)
        // The second was stamped by a clock a day behind (another process's, or
        // one set back): it and the third are recent all the same.
        let url = try #require(stack.container.storeDescriptions.first?.url)
        let queue = try DatabaseQueue(path: url.path)
        try await queue.write { db in
            try db.execute(
                sql: "UPDATE _strata_history_transaction SET timestamp = timestamp - 86400 WHERE id = ?",
                arguments: [tokens[1].transactionNumber])
        }
        try queue.close()

        #expect(try stack.container.deleteHistory(before: Date().addingTimeInterval(-3600)) == 0)
        #expect(try stack.container.fetchHistory(after: nil).map(\.token) == tokens)
        #expect(try stack.container.deleteHistory(before: Date().addingTimeInterval(60)) == 3)
    }
}

extension HistoryToken {
    /// The token just after this one, for pruning everything up to and including it.
    var next: HistoryToken {
        get throws {
            let json = #"{"storeIdentifier":"\#(storeIdentifier)","transactionNumber":\#(transactionNumber + 1)}"#
            return try JSONDecoder().decode(HistoryToken.self, from: Data(json.utf8))
        }
    }
}
