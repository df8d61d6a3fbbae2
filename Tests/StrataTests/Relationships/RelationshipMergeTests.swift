import Strata
import Testing

@Suite("Merging relationship changes")
struct RelationshipMergeTests {
    @Test(arguments: testedStoreKinds)
    @MainActor
    func aTagAddedInTheBackgroundShowsInTheViewContextsLoadedTags(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: articleSchema)
        let view = stack.container.viewContext
        let article = Article(title: "A")
        view.insert(article)
        article.tags = [Tag(name: "first")]
        try view.save()
        let tag = article.tags[0]
        #expect(tag.articles.count == 1)                 // both sides loaded
        let articleID = article.objectID

        try await stack.container.performBackgroundTask { context in
            let article = try context.existingObject(with: articleID, as: Article.self)
            article.tags.insert(Tag(name: "zeroth"), at: 0)
            try context.save()
        }
        #expect(await eventually { article.tags.map(\.name) == ["zeroth", "first"] })
        #expect(!article.hasChanges)
        let zeroth = article.tags[0]
        #expect(zeroth.articles.first === article)

        try await stack.container.performBackgroundTask { context in
            let article = try context.existingObject(with: articleID, as: Article.self)
            article.tags.removeAll { $0.name == "first" }
            try context.save()
        }
        #expect(await eventually { article.tags.map(\.name) == ["zeroth"] })
        #expect(tag.articles.isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    @MainActor
    func aReorderInTheBackgroundShowsInTheViewContext(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: playlistSchema)
        let view = stack.container.viewContext
        let playlist = Playlist(name: "Mix")
        view.insert(playlist)
        playlist.songs = ["a", "b", "c"].map { Song(title: $0) }
        try view.save()
        let id = playlist.objectID

        try await stack.container.performBackgroundTask { context in
            let playlist = try context.existingObject(with: id, as: Playlist.self)
            playlist.songs.move(from: 2, to: 0)
            try context.save()
        }
        #expect(await eventually { playlist.songs.map(\.title) == ["c", "a", "b"] })
    }
}
