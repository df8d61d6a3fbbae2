import ArgumentParser
import Foundation
import Strata
import StrataTestModels

/// The roles a trial starts copies of this program in. Not for direct use.
struct ChildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child", abstract: "A role in a multi-process trial.", shouldDisplay: false,
        subcommands: [KilledWriter.self, CountingWorker.self, FirstOpener.self, StoreProbe.self, ReadOnlyReader.self])
}

/// Opens a file store of the library schema.
func openLibrary(at path: String, name: String, verifiesIntegrity: Bool = false) async throws -> PersistentContainer {
    let container = try PersistentContainer(name: name, schema: librarySchema)
    var description = StoreDescription(url: URL(fileURLWithPath: path))
    description.verifiesIntegrity = verifiesIntegrity
    container.storeDescriptions = [description]
    try await container.loadPersistentStores()
    return container
}

/// Prints a line and pushes it out at once: a parent reads acknowledgements
/// from the pipe after killing the writer.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Saves numbered transactions of `rows` books each (or batch inserts them)
/// until it is killed, printing `acked <n>` after each returns.
struct KilledWriter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "writer")

    @Option var store: String
    @Option var rows = 20
    @Option(help: "save or batch") var mode = "save"

    func run() async throws {
        quietLogs()
        let container = try await openLibrary(at: store, name: "Writer")
        let context = container.newContext()
        // Where an earlier writer on this file left off.
        var transaction = try context.fetch(FetchRequest<Book>()).map(\.year).max() ?? 0
        say("ready")
        while true {
            transaction += 1
            if mode == "batch" {
                let objects: [[String: any Sendable]] = (0..<rows).map { ["title": "t\(transaction)-\($0)", "year": transaction] }
                try container.execute(BatchInsertRequest<Book>(objects: objects))
            } else {
                for row in 0..<rows { context.insert(Book(title: "t\(transaction)-\(row)", year: transaction)) }
                try context.save()
                context.reset()
            }
            say("acked \(transaction)")
        }
    }
}

/// Adds one to the counter book's year `increments` times under a merge
/// policy, retrying a save that fails with a conflict.
struct CountingWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "counter")

    @Option var store: String
    @Option var increments = 100
    @Option var policy = "error"

    func run() async throws {
        quietLogs()
        let container = try await openLibrary(at: store, name: "Counter")
        let context = container.newContext()
        context.mergePolicy = try Self.policy(named: policy)
        var retries = 0
        for _ in 0..<increments {
            while true {
                let counter = try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == "counter" }))
                guard let book = counter.first else { throw ValidationError("no counter in the store") }
                book.year += 1
                do {
                    try context.save()
                    break
                } catch let error as StrataError where error.code == .mergeConflict {
                    retries += 1
                    context.rollback()
                    context.reset()
                }
            }
        }
        say("retries \(retries)")
    }

    static let policyNames = ["error", "mergeByPropertyStoreTrump", "mergeByPropertyObjectTrump", "overwrite", "rollback"]

    static func policy(named name: String) throws -> MergePolicy {
        switch name {
        case "error": .error
        case "mergeByPropertyStoreTrump": .mergeByPropertyStoreTrump
        case "mergeByPropertyObjectTrump": .mergeByPropertyObjectTrump
        case "overwrite": .overwrite
        case "rollback": .rollback
        default: throw ValidationError("unknown merge policy \(name)")
        }
    }
}

/// Opens a store that may not exist yet, saves one book, and reports.
struct FirstOpener: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "open")

    @Option var store: String
    @Option var name = "opener"

    func run() async throws {
        quietLogs()
        do {
            let container = try await openLibrary(at: store, name: "Opener")
            try container.perform { context in
                context.insert(Book(title: name, year: 1))
                try context.save()
            }
            say("ok")
        } catch {
            say("error \(error)")
            throw ExitCode(1)
        }
    }
}

/// Opens a possibly damaged store with the integrity check and reads every
/// object, then saves one: exit 0 when it could, 3 when Strata refused it with
/// an error. Anything else (a signal) is a trap. With `--no-save` it reads
/// only and closes the store, which must leave the file as it was.
struct StoreProbe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "probe")

    @Option var store: String
    @Flag var noSave = false

    func run() async throws {
        quietLogs()
        var opened: PersistentContainer?
        defer { try? opened?.persistentStoreCoordinator.close() }
        do {
            let container = try await openLibrary(at: store, name: "Probe", verifiesIntegrity: true)
            opened = container
            try container.perform { context in
                for book in try context.fetch(FetchRequest<Book>()) { _ = (book.title, book.year, book.rating, book.author?.name) }
                for author in try context.fetch(FetchRequest<Author>()) { _ = (author.email, author.books.count) }
                guard !noSave else { return }
                context.insert(Book(title: "after", year: 0))
                try context.save()
            }
            say("opened")
        } catch let error as StrataError {
            say("refused \(error.code)")
            throw ExitCode(3)
        }
    }
}

/// Opens a store read-only, reads it, and checks that a save is refused:
/// exit 0 when all of that held.
struct ReadOnlyReader: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "read-only")

    @Option var store: String

    func run() async throws {
        quietLogs()
        let container = try PersistentContainer(name: "Reader", schema: librarySchema)
        var description = StoreDescription(url: URL(fileURLWithPath: store))
        description.isReadOnly = true
        container.storeDescriptions = [description]
        try await container.loadPersistentStores()
        let count = try container.perform { try $0.count(for: FetchRequest<Book>()) }
        do {
            try container.perform { context in
                context.insert(Book(title: "refused", year: 0))
                try context.save()
            }
            say("saved on a read-only store")
            throw ExitCode(1)
        } catch let error as StrataError where error.code == .readOnlyStore {
            say("read \(count) books; the save was refused")
        }
    }
}
