import Strata
import Testing

@Suite("Relationship counts")
struct RelationshipCountTests {
    /// The failures of a `.validation` error, one per object and property.
    private func failures(_ error: StrataError) -> [StrataError] {
        error.detailedErrors.isEmpty ? [error] : error.detailedErrors
    }

    @Test(arguments: testedStoreKinds)
    func tooFewMembersFailTheSaveAndWriteNothing(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: teamSchema)
        let context = stack.container.newContext()
        context.insert(Team(name: "Empty"))
        let full = Team(name: "Full")
        context.insert(full)
        full.players = [Player(name: "p")]
        let error = try #require(throws: StrataError.self) { try context.save() }
        #expect(error.code == .validation)
        #expect(failures(error).map { "\($0.entityName ?? "").\($0.propertyName ?? "")" } == ["Team.players"])
        #expect(error.message.contains("Team.players"))
        #expect(try stack.container.perform { try $0.count(for: FetchRequest<Team>()) } == 0)
        #expect(try stack.container.perform { try $0.count(for: FetchRequest<Player>()) } == 0)
    }

    @Test(arguments: testedStoreKinds)
    func tooManyMembersFailTheSaveForEachShapeAndWriteNothing(_ kind: StoreKind) async throws {
        let teams = try await TestStack(kind, schema: teamSchema)
        try teams.container.perform { context throws in
            let team = Team(name: "T")
            context.insert(team)
            team.players = (1...3).map { Player(name: "p\($0)") }
            try context.save()
            team.players.append(Player(name: "p4"))      // a saved owner over its maximum
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(failures(error).contains { $0.entityName == "Team" && $0.propertyName == "players" })
            context.rollback()
        }
        #expect(try teams.container.perform { try $0.count(for: FetchRequest<Player>()) } == 3)

        let boards = try await TestStack(kind, schema: boardSchema)
        let context = boards.container.newContext()
        let board = Board(name: "B")
        context.insert(board)
        board.pins = (1...4).map { Pin(label: "\($0)") }
        let error = try #require(throws: StrataError.self) { try context.save() }
        #expect(error.code == .validation)
        #expect(failures(error).contains { $0.entityName == "Board" && $0.propertyName == "pins" })
        #expect(try boards.container.perform { try $0.count(for: FetchRequest<Pin>()) } == 0)
        board.pins.removeLast()
        try context.save()
        #expect(try boards.container.perform { try $0.count(for: FetchRequest<Pin>()) } == 4)
    }

    @Test(arguments: testedStoreKinds)
    func removingMembersBelowTheMinimumThroughADeleteFailsTheSave(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: teamSchema)
        try stack.container.perform { context throws in
            let team = Team(name: "T")
            context.insert(team)
            team.players = [Player(name: "only")]
            try context.save()
        }
        let context = stack.container.newContext()
        let player = try #require(try context.fetch(FetchRequest<Player>()).first)
        context.delete(player)                           // nullifies team.players
        let error = try #require(throws: StrataError.self) { try context.save() }
        #expect(failures(error).contains { $0.entityName == "Team" && $0.propertyName == "players" })
        #expect(try stack.container.perform { try $0.count(for: FetchRequest<Player>()) } == 1)
    }
}
