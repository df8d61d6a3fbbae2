import Strata
import Testing

@Suite("Many-to-many relationships")
struct ManyToManyTests {
    @Test(arguments: testedStoreKinds)
    func membershipAndCountsAgreeFromBothSidesAfterSaveAndReopen(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: articleSchema)
        try stack.container.perform { context throws in
            let swift = Tag(name: "swift")
            let linux = Tag(name: "linux")
            let first = Article(title: "First")
            let second = Article(title: "Second")
            context.insert(first)
            first.tags = [swift, linux]              // the tags are inserted along with the article
            second.tags = [swift]                    // and the second article with its tag
            #expect(second.isInserted)
            try context.save()
        }
        let check = { (container: PersistentContainer) throws in
            try container.perform { context throws in
                let tags = try context.fetch(FetchRequest<Tag>(sortBy: [SortDescriptor(\.name)]))
                #expect(tags.map(\.name) == ["linux", "swift"])
                #expect(tags.map(\.articles.count) == [1, 2])
                #expect(tags[1].articles.map(\.title) == ["First", "Second"])
                let articles = try context.fetch(FetchRequest<Article>(sortBy: [SortDescriptor(\.title)]))
                #expect(articles.map(\.tags.count) == [2, 1])
                #expect(articles[0].tags.map(\.name) == ["swift", "linux"])
                // Both sides reach the same objects (one identity map).
                #expect(articles[0].tags[0] === tags[1])
            }
        }
        try check(stack.container)
        guard kind == .file else { return }
        try stack.container.persistentStoreCoordinator.close()
        try check(try await stack.reopened(schema: articleSchema))
    }

    @Test(arguments: testedStoreKinds)
    func inversesFollowAppendRemoveReplaceAndDelete(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: articleSchema)
        try stack.container.perform { context throws in
            let article = Article(title: "A")
            let other = Article(title: "B")
            let (swift, linux, sqlite) = (Tag(name: "swift"), Tag(name: "linux"), Tag(name: "sqlite"))
            [article, other].forEach(context.insert)
            [swift, linux, sqlite].forEach(context.insert)

            article.tags.append(swift)
            article.tags.append(linux)
            #expect(swift.articles.map(\.title) == ["A"])
            #expect(linux.articles.map(\.title) == ["A"])

            sqlite.articles.append(article)          // from the other side
            #expect(article.tags.map(\.name) == ["swift", "linux", "sqlite"])

            article.tags.removeAll { $0 === linux }
            #expect(linux.articles.isEmpty)

            article.tags = [sqlite, linux]           // replace: swift leaves, linux returns
            #expect(swift.articles.isEmpty)
            #expect(linux.articles.map(\.title) == ["A"])
            #expect(sqlite.articles.map(\.title) == ["A"])

            other.tags = [linux, linux]              // each object once, as in an ordered set
            #expect(other.tags.count == 1)
            #expect(linux.articles.map(\.title) == ["A", "B"])
            #expect(context.objectGraphProblems().isEmpty)
            try context.save()

            context.delete(linux)                    // .nullify on both sides
            #expect(article.tags.map(\.name) == ["sqlite"])
            #expect(other.tags.isEmpty)
            #expect(context.objectGraphProblems().isEmpty)
            try context.save()
            #expect(context.objectGraphProblems().isEmpty)
        }
        try stack.container.perform { context throws in
            let articles = try context.fetch(FetchRequest<Article>(sortBy: [SortDescriptor(\.title)]))
            #expect(articles.map { $0.tags.map(\.name) } == [["sqlite"], []])
            #expect(try context.fetch(FetchRequest<Tag>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["sqlite", "swift"])
        }
    }

    @Test(arguments: testedStoreKinds)
    func unsavedChangesCountWhenTheOtherSideLoadsLater(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: articleSchema)
        try stack.container.perform { context throws in
            let article = Article(title: "A")
            context.insert(article)
            article.tags = [Tag(name: "kept"), Tag(name: "dropped")]
            try context.save()
        }
        try stack.container.perform { context throws in
            let article = try #require(try context.fetch(FetchRequest<Article>()).first)
            let tags = try context.fetch(FetchRequest<Tag>(sortBy: [SortDescriptor(\.name)]))
            // Neither tag's `articles` is loaded when the article changes.
            article.tags = [tags[1], Tag(name: "new")]
            #expect(tags[0].articles.isEmpty)
            #expect(tags[1].articles.map(\.title) == ["A"])
            try context.save()
        }
        try stack.container.perform { context throws in
            let tags = try context.fetch(FetchRequest<Tag>(sortBy: [SortDescriptor(\.name)]))
            #expect(tags.map { "\($0.name):\($0.articles.count)" } == ["dropped:0", "kept:1", "new:1"])
        }
    }

    @Test func manyToManySchemasAreValid() throws {
        try articleSchema.validate()
        try boardSchema.validate()
        let tags = try articleSchema.entity(for: Article.self).relationship(named: "tags")
        #expect(tags?.inverseName == "articles")
    }
}

@Suite("Many-to-many predicates")
struct ManyToManyPredicateTests {
    @Test(arguments: testedStoreKinds)
    func predicatesQueryThroughTheJoinTableFromEitherSide(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: articleSchema)
        try stack.container.perform { context throws in
            let (swift, linux) = (Tag(name: "swift"), Tag(name: "linux"))
            let articles = ["A", "B", "C"].map { Article(title: $0) }
            articles.forEach(context.insert)
            articles[0].tags = [swift, linux]
            articles[1].tags = [linux]
            try context.save()
        }
        try stack.container.perform { context throws in
            func titles(_ predicate: Predicate<Article>) throws -> [String] {
                try context.fetch(FetchRequest(predicate: predicate, sortBy: [SortDescriptor(\.title)])).map(\.title)
            }
            #expect(try titles(#Predicate { $0.tags.contains { $0.name == "linux" } }) == ["A", "B"])
            #expect(try titles(#Predicate { $0.tags.count == 2 }) == ["A"])
            #expect(try titles(#Predicate { $0.tags.isEmpty }) == ["C"])
            let popular = try context.fetch(FetchRequest<Tag>(predicate: #Predicate { $0.articles.count > 1 })).map(\.name)
            #expect(popular == ["linux"])
        }
    }
}
