import Foundation
import Observation
import Strata
import Testing

/// Runs the writer process against a store file and waits for it to exit.
private func runWriter(store: URL, bookKey: Int64, title: String, history: Bool) throws {
    let process = Process()
    process.executableURL = try builtExecutable("strata-test-writer")
    process.arguments = [store.path, String(bookKey), title] + (history ? ["history"] : [])
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "the writer process failed")
}

/// A file store with history and remote change notifications on.
private func watchedContainer(_ url: URL, name: String = "Watched") async throws -> PersistentContainer {
    let container = try PersistentContainer(name: name, schema: librarySchema)
    var description = StoreDescription(url: url)
    description.historyTracking = true
    description.remoteChangeNotifications = true
    container.storeDescriptions = [description]
    try await container.loadPersistentStores()
    return container
}

@Suite("Remote changes")
struct RemoteChangeTests {
    @Test @MainActor
    func anotherProcessesCommitReachesTheViewContextWithoutACall() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Shared.sqlite")
        let container = try await watchedContainer(url)
        let view = container.viewContext
        let book = Book(title: "Before", year: 2000)
        view.insert(book)
        try view.save()
        let author = Author(email: "a@example.com", name: "A")
        view.insert(author)
        try view.save()
        #expect(try view.count(for: FetchRequest<Book>()) == 1)

        let events = view.events
        let started = ContinuousClock.now
        try runWriter(store: url, bookKey: book.objectID.primaryKey!, title: "After", history: true)
        let written = ContinuousClock.now
        // The view context merges on its own; its merge event says when.
        let merged = try await events.first(within: .seconds(5)) { $0.isMerge }
        #expect(merged?.mergedChanges?.updated.isEmpty == false)
        #expect(book.title == "After")
        let seen = ContinuousClock.now
        #expect(try view.count(for: FetchRequest<Book>()) == 2)
        #expect(view.objectGraphProblems().isEmpty)
        print("remote change seen \(seen - written) after the writer exited (\(written - started) to run it)")
    }

    @Test
    func remoteChangeEventsCarryTheLatestHistoryToken() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Events.sqlite")
        let watcher = try await watchedContainer(url)
        let other = try await watchedContainer(url, name: "Other")
        let events = Task {
            var iterator = watcher.remoteChanges.makeAsyncIterator()
            return await iterator.next()
        }
        try await Task.sleep(for: .milliseconds(50))
        try other.perform { context in
            context.transactionAuthor = "other container"
            context.insert(Book(title: "From the other container", year: 1))
        }
        let event = try #require(await events.value)
        let latest = try watcher.fetchHistory(after: nil).last?.token
        #expect(event.historyToken == latest)
        #expect(event.transactions.map(\.author) == ["other container"])
    }

    @Test
    func aContainersOwnSavesAreNotReportedAsRemote() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Own.sqlite")
        let container = try await watchedContainer(url)
        let events = Task {
            var iterator = container.remoteChanges.makeAsyncIterator()
            return await iterator.next()
        }
        try container.perform { context in context.insert(Book(title: "Mine", year: 1)) }
        try await Task.sleep(for: .milliseconds(300))
        events.cancel()
        #expect(await events.value == nil)
    }

    @Test
    func storeChangesReportEveryCommitWithItsOrigin() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Every.sqlite")
        let watcher = try await watchedContainer(url)
        let other = try await watchedContainer(url, name: "Other")
        let events = Task {
            var seen: [RemoteChange] = []
            for await change in watcher.storeChanges {
                seen.append(change)
                if seen.count == 3 { break }
            }
            return seen
        }
        try await Task.sleep(for: .milliseconds(50))
        try watcher.perform { context in context.insert(Book(title: "Saved here", year: 1)) }
        try watcher.execute(BatchInsertRequest<Book>(objects: [["title": "Batch here", "year": 2]]), author: "importer")
        try await Task.sleep(for: .milliseconds(50))
        try other.perform { context in
            context.transactionAuthor = "other container"
            context.insert(Book(title: "Saved elsewhere", year: 3))
        }
        let seen = await events.value
        #expect(seen.map(\.origin) == [.thisContainer, .thisContainer, .otherWriter])
        #expect(seen[0].changes?.inserted.first?.value(forProperty: "title") == .text("Saved here"))
        #expect(seen[1].changes?.author == "importer")
        let history = try watcher.fetchHistory(after: nil)
        #expect(seen[0].historyToken == history[0].token, "own commits carry their own history token")
        #expect(seen[1].historyToken == history[1].token)
        #expect(seen[2].transactions.map(\.author) == ["other container"])
    }

    @Test(arguments: testedStoreKinds)
    func storeChangesNeedNoRemoteWatchForOwnCommits(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let events = Task {
            var iterator = stack.container.storeChanges.makeAsyncIterator()
            return await iterator.next()
        }
        try await Task.sleep(for: .milliseconds(20))
        try stack.container.perform { context in context.insert(Book(title: "Mine", year: 1)) }
        let event = try #require(await events.value)
        #expect(event.origin == .thisContainer)
        #expect(event.historyToken == nil, "no history without history tracking")
        #expect(event.changes?.inserted.count == 1)

        // A commit of metadata alone is a commit too.
        let metadataEvent = Task {
            var iterator = stack.container.storeChanges.makeAsyncIterator()
            return await iterator.next()
        }
        try await Task.sleep(for: .milliseconds(20))
        try stack.container.setMetadata(1, forKey: "cursor")
        let second = try #require(await metadataEvent.value)
        #expect(second.changes?.isEmpty == true)
    }

    @Test @MainActor
    func anotherProcessesCommitReachesControllersObserversAndSnapshots() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Live.sqlite")
        let container = try await watchedContainer(url)
        let view = container.viewContext
        let book = Book(title: "Before", year: 2000)
        view.insert(book)
        try view.save()
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Book>(sortBy: [SortDescriptor(\.title)]), context: view)
        try controller.performFetch()
        var changes: [FetchedResultsChange] = []
        controller.onChange = { changes.append($0) }
        let observed = Locked(false)
        withObservationTracking { _ = book.title } onChange: { observed.withLock { $0 = true } }
        var snapshots = container.snapshots(of: FetchRequest<Book>(sortBy: [SortDescriptor(\.title)])).makeAsyncIterator()
        #expect(try await snapshots.next()?.map(\.title) == ["Before"])

        let events = view.events
        try runWriter(store: url, bookKey: book.objectID.primaryKey!, title: "After", history: true)
        #expect(try await events.first(within: .seconds(5)) { $0.isMerge } != nil)
        #expect(controller.fetchedObjects.count == 2)
        #expect(controller.fetchedObjects.first?.title == "After")
        #expect(!changes.isEmpty)
        #expect(observed.value)
        let seen = try #require(try await snapshots.next())
        #expect(seen.contains { $0.title == "After" })
    }

    @Test @MainActor
    func historyAnotherWriterPrunedBeforeItWasReadDoesNotStopLaterChanges() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Pruned.sqlite")
        let other = try await watchedContainer(url, name: "Other")
        let id = try other.perform { context in
            let book = Book(title: "First", year: 1)
            context.insert(book)
            try context.save()
            return book.objectID
        }
        let watcher = try await watchedContainer(url)
        let view = watcher.viewContext
        let book = try view.existingObject(with: id, as: Book.self)
        #expect(book.title == "First")
        let incomplete = Task { () -> RemoteChange? in
            for await change in watcher.remoteChanges where change.isIncomplete { return change }
            return nil
        }

        // The other writer saves twice and prunes the history before its last
        // save, most likely before the watcher (polling every 20 ms) read it.
        try other.perform { context in
            try context.existingObject(with: id, as: Book.self).title = "Second"
            try context.save()
            try context.existingObject(with: id, as: Book.self).year = 2
            try context.save()
            _ = try other.deleteHistory(before: try #require(try other.currentHistoryToken()))
        }
        #expect(await eventually { book.title == "Second" && book.year == 2 })
        // Changes made after the prune keep arriving.
        try other.perform { context in
            try context.existingObject(with: id, as: Book.self).title = "Third"
            try context.save()
        }
        #expect(await eventually { book.title == "Third" })
        incomplete.cancel()
        if let event = await incomplete.value {
            // The watcher missed history: it refreshed, and says what it knows.
            #expect(event.transactions.isEmpty)
            #expect(event.historyToken != nil)
        }
    }
}
