// A server-style importer on Strata: one background context per feed imports concurrently,
// upserting items by guid; a history consumer resumes from the token it kept in the store;
// the main-actor view context merges every save. Run it twice: the second run updates.
//   swift run --package-path Examples importer-example --feeds 3 [--items 20] [--store DIR]   (or set IMPORTER_STORE)

import Foundation
import Strata

@Model final class Feed {
    @Attribute(.unique) var name: String
    var title: String
    @Relationship(deleteRule: .cascade, inverse: \Item.feed) var items: [Item] = []

    init(name: String, title: String) {
        self.name = name
        self.title = title
    }
}

@Model final class Item {
    @Attribute(.unique) var guid: String
    var title: String
    var published: Date
    var feed: Feed?

    init(guid: String, title: String, published: Date) {
        self.guid = guid
        self.title = title
        self.published = published
    }
}

struct ImporterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct Options: Sendable {
    var storeDirectory: String?
    var feeds = 3
    var items = 20
    var showsUsage = false

    static let usage = """
    usage: importer-example [--store DIR] [--feeds N] [--items N]
      --store DIR   where the store lives (default: $IMPORTER_STORE, else Strata's default directory)
      --feeds N     feeds imported concurrently, one background context each (default 3)
      --items N     items per feed (default 20)
    """

    init(_ arguments: [String], environment: [String: String]) throws(ImporterError) {
        storeDirectory = environment["IMPORTER_STORE"]
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help": showsUsage = true
            case "--store": storeDirectory = try Self.value(after: argument, in: &rest)
            case "--feeds": feeds = try Self.count(after: argument, in: &rest, upTo: 50)
            case "--items": items = try Self.count(after: argument, in: &rest, upTo: 100_000)
            default: throw ImporterError("unknown argument \(argument) (try --help)")
            }
        }
    }

    private static func value(after option: String, in rest: inout ArraySlice<String>) throws(ImporterError) -> String {
        guard let value = rest.popFirst() else { throw ImporterError("\(option) needs a value") }
        return value
    }

    private static func count(after option: String, in rest: inout ArraySlice<String>, upTo limit: Int) throws(ImporterError) -> Int {
        let text = try value(after: option, in: &rest)
        guard let count = Int(text), (1...limit).contains(count) else {
            throw ImporterError("\(option) takes a number from 1 to \(limit), not \(text)")
        }
        return count
    }
}

/// Item changes one feed's importer made, as history recorded them.
struct Tally: Sendable {
    var inserted = 0
    var updated = 0
}

enum Importer {
    /// Imports every feed at once, each in a background context of its own, and
    /// returns how many items each saved. Only values cross the task boundaries.
    static func importFeeds(into container: PersistentContainer, feeds: Int, items: Int, run: Int) async throws -> [String: Int] {
        try await withThrowingTaskGroup(of: (String, Int).self, returning: [String: Int].self) { group in
            for number in 1...feeds {
                group.addTask {
                    let name = "feed-\(number)"
                    // Object trump turns an insert whose unique key a stored row holds
                    // into an update of that row, so a re-import upserts instead of failing.
                    // The author names the feed in history, for the consumer.
                    let importer = container.newBackgroundContext(
                        name: "import \(name)", transactionAuthor: name, mergePolicy: .mergeByPropertyObjectTrump)
                    let saved = try await importer.perform { context in
                        let feed = Feed(name: name, title: "Feed \(number)")
                        context.insert(feed)
                        let start = Date(timeIntervalSince1970: 1_750_000_000 + Double(number) * 86_400)
                        for index in 1...items {
                            let item = Item(
                                guid: "\(name)/\(index)", title: "Story \(index) of \(name), edition \(run)",
                                published: start.addingTimeInterval(Double(index) * 60))
                            context.insert(item)
                            item.feed = feed
                        }
                        try context.save()          // one transaction per feed
                        return items
                    }
                    return (name, saved)
                }
            }
            var saved: [String: Int] = [:]
            for try await (name, count) in group { saved[name] = count }
            return saved
        }
    }
}

enum HistoryConsumer {
    /// The app metadata key holding the last token this consumer processed.
    static let tokenKey = "importer.historyToken"

    /// Reads the item changes saved since the last run's token, per feed, then
    /// keeps the newest token in the store and prunes what it has processed.
    static func catchUp(_ container: PersistentContainer) throws -> (transactions: Int, tallies: [String: Tally]) {
        let token = try container.metadataValue(forKey: tokenKey, as: Data.self)
            .map { try JSONDecoder().decode(HistoryToken.self, from: $0) }
        var request = HistoryRequest(after: token)
        request.entityNames = ["Item"]
        let transactions: [HistoryTransaction]
        do {
            transactions = try container.fetchHistory(request)
        } catch let error as StrataError where error.code == .historyTokenExpired {
            // What this reader missed was pruned; a real consumer would resync
            // from the objects, then follow history from now on.
            if let current = try container.currentHistoryToken() { try keep(current, in: container) }
            return (0, [:])
        }
        var tallies: [String: Tally] = [:]
        for transaction in transactions {
            let feed = transaction.author ?? "unknown"
            for change in transaction.changes {
                switch change.changeType {
                case .insert: tallies[feed, default: Tally()].inserted += 1
                case .update: tallies[feed, default: Tally()].updated += 1
                case .delete: break
                }
            }
        }
        // Advance to what was read, not to the current token: a save committed
        // since the fetch is read next time.
        if let newest = transactions.last?.token {
            try keep(newest, in: container)
            // This program is the store's only history reader, so it may prune.
            try container.deleteHistory(before: newest)
        }
        return (transactions.count, tallies)
    }

    private static func keep(_ token: HistoryToken, in container: PersistentContainer) throws {
        try container.setMetadata(JSONEncoder().encode(token), forKey: tokenKey)
    }
}

/// The whole run, on the main actor, where the view context lives.
@MainActor
func runImporter(_ options: Options) async throws {
    let container = try PersistentContainer(name: "Importer", schema: Schema(Feed.self, Item.self))
    if let directory = options.storeDirectory, !directory.isEmpty {
        let url = URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent("Importer.sqlite")
        container.storeDescriptions = [StoreDescription(url: url)]
    }
    container.storeDescriptions[0].historyTracking = true
    try await container.loadPersistentStores()
    // App metadata lives in the store itself, so the run count follows the store file.
    let previousRuns = try container.metadataValue(forKey: "importer.runs", as: Int.self) ?? 0
    let run = previousRuns + 1
    print("Run \(run) on \(container.storeDescriptions[0].url.path)")

    // The view context merges other contexts' saves on its own. Hold one item
    // (from an earlier run) to see a merge update it in place, and count merges.
    let view = container.viewContext
    let itemsBefore = try view.count(for: FetchRequest<Item>())
    let watchedGUID = "feed-1/1"
    var watchedRequest = FetchRequest<Item>(predicate: #Predicate { $0.guid == watchedGUID })
    watchedRequest.fetchLimit = 1
    let watched = try view.fetch(watchedRequest).first
    let watchedTitle = watched?.title
    var mergedSaves = 0
    let observation = view.onMerge { changes in
        if !changes.isEmpty { mergedSaves += 1 }
    }

    let clock = ContinuousClock()
    let started = clock.now
    let saved = try await Importer.importFeeds(into: container, feeds: options.feeds, items: options.items, run: run)
    let elapsed = clock.now - started
    let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    print("Imported \(counted(saved.values.reduce(0, +), "item")) into \(counted(saved.count, "feed")) concurrently in \(Int(milliseconds.rounded())) ms.")

    view.mergePendingChanges()          // usually done already, while the imports were awaited
    observation.cancel()
    let itemsAfter = try view.count(for: FetchRequest<Item>())
    print("The view context merged \(counted(mergedSaves, "save")); it sees \(counted(itemsAfter, "item")) (before: \(itemsBefore)).")
    if let watched, let watchedTitle {
        print("Its copy of \(watchedGUID) went from \"\(watchedTitle)\" to \"\(watched.title)\" without a refetch.")
    }

    let (transactions, tallies) = try HistoryConsumer.catchUp(container)
    print("History since the last run: \(counted(transactions, "transaction")) with item changes.")
    for (feed, tally) in tallies.sorted(by: { $0.key < $1.key }) {
        print("  \(feed): \(tally.inserted) inserted, \(tally.updated) updated")
    }
    try container.setMetadata(run, forKey: "importer.runs")
}

/// `1 item`, `2 items`.
func counted(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    if options.showsUsage {
        print(Options.usage)
        exit(0)
    }
    try await runImporter(options)
} catch {
    FileHandle.standardError.write(Data("importer-example: \(error)\n".utf8))
    exit(1)
}
