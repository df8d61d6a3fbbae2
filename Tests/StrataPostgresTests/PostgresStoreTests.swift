import Foundation
import Strata
import StrataTesting
@testable import StrataPostgres
import Testing

@Model final class PgWriter {
    @Attribute(.unique) var email: String
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \PgStory.writer) var stories: [PgStory] = []

    init(email: String, name: String) {
        self.email = email
        self.name = name
    }
}

@Model final class PgStory {
    var title: String
    var year: Int
    var words: Int32
    var rating: Double?
    var price: Decimal
    var published: Date
    var cover: Data?
    var code: UUID
    var link: URL?
    var writer: PgWriter?
    @Relationship(inverse: \PgLabel.stories) var labels: [PgLabel] = []

    init(title: String, year: Int, words: Int32 = 1_000, rating: Double? = nil, price: Decimal = 9.5) {
        self.title = title
        self.year = year
        self.words = words
        self.rating = rating
        self.price = price
        published = Date(timeIntervalSince1970: 1_700_000_000.25)
        code = UUID()
    }
}

@Model final class PgLabel {
    var name: String
    var stories: [PgStory] = []

    init(name: String) { self.name = name }
}

let pgSchema = Schema(PgWriter.self, PgStory.self, PgLabel.self)

/// A container over a fresh namespace of the test server; dropped with the value.
final class PostgresTestStack: Sendable {
    let server: PostgresStoreDescription
    let container: PersistentContainer

    init(history: Bool = true, remote: Bool = false, server: PostgresStoreDescription? = nil, name: String = "Server") async throws {
        self.server = try server ?? PostgresTestServer.description()
        container = try await Self.container(self.server, history: history, remote: remote, name: name)
    }

    static func container(
        _ server: PostgresStoreDescription, history: Bool = true, remote: Bool = false, name: String = "Server"
    ) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: name, schema: pgSchema)
        var description = StoreDescription.postgres(server)
        description.historyTracking = history
        description.remoteChangeNotifications = remote
        container.storeDescriptions = [description]
        try await container.loadPersistentStores()
        return container
    }

    deinit {
        try? container.persistentStoreCoordinator.close()
        try? PostgresTestServer.drop(server)
    }

    /// A stack of one pooled connection holding one saved story ("Draft"),
    /// its server described as `configure` leaves it.
    static func oneStory(
        history: Bool, configure: (inout PostgresStoreDescription) -> Void = { _ in }
    ) async throws -> (stack: PostgresTestStack, id: ObjectID) {
        var server = try PostgresTestServer.description()
        server.maximumConnections = 1
        configure(&server)
        let stack = try await PostgresTestStack(history: history, server: server)
        let id = try stack.container.perform { context in
            let story = PgStory(title: "Draft", year: 1)
            context.insert(story)
            try context.save()
            return story.objectID
        }
        return (stack, id)
    }
}

/// The context features on the PostgreSQL store, each checked against what
/// the other stores do.
@Suite("PostgreSQL store", .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresStoreTests {
    @Test
    func everyAttributeTypeComesBackAsSaved() async throws {
        let stack = try await PostgresTestStack()
        let story = PgStory(title: "Ünïcode 😀 'quoted'", year: -44, words: .min, rating: .pi, price: Decimal(string: "12345678901234567890.125")!)
        story.cover = Data([0, 1, 2, 255])
        story.link = URL(string: "https://example.com/a?b=c")
        let context = stack.container.newContext()
        context.insert(story)
        try context.save()

        let fresh = stack.container.newContext()
        let loaded = try #require(try fresh.fetch(FetchRequest<PgStory>()).first)
        #expect(loaded.title == story.title && loaded.year == -44 && loaded.words == .min && loaded.rating == .pi)
        #expect(loaded.price == story.price && loaded.published == story.published && loaded.cover == story.cover)
        #expect(loaded.code == story.code && loaded.link == story.link && loaded.objectID == story.objectID)
    }

    @Test
    func relationshipsKeepTheirOrderAndDeleteRules() async throws {
        let stack = try await PostgresTestStack()
        let context = stack.container.newContext()
        let writer = PgWriter(email: "w@example.com", name: "W")
        let stories = (1...4).map { PgStory(title: "S\($0)", year: 2000 + $0) }
        let labels = ["a", "b", "c"].map(PgLabel.init)
        context.insert(writer)
        for label in labels { context.insert(label) }
        writer.stories = [stories[2], stories[0], stories[3], stories[1]]
        stories[0].labels = [labels[2], labels[0]]
        stories[1].labels = [labels[0]]
        try context.save()

        let fresh = stack.container.newContext()
        let loaded = try #require(try fresh.fetch(FetchRequest<PgWriter>()).first)
        #expect(loaded.stories.map(\.title) == ["S3", "S1", "S4", "S2"])
        let first = try #require(loaded.stories.first { $0.title == "S1" })
        #expect(first.labels.map(\.name) == ["c", "a"])
        let a = try #require(try fresh.fetch(FetchRequest<PgLabel>(predicate: #Predicate { $0.name == "a" })).first)
        #expect(Set(a.stories.map(\.title)) == ["S1", "S2"])

        loaded.stories.removeFirst()
        let b = try #require(try fresh.fetch(FetchRequest<PgLabel>(predicate: #Predicate { $0.name == "b" })).first)
        first.labels = [b]
        try fresh.save()
        let third = stack.container.newContext()
        let again = try #require(try third.fetch(FetchRequest<PgWriter>()).first)
        #expect(again.stories.map(\.title) == ["S1", "S4", "S2"])
        #expect(again.stories[0].labels.map(\.name) == ["b"])
        #expect(try third.count(for: FetchRequest<PgStory>(predicate: #Predicate { $0.writer == nil })) == 1)

        third.delete(again)
        try third.save()
        #expect(try stack.container.newContext().count(for: FetchRequest<PgStory>()) == 1, "the cascade took the writer's stories")
        #expect(try stack.container.newContext().count(for: FetchRequest<PgLabel>()) == 3)
    }

    /// The same predicates and sorts, on the same rows, give what the in-memory store gives.
    @Test
    func queriesAnswerAsTheInMemoryStoreDoes() async throws {
        let stack = try await PostgresTestStack()
        let reference = try PersistentContainer(name: "Reference", schema: pgSchema)
        reference.storeDescriptions = [.memory()]
        try await reference.loadPersistentStores()
        for container in [stack.container, reference] {
            let context = container.newContext()
            let writers = [PgWriter(email: "a@x", name: "Ana"), PgWriter(email: "b@x", name: "Bo")]
            for writer in writers { context.insert(writer) }
            let titles = ["Éclair", "eclipse", "Zebra", "apple", "Straße", "STRASSE", "naïve", "Naive", "x", "Ω"]
            for (index, title) in titles.enumerated() {
                let story = PgStory(
                    title: title, year: 1990 + index * 3, words: Int32(index * 700),
                    rating: index % 3 == 0 ? nil : Double(index) / 2, price: Decimal(index) / 4)
                story.writer = index % 4 == 3 ? nil : writers[index % 2]
                context.insert(story)
            }
            try context.save()
        }
        let threshold = 2000, name = "Ana", part = "ECL".folded
        let requests: [FetchRequest<PgStory>] = [
            FetchRequest(predicate: #Predicate { $0.year >= threshold }, sortBy: [SortDescriptor(\.title)]),
            FetchRequest(predicate: #Predicate { $0.rating == nil || $0.year < 1995 }, sortBy: [SortDescriptor(\.year, order: .reverse)]),
            FetchRequest(predicate: #Predicate { ($0.rating ?? 0) > 1.5 && $0.title != "x" }, sortBy: [SortDescriptor(\.rating)]),
            FetchRequest(predicate: #Predicate { $0.writer?.name == name }, sortBy: [SortDescriptor(\.title.folded)]),
            FetchRequest(predicate: #Predicate { $0.title.folded.contains(part) }, sortBy: [SortDescriptor(\.title)]),
            FetchRequest(predicate: #Predicate { $0.title.starts(with: "S") || $0.title.contains("ï") }, sortBy: [SortDescriptor(\.title)]),
            FetchRequest(predicate: #Predicate { $0.words * 2 > 5000 }, sortBy: [SortDescriptor(\.price, order: .reverse)]),
            FetchRequest(predicate: #Predicate { $0.price > 1 }, sortBy: [SortDescriptor(\.price)]),
            FetchRequest(sortBy: [SortDescriptor(\.rating), SortDescriptor(\.title)]),
        ]
        for var request in requests {
            for page in [(nil, 0), (3, 2)] as [(Int?, Int)] {
                request.fetchLimit = page.0
                request.fetchOffset = page.1
                let expected = try reference.newContext().fetch(request).map(\.title)
                let found = try stack.container.newContext().fetch(request).map(\.title)
                #expect(found == expected, "\(request)")
                #expect(try stack.container.newContext().count(for: request) == expected.count)
            }
        }
        let writers = FetchRequest<PgWriter>(predicate: #Predicate { $0.stories.count > 3 }, sortBy: [SortDescriptor(\.name)])
        #expect(try stack.container.newContext().fetch(writers).map(\.name) == reference.newContext().fetch(writers).map(\.name))
        let all = FetchRequest<PgStory>()
        #expect(try stack.container.newContext().aggregate(.sum(\.year), of: all) == reference.newContext().aggregate(.sum(\.year), of: all))
        #expect(try stack.container.newContext().aggregate(.average(\.rating), of: all)
            == reference.newContext().aggregate(.average(\.rating), of: all))

        let zero = 0
        let failing = FetchRequest<PgStory>(predicate: #Predicate { $0.year / zero > 1 })
        let error = #expect(throws: StrataError.self) { try stack.container.newContext().fetch(failing) }
        #expect(error?.code == .unsupportedPredicate)
        let unwrapping = FetchRequest<PgStory>(predicate: #Predicate { $0.rating! > 1 })
        #expect(throws: StrataError.self) { try stack.container.newContext().fetch(unwrapping) }
    }

    @Test
    func conflictsAreSettledByTheMergePolicy() async throws {
        let stack = try await PostgresTestStack()
        let setup = stack.container.newContext()
        setup.insert(PgWriter(email: "taken@x", name: "First"))
        try setup.save()

        let mine = stack.container.newContext(), theirs = stack.container.newContext()
        let myWriter = try #require(try mine.fetch(FetchRequest<PgWriter>()).first)
        let theirWriter = try #require(try theirs.fetch(FetchRequest<PgWriter>()).first)
        theirWriter.name = "Theirs"
        try theirs.save()
        myWriter.name = "Mine"
        let conflict = #expect(throws: StrataError.self) { try mine.save() }
        #expect(conflict?.code == .mergeConflict)
        #expect(myWriter.name == "Mine", "a failed save keeps the context's changes")
        mine.mergePolicy = .mergeByPropertyObjectTrump
        try mine.save()
        #expect(try stack.container.newContext().fetch(FetchRequest<PgWriter>()).first?.name == "Mine")

        let duplicate = stack.container.newContext()
        duplicate.insert(PgWriter(email: "taken@x", name: "Second"))
        let taken = #expect(throws: StrataError.self) { try duplicate.save() }
        #expect(taken?.code == .uniquenessConflict)
        #expect(try stack.container.newContext().count(for: FetchRequest<PgWriter>()) == 1)
    }

    @Test
    func historyRecordsEachSaveAndPrunes() async throws {
        let stack = try await PostgresTestStack()
        let context = stack.container.newContext()
        context.transactionAuthor = "importer"
        let story = PgStory(title: "One", year: 1)
        context.insert(story)
        try context.save()
        let first = try #require(try stack.container.currentHistoryToken())
        story.title = "Two"
        try context.save()
        context.delete(story)
        try context.save()

        let after = try stack.container.fetchHistory(HistoryRequest(after: first))
        #expect(after.map { $0.changes.map(\.changeType) } == [[.update], [.delete]])
        #expect(after.first?.changes.first?.updatedProperties == ["title"])
        #expect(after.allSatisfy { $0.author == "importer" })
        #expect(try stack.container.deleteHistory(before: after[0].token) == 1)
        #expect(try stack.container.fetchHistory(HistoryRequest()).count == 2)
        let expired = #expect(throws: StrataError.self) { try stack.container.fetchHistory(HistoryRequest(after: HistoryToken(storeIdentifier: first.storeIdentifier, transactionNumber: 0))) }
        #expect(expired?.code == .historyTokenExpired)
    }

    @Test
    func batchInsertsAndUpdatesReachContextsAndHistory() async throws {
        let stack = try await PostgresTestStack()
        let writer = PgWriter(email: "w@x", name: "W")
        let context = stack.container.newContext()
        context.insert(writer)
        writer.stories = [PgStory(title: "Existing", year: 1990)]
        try context.save()

        let inserted = try stack.container.execute(BatchInsertRequest<PgStory>(
            objects: (1...3).map { ["title": "New \($0)", "year": 2000 + $0, "words": Int32(10), "price": Decimal(1),
                                    "published": Date(timeIntervalSince1970: 0), "code": UUID(), "writer": writer.objectID] },
            resultType: .objectIDs))
        #expect(inserted.objectIDs.count == 3)
        var update = BatchUpdateRequest<PgStory>(predicate: #Predicate { $0.year > 2001 }, resultType: .objectIDs)
        update.propertiesToUpdate["title"] = "Renamed"
        let updated = try stack.container.execute(update)
        #expect(updated.objectIDs.count == 2)

        let fresh = stack.container.newContext()
        let loaded = try #require(try fresh.fetch(FetchRequest<PgWriter>()).first)
        #expect(loaded.stories.map(\.title) == ["Existing", "New 1", "Renamed", "Renamed"])
        let folded = "RENAMED".folded
        #expect(try fresh.count(for: FetchRequest<PgStory>(predicate: #Predicate { $0.title.folded == folded })) == 2)
        let history = try stack.container.fetchHistory(HistoryRequest())
        #expect(history.suffix(2).map { $0.changes.map(\.changeType) } == [[.insert, .insert, .insert, .update], [.update, .update]])
    }

    @Test
    func awaitingFetchesAndSavesLeaveTheCallerFree() async throws {
        let stack = try await PostgresTestStack()
        let context = stack.container.newContext()
        for year in 1...50 { context.insert(PgStory(title: "S\(year)", year: year)) }
        try await context.saveAsync()
        let recent = try await context.fetchAsync(FetchRequest<PgStory>(predicate: #Predicate { $0.year > 40 }))
        #expect(recent.count == 10)
        #expect(try await context.countAsync(for: FetchRequest<PgStory>()) == 50)
    }
}

/// Two containers on one database are two servers: each one's commits reach
/// the other's contexts, and no update is lost when they contend.
@Suite("PostgreSQL servers", .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresServersTests {
    @Test @MainActor
    func oneServersSaveReachesTheOthersViewContext() async throws {
        let first = try await PostgresTestStack(remote: true)
        let second = try await PostgresTestStack.container(first.server, remote: true, name: "Second")
        defer { try? second.persistentStoreCoordinator.close() }
        let view = second.viewContext
        let story = PgStory(title: "Draft", year: 2024)
        try first.container.perform { context in
            context.insert(story)
            try context.save()
        }
        #expect(await eventually { (try? view.count(for: FetchRequest<PgStory>())) == 1 })
        let shown = try #require(try view.fetch(FetchRequest<PgStory>()).first)
        try first.container.perform { context in
            let mine = try #require(try context.fetch(FetchRequest<PgStory>()).first)
            mine.title = "Final"
            try context.save()
        }
        #expect(await eventually { shown.title == "Final" }, "the other server's update was merged into the shown object")
    }

    @Test @MainActor
    func historyAnotherServerPrunedBeforeItWasReadDoesNotStopLaterChanges() async throws {
        let first = try await PostgresTestStack(remote: true)
        let story = PgStory(title: "First", year: 1)
        try first.container.perform { context in
            context.insert(story)
            try context.save()
        }
        let second = try await PostgresTestStack.container(first.server, remote: true, name: "Second")
        defer { try? second.persistentStoreCoordinator.close() }
        let shown = try second.viewContext.existingObject(with: story.objectID, as: PgStory.self)
        #expect(shown.title == "First")

        // Two saves and a prune of the history before the last one, all before
        // the second server reads its notifications: it then reads after a
        // token whose history is gone.
        try PostgresStore.holdingNotifications {
            try first.container.perform { context in
                try context.existingObject(with: story.objectID, as: PgStory.self).title = "Second"
                try context.save()
                try context.existingObject(with: story.objectID, as: PgStory.self).year = 2
                try context.save()
                _ = try first.container.deleteHistory(before: try #require(try first.container.currentHistoryToken()))
            }
        }
        #expect(await eventually { shown.title == "Second" && shown.year == 2 })
        try first.container.perform { context in
            try context.existingObject(with: story.objectID, as: PgStory.self).title = "Third"
            try context.save()
        }
        #expect(await eventually { shown.title == "Third" }, "changes after the prune still arrive")
    }

    @Test @MainActor
    func aLongCatchUpArrivesWholeInPages() async throws {
        let first = try await PostgresTestStack(remote: true)
        let second = try await PostgresTestStack.container(first.server, remote: true, name: "Second")
        defer { try? second.persistentStoreCoordinator.close() }
        let view = second.viewContext
        let pageSize = 256
        let saves = pageSize + 44
        let arrived = Task {
            var sizes: [Int] = []
            for await change in second.remoteChanges {
                sizes.append(change.transactions.count)
                if sizes.reduce(0, +) >= saves { break }
            }
            return sizes
        }
        try await Task.sleep(for: .milliseconds(100))
        // Every save is committed before the second server reads a notification,
        // so the first one it reads catches up with all of them.
        try PostgresStore.holdingNotifications {
            try first.container.perform { context in
                for year in 1...saves {
                    context.insert(PgStory(title: "Story \(year)", year: year))
                    try context.save()
                }
            }
        }
        #expect(await eventually(timeout: .seconds(30)) { (try? view.count(for: FetchRequest<PgStory>())) == saves })
        let sizes = await arrived.value
        #expect(sizes.reduce(0, +) == saves, "every transaction is reported once")
        #expect(sizes.max() == pageSize, "no event holds more than a page: \(sizes)")
    }

    @Test @MainActor
    func pruningItsOwnHistoryDoesNotLookLikeHistoryMissed() async throws {
        let first = try await PostgresTestStack(remote: true)
        let story = PgStory(title: "Mine", year: 0)
        try first.container.perform { context in
            context.insert(story)
            try context.save()
            for year in 1...3 {
                try context.existingObject(with: story.objectID, as: PgStory.self).year = year
                try context.save()
            }
        }
        // Its own notifications read, the server prunes its own history.
        try await Task.sleep(for: .milliseconds(200))
        PostgresStore.holdingNotifications {}
        _ = try first.container.deleteHistory(before: try #require(try first.container.currentHistoryToken()))
        let changes = first.container.remoteChanges
        let second = try await PostgresTestStack.container(first.server, name: "Second")
        defer { try? second.persistentStoreCoordinator.close() }
        try second.perform { context in
            try context.existingObject(with: story.objectID, as: PgStory.self).title = "Theirs"
            try context.save()
        }
        let change = try await changes.first(within: .seconds(5)) { !$0.transactions.isEmpty || $0.isIncomplete }
        #expect(change?.transactions.isEmpty == false)
        #expect(change?.isIncomplete == false, "nothing of another server's was pruned")
    }

    @Test @MainActor
    func aSchemaWithTheLongestNameSavesAndReachesTheOtherServer() async throws {
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "_")
        let longest = name + String(repeating: "x", count: 63 - name.utf8.count)
        let first = try await PostgresTestStack(remote: true, server: try PostgresTestServer.description(schema: longest))
        let second = try await PostgresTestStack.container(first.server, remote: true, name: "Second")
        defer { try? second.persistentStoreCoordinator.close() }
        try first.container.perform { context in
            context.insert(PgStory(title: "Long", year: 1))
            try context.save()
        }
        #expect(await eventually { (try? second.viewContext.count(for: FetchRequest<PgStory>())) == 1 })
    }

    @Test
    func contendingServersLoseNoUpdate() async throws {
        let first = try await PostgresTestStack()
        let second = try await PostgresTestStack.container(first.server, name: "Second")
        defer { try? second.persistentStoreCoordinator.close() }
        try first.container.perform { context in
            context.insert(PgStory(title: "Counter", year: 0))
            try context.save()
        }
        let rounds = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for container in [first.container, second] {
                group.addTask {
                    for _ in 0..<rounds {
                        while true {
                            let context = container.newContext()
                            let counter = try #require(try context.fetch(FetchRequest<PgStory>()).first)
                            counter.year += 1
                            do {
                                try context.save()
                                break
                            } catch let error as StrataError where error.code == .mergeConflict {
                                continue
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try first.container.newContext().fetch(FetchRequest<PgStory>()).first?.year == 2 * rounds)
    }
}
