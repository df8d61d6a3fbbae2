import Strata
import Testing

@Suite("Many-to-many delete rules")
struct ManyToManyDeleteRuleTests {
    /// Two boards sharing one pin, each with a pin of its own.
    private func makeBoards(_ container: PersistentContainer) throws {
        try container.perform { context throws in
            let home = Board(name: "home")
            let work = Board(name: "work")
            let shared = Pin(label: "shared")
            context.insert(home)
            context.insert(work)
            home.pins = [Pin(label: "home-only"), shared]
            work.pins = [shared, Pin(label: "work-only")]
            try context.save()
        }
    }

    @Test(arguments: testedStoreKinds)
    func cascadeDeletesTheMembersUnlessAMemberDeniesIt(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: boardSchema)
        try makeBoards(stack.container)
        try stack.container.perform { context throws in
            let boards = try context.fetch(FetchRequest<Board>(sortBy: [SortDescriptor(\.name)]))
            let (home, work) = (boards[0], boards[1])
            context.delete(home)
            #expect(home.pins.allSatisfy { $0.isDeleted })
            // The shared pin is still on `work`, and Pin.boards denies deleting it.
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.entityName == "Pin" && error.propertyName == "boards")
            context.rollback()

            work.pins.removeAll { $0.label == "shared" }
            context.delete(home)
            try context.save()
            #expect(context.objectGraphProblems().isEmpty)
        }
        try stack.container.perform { context throws in
            let pins = try context.fetch(FetchRequest<Pin>()).map(\.label)
            #expect(pins == ["work-only"])
            let work = try #require(try context.fetch(FetchRequest<Board>()).first)
            #expect(work.pins.map(\.label) == ["work-only"])
            #expect(work.pins.first?.boards.map(\.name) == ["work"])
        }
    }

    @Test(arguments: testedStoreKinds)
    func denyBlocksTheSaveWhileTheMemberIsOnABoard(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: boardSchema)
        try makeBoards(stack.container)
        let context = stack.container.newContext()
        let pin = try #require(try context.fetch(FetchRequest<Pin>(predicate: #Predicate { $0.label == "shared" })).first)
        context.delete(pin)
        let error = try #require(throws: StrataError.self) { try context.save() }
        #expect(error.code == .validation)
        #expect(error.entityName == "Pin" && error.propertyName == "boards")
        #expect(try stack.container.perform { try $0.count(for: FetchRequest<Pin>()) } == 3)

        // Taken off every board first, the pin may go.
        context.rollback()
        for board in pin.boards { board.pins.removeAll { $0 === pin } }
        #expect(pin.boards.isEmpty)
        context.delete(pin)
        try context.save()
        try stack.container.perform { context throws in
            let boards = try context.fetch(FetchRequest<Board>(sortBy: [SortDescriptor(\.name)]))
            #expect(boards.map { $0.pins.map(\.label) } == [["home-only"], ["work-only"]])
        }
    }

    @Test(arguments: testedStoreKinds)
    func nullifyRemovesADeletedObjectFromTheOtherSideBeforeAndAfterSaving(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: articleSchema)
        try stack.container.perform { context throws in
            let article = Article(title: "A")
            context.insert(article)
            article.tags = [Tag(name: "x"), Tag(name: "y"), Tag(name: "z")]
            try context.save()
        }
        try stack.container.perform { context throws in
            let tag = try #require(try context.fetch(FetchRequest<Tag>(predicate: #Predicate { $0.name == "y" })).first)
            let article = try #require(tag.articles.first)
            context.delete(tag)
            #expect(article.tags.map(\.name) == ["x", "z"])
            try context.save()
            #expect(article.tags.map(\.name) == ["x", "z"])
        }
        try stack.container.perform { context throws in
            let article = try #require(try context.fetch(FetchRequest<Article>()).first)
            #expect(article.tags.map(\.name) == ["x", "z"])
            // Deleting the article leaves its tags, with no articles.
            context.delete(article)
            try context.save()
            #expect(try context.fetch(FetchRequest<Tag>()).allSatisfy { $0.articles.isEmpty })
        }
    }
}
