import Foundation
import Strata
import Testing

enum Stage: Int, Codable, Comparable, CaseIterable {
    // Declared out of raw-value order: sorting follows the raw value.
    case done = 3, todo = 1, doing = 2
    static func < (lhs: Stage, rhs: Stage) -> Bool { lhs.rawValue < rhs.rawValue }
}

enum Section: String, Codable, Comparable {
    case poetry, essays, fiction
    static func < (lhs: Section, rhs: Section) -> Bool { lhs.rawValue < rhs.rawValue }
}

struct Edition: Codable, Comparable, Hashable {
    var number: Int
    static func < (lhs: Edition, rhs: Edition) -> Bool { lhs.number < rhs.number }
}

@Model final class Ticket {
    var name: String
    var stage: Stage
    var shelf: Section?
    var price: Decimal
    var edition: Edition
    init(_ name: String, stage: Stage, shelf: Section?, price: Decimal) {
        self.name = name
        self.stage = stage
        self.shelf = shelf
        self.price = price
        self.edition = Edition(number: 1)
    }
}

private let ticketSchema = Schema(Ticket.self)
private let prices = ["10", "9.5", "-2", "-10.25", "0.001", "100000000000000000000.5", "0", "-0.5", "1e3"]

@Suite("Sorting by enums and decimals")
struct SortOrderTests {
    private func insertTickets(_ context: ManagedObjectContext) {
        let stages: [Stage] = [.done, .todo, .doing]
        let sections: [Section?] = [.poetry, nil, .essays, .fiction]
        for (index, price) in prices.enumerated() {
            context.insert(Ticket(
                "t\(index)", stage: stages[index % 3], shelf: sections[index % 4], price: Decimal(string: price)!))
        }
    }

    @Test(arguments: testedStoreKinds, [false, true])
    func rawValueEnumsSortByRawValueAndDecimalsNumerically(_ kind: StoreKind, pending: Bool) async throws {
        let stack = try await TestStack(kind, schema: ticketSchema)
        let context = stack.container.newContext()
        insertTickets(context)
        // Saved: the store sorts; pending: the context sorts its unsaved objects the same way.
        if !pending { try context.save() }

        let byPrice = try context.fetch(FetchRequest<Ticket>(sortBy: [SortDescriptor(\.price)]))
        let expected = prices.map { Decimal(string: $0)! }.sorted()
        #expect(byPrice.map(\.price) == expected)

        let byStage = try context.fetch(FetchRequest<Ticket>(sortBy: [SortDescriptor(\.stage, order: .reverse), SortDescriptor(\.name)]))
        #expect(byStage.map(\.stage.rawValue) == byStage.map(\.stage.rawValue).sorted(by: >))

        let bySection = try context.fetch(FetchRequest<Ticket>(sortBy: [SortDescriptor(\.shelf), SortDescriptor(\.name)]))
        let sections = bySection.map { $0.shelf?.rawValue ?? "" }
        #expect(sections == sections.sorted(), "nil first, then by raw value")
        #expect(bySection.first?.shelf == nil)
    }

    @Test(arguments: testedStoreKinds)
    func aPendingObjectFallsWhereTheStorePutsItsSavedTwin(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: ticketSchema)
        let context = stack.container.newContext()
        insertTickets(context)
        try context.save()
        context.insert(Ticket("new", stage: .doing, shelf: .essays, price: Decimal(string: "9.75")!))
        let sort = [SortDescriptor(\Ticket.price, order: .reverse)]
        let pending = try context.fetch(FetchRequest<Ticket>(sortBy: sort)).map(\.name)
        try context.save()
        let saved = try context.fetch(FetchRequest<Ticket>(sortBy: sort)).map(\.name)
        #expect(pending == saved)
    }

    @Test func sortingByAValueStoredAsJSONIsRefusedWithAReason() async throws {
        let stack = try await TestStack(.inMemory, schema: ticketSchema)
        let context = stack.container.newContext()
        let error = #expect(throws: StrataError.self) {
            try context.fetch(FetchRequest<Ticket>(sortBy: [SortDescriptor(\.edition)]))
        }
        #expect(error?.code == .unsupportedPredicate)
        #expect(error?.message.contains("JSON") == true)
        #expect(error?.message.contains("edition") == true)
    }
}
