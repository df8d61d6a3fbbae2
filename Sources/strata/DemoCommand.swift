import ArgumentParser
import Foundation
import Strata
#if PostgreSQL
import StrataPostgres
#endif

/// `strata demo`: creates or reopens a store, imports sample data in the
/// background and shows the view context receiving it.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Import sample data in a background context and watch the view context receive it.")

    @Option(name: .long, help: "The folder for the store (default: Strata's default directory).")
    var directory: String?

    @Flag(name: .long, help: "Delete the demo store first.")
    var fresh = false

    @Option(name: .long, help: ArgumentHelp(
        "Run on PostgreSQL instead, as two servers sharing one database (or set STRATA_DEMO_POSTGRES).",
        valueName: "postgres://user@host/database"))
    var postgres: String?

    func run() async throws {
        if let url = postgres ?? ProcessInfo.processInfo.environment["STRATA_DEMO_POSTGRES"] {
            #if PostgreSQL
            try await PostgresDemo(url: url, fresh: fresh).run()
            return
            #else
            throw StoreBrowser.builtWithoutPostgres(url)
            #endif
        }
        if let directory {
            PersistentContainer.defaultDirectoryURL = URL(fileURLWithPath: directory, isDirectory: true)
        }
        let container = try PersistentContainer(name: "StrataDemo", schema: Schema(Author.self, Book.self))
        // History on, so `strata history` has something to list.
        container.storeDescriptions[0].historyTracking = true
        let storeURL = container.storeDescriptions[0].url
        if fresh {
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: storeURL.path + suffix)
            }
        }
        let existed = FileManager.default.fileExists(atPath: storeURL.path)
        try await container.loadPersistentStores()
        print("\(existed ? "Reopened" : "Created") \(storeURL.path)")
        try await DemoRun(container: container).run()
    }
}

/// The steps of the demo, on the main actor where the view context lives.
@MainActor
struct DemoRun {
    let container: PersistentContainer

    func run() async throws {
        let view = container.viewContext
        let before = try view.count(for: FetchRequest<Book>())
        print("The view context sees \(CommandOutput.count(before, "book")) before the import.")

        // 1. Import the catalog in a background context; authors already in the
        //    store (matched by their unique email) are skipped.
        let imported = try await container.performBackgroundTask { context in
            context.name = "importer"
            context.transactionAuthor = "strata demo"
            var inserted = 0
            for entry in SampleCatalog.entries {
                let email = entry.email
                let existing = try context.fetch(FetchRequest<Author>(predicate: #Predicate { $0.email == email }))
                guard existing.isEmpty else { continue }
                let author = Author(email: entry.email, name: entry.name)
                context.insert(author)
                for (title, year) in entry.books {
                    let book = Book(title: title, year: year)
                    book.author = author
                    inserted += 1
                }
            }
            try context.save()
            return inserted
        }
        print("The background importer inserted \(CommandOutput.count(imported, "book")) in one save.")

        let request = FetchRequest<Book>(sortBy: [SortDescriptor(\.year), SortDescriptor(\.title)])
        let books = try view.fetch(request)
        print("The view context now sees \(books.count) books:")
        for book in books {
            print("  \(book.year)  \(book.title) — \(book.author?.name ?? "?") (\(format(book.rating)))")
        }

        // 2. Rate the oldest book in the background while the view context holds it,
        //    and wait for the merge to reach the object on the main actor.
        guard let held = books.first else { return }
        let heldID = held.objectID
        let previous = held.rating
        var mergedAt: ContinuousClock.Instant?
        let observation = view.onMerge { _ in mergedAt = mergedAt ?? .now }
        let (newRating, savedAt) = try await container.performBackgroundTask { context in
            let book = try context.existingObject(with: heldID, as: Book.self)
            book.rating = ((book.rating ?? 3.5) + 0.5).truncatingRemainder(dividingBy: 5.5)
            // The main actor may take the change in before `save()` returns here,
            // so the time is taken as the save starts.
            let savingAt = ContinuousClock.now
            try context.save()
            return (book.rating, savingAt)
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while mergedAt == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        withExtendedLifetime(observation) {}
        print("A background context rated \"\(held.title)\" \(format(newRating)) (was \(format(previous))).")
        if let mergedAt {
            let latency = mergedAt - savedAt
            let microseconds = latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000
            print("The object the view context already held shows \(format(held.rating)): merged automatically "
                + "on the main actor \(microseconds) µs after the background save began.")
        } else {
            print("The view context did not receive the change within 5 seconds.")
            throw ExitCode.failure
        }
        try await followLiveResults(holding: held)
        let authors = try view.count(for: FetchRequest<Author>())
        print("Store totals: \(authors) authors, \(try view.count(for: FetchRequest<Book>())) books.")
    }

    /// 3. A results controller on the view context follows background saves;
    ///    the view context undoes its own edit.
    private func followLiveResults(holding held: Book) async throws {
        let view = container.viewContext
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Book>(sortBy: [SortDescriptor(\.year), SortDescriptor(\.title)]),
            context: view, sectionBy: \.year)
        try controller.performFetch()
        var changes: [FetchedResultsChange] = []
        controller.onChange = { changes.append($0) }

        let newID = try await container.performBackgroundTask { context in
            let book = Book(title: "A Book Written Today", year: 2026)
            context.insert(book)
            try context.save()
            return book.objectID
        }
        view.mergePendingChanges()
        for case .insert(let offset, _, _) in changes.last?.difference ?? CollectionDifference([])! {
            print("The results controller placed the new book at \(offset) of \(controller.fetchedObjects.count), "
                + "in section \(controller.sections.last?.name ?? "?").")
        }
        try await container.performBackgroundTask { context in
            context.delete(try context.existingObject(with: newID, as: Book.self))
            try context.save()
        }
        view.mergePendingChanges()
        print("After a background deletion it holds \(CommandOutput.count(controller.fetchedObjects.count, "book")) "
            + "(\(CommandOutput.count(changes.count, "change")) reported).")

        let title = held.title
        held.title = title.uppercased()
        view.undo()
        print("The view context undid an edit of \"\(title)\": \(held.title == title ? "restored" : "not restored"), "
            + "unsaved changes: \(view.hasChanges).")
    }
}

/// A rating as the demo prints it.
private func format(_ rating: Double?) -> String {
    rating.map { String(format: "%.1f", $0) } ?? "unrated"
}
