import Foundation
import Strata
import Testing

/// A measurement with a sorted score and label.
@Model final class IndexedSample {
    #Index<IndexedSample>([\.score], [\.label])
    var score: Double?
    var label: String
    var rank: Int

    init(score: Double?, label: String, rank: Int) {
        self.score = score
        self.label = label
        self.rank = rank
    }
}

/// Queries an index can serve (ordered by, or bounding, an indexed
/// attribute) return what a full scan does, in every store, before and
/// after the indexed values change.
@Suite("Queries an index serves")
struct IndexedQueryTests {
    /// `rank` is the insertion order, which is the key order ties fall back on.
    struct Row: Equatable {
        var score: Double?
        var label: String
        var rank: Int
    }

    static func rows(count: Int) -> [Row] {
        (0..<count).map { rank in
            // Repeated scores (ties), some nil, and a few whole numbers among fractions.
            let score: Double? = rank % 11 == 0 ? nil : Double((rank * 37) % 23) / 8
            return Row(score: score, label: ["a", "b", "c"][rank % 3], rank: rank)
        }
    }

    /// Swift's order of the store's sort by score: nil first ascending, ties by rank.
    static func sorted(_ rows: [Row], ascending: Bool) -> [Row] {
        rows.sorted { a, b in
            switch (a.score, b.score) {
            case let (x?, y?) where x != y: return ascending ? x < y : x > y
            case (nil, _?): return ascending
            case (_?, nil): return !ascending
            default: return a.rank < b.rank
            }
        }
    }

    private func fetch(_ request: FetchRequest<IndexedSample>, in context: ManagedObjectContext) throws -> [Row] {
        try context.fetch(request).map { Row(score: $0.score, label: $0.label, rank: $0.rank) }
    }

    private func check(_ rows: [Row], in context: ManagedObjectContext) throws {
        var page = FetchRequest<IndexedSample>(predicate: #Predicate { $0.score ?? 0 >= 1.5 }, sortBy: [SortDescriptor(\.score)])
        page.fetchLimit = 10
        page.fetchOffset = 3
        let atLeast = Self.sorted(rows.filter { ($0.score ?? 0) >= 1.5 }, ascending: true)
        #expect(try fetch(page, in: context) == Array(atLeast.dropFirst(3).prefix(10)))

        var below = FetchRequest<IndexedSample>(
            predicate: #Predicate { $0.score != nil && $0.score! < 1 }, sortBy: [SortDescriptor(\.score, order: .reverse)])
        below.fetchLimit = 7
        let under = Self.sorted(rows.filter { $0.score.map { $0 < 1 } ?? false }, ascending: false)
        #expect(try fetch(below, in: context) == Array(under.prefix(7)))

        var top = FetchRequest<IndexedSample>(sortBy: [SortDescriptor(\.score, order: .reverse)])
        top.fetchLimit = 5
        #expect(try fetch(top, in: context) == Array(Self.sorted(rows, ascending: false).prefix(5)))
        let all = FetchRequest<IndexedSample>(sortBy: [SortDescriptor(\.score)])
        #expect(try fetch(all, in: context) == Self.sorted(rows, ascending: true))

        let between = FetchRequest<IndexedSample>(predicate: #Predicate { $0.label == "b" && $0.rank > 40 })
        #expect(try fetch(between, in: context) == rows.filter { $0.label == "b" && $0.rank > 40 }.sorted { $0.rank < $1.rank })
    }

    @Test(arguments: testedStoreKinds)
    func orderedBoundedAndPagedQueriesReturnWhatAScanDoes(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(IndexedSample.self))
        let context = stack.container.newContext()
        var rows = Self.rows(count: 120)
        let objects = rows.map { IndexedSample(score: $0.score, label: $0.label, rank: $0.rank) }
        for object in objects { context.insert(object) }
        try context.save()
        try check(rows, in: stack.container.newContext())

        // Changed, cleared and deleted scores: the next queries see them.
        for rank in stride(from: 0, to: 120, by: 7) {
            let score: Double? = rank % 2 == 0 ? Double(rank % 5) / 4 : nil
            objects[rank].score = score
            rows[rank].score = score
        }
        for rank in stride(from: 3, to: 120, by: 13) { context.delete(objects[rank]) }
        rows.removeAll { $0.rank >= 3 && ($0.rank - 3) % 13 == 0 }
        try context.save()
        try check(rows, in: stack.container.newContext())
    }
}
