import Strata
import Testing

@Suite("To-many order")
struct ToManyOrderTests {
    /// The song titles of the one playlist, read in a fresh unit of work.
    private func storedTitles(_ container: PersistentContainer) throws -> [String] {
        try container.perform { context throws in
            let playlist = try #require(try context.fetch(FetchRequest<Playlist>()).first)
            return playlist.songs.map(\.title)
        }
    }

    /// Edits the one playlist's songs in a fresh unit of work, then saves.
    private func editSongs(_ container: PersistentContainer, _ edit: (Playlist, ManagedObjectContext) -> Void) throws {
        try container.perform { context throws in
            let playlist = try #require(try context.fetch(FetchRequest<Playlist>()).first)
            edit(playlist, context)
            try context.save()
        }
    }

    @Test(arguments: testedStoreKinds)
    func oneToManyOrderSurvivesSavesFreshContextsAndReopening(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: playlistSchema)
        try stack.container.perform { context throws in
            let playlist = Playlist(name: "Mix")
            context.insert(playlist)
            let songs = ["a", "b", "c", "d"].map { Song(title: $0) }
            songs.forEach(context.insert)       // primary keys follow a, b, c, d
            playlist.songs = [songs[2], songs[0], songs[3], songs[1]]
            try context.save()
        }
        #expect(try storedTitles(stack.container) == ["c", "a", "d", "b"])

        try editSongs(stack.container) { playlist, _ in playlist.songs.move(from: 3, to: 0) }
        #expect(try storedTitles(stack.container) == ["b", "c", "a", "d"])

        try editSongs(stack.container) { playlist, _ in playlist.songs.insert(Song(title: "m"), at: 2) }
        #expect(try storedTitles(stack.container) == ["b", "c", "m", "a", "d"])

        try editSongs(stack.container) { playlist, _ in playlist.songs.remove(at: 1) }
        #expect(try storedTitles(stack.container) == ["b", "m", "a", "d"])

        guard kind == .file else { return }
        try stack.container.persistentStoreCoordinator.close()
        let reopened = try await stack.reopened(schema: playlistSchema)
        #expect(try storedTitles(reopened) == ["b", "m", "a", "d"])
        // The song removed from the list still exists, in no playlist.
        let orphans = try reopened.perform { context throws in
            try context.fetch(FetchRequest<Song>(predicate: #Predicate { $0.playlist == nil })).map(\.title)
        }
        #expect(orphans == ["c"])
    }

    @Test(arguments: testedStoreKinds)
    func aMemberAddedFromItsToOneSideGoesLastWithoutLoadingTheList(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: playlistSchema)
        try stack.container.perform { context throws in
            let playlist = Playlist(name: "Mix")
            context.insert(playlist)
            playlist.songs = [Song(title: "z"), Song(title: "y")]
            try context.save()
        }
        try stack.container.perform { context throws in
            let playlist = try #require(try context.fetch(FetchRequest<Playlist>()).first)
            let song = Song(title: "x")
            context.insert(song)
            song.playlist = playlist                  // playlist.songs is never loaded here
            try context.save()
        }
        #expect(try storedTitles(stack.container) == ["z", "y", "x"])
    }

    @Test(arguments: testedStoreKinds)
    func aMemberMovedToAnotherOwnerTakesItsPlaceThere(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: playlistSchema)
        try stack.container.perform { context throws in
            let first = Playlist(name: "First")
            let second = Playlist(name: "Second")
            context.insert(first)
            context.insert(second)
            first.songs = [Song(title: "a"), Song(title: "b")]
            second.songs = [Song(title: "c"), Song(title: "d")]
            try context.save()
            second.songs.insert(first.songs[0], at: 1)
            #expect(first.songs.map(\.title) == ["b"])
            try context.save()
        }
        try stack.container.perform { context throws in
            let playlists = try context.fetch(FetchRequest<Playlist>(sortBy: [SortDescriptor(\.name)]))
            #expect(playlists.map { $0.songs.map(\.title) } == [["b"], ["c", "a", "d"]])
        }
    }

    @Test(arguments: testedStoreKinds)
    func manyToManyOrderIsKeptOnBothSidesAcrossAReopen(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: articleSchema)
        try stack.container.perform { context throws in
            let tags = ["swift", "linux", "sqlite"].map { Tag(name: $0) }
            let articles = ["A1", "A2", "A3"].map { Article(title: $0) }
            tags.forEach(context.insert)
            articles.forEach(context.insert)
            articles[0].tags = [tags[2], tags[0], tags[1]]
            articles[1].tags = [tags[1], tags[2]]
            tags[2].articles = [articles[1], articles[0]]   // reorders the sqlite tag's own list
            try context.save()
        }
        let check = { (container: PersistentContainer) throws in
            try container.perform { context throws in
                let articles = try context.fetch(FetchRequest<Article>(sortBy: [SortDescriptor(\.title)]))
                #expect(articles.map { $0.tags.map(\.name) } == [["sqlite", "swift", "linux"], ["linux", "sqlite"], []])
                let tags = try context.fetch(FetchRequest<Tag>(sortBy: [SortDescriptor(\.name)]))
                #expect(tags.map { $0.articles.map(\.title) } == [["A1", "A2"], ["A2", "A1"], ["A1"]])
            }
        }
        try check(stack.container)
        try stack.container.perform { context throws in
            let article = try #require(try context.fetch(FetchRequest<Article>(predicate: #Predicate { $0.title == "A1" })).first)
            article.tags.move(from: 2, to: 0)
            try context.save()
        }
        try stack.container.perform { context throws in
            let article = try #require(try context.fetch(FetchRequest<Article>(predicate: #Predicate { $0.title == "A1" })).first)
            #expect(article.tags.map(\.name) == ["linux", "sqlite", "swift"])
            article.tags.move(from: 0, to: 2)
            try context.save()
        }
        guard kind == .file else { return }
        try stack.container.persistentStoreCoordinator.close()
        try check(try await stack.reopened(schema: articleSchema))
    }
}
