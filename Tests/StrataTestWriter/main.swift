import Foundation
import Strata
import StrataPostgres
import StrataTestModels

// Usage: strata-test-writer <store path> <book primary key> <new title> [history]
// Opens the store in this separate process, renames one book, inserts another,
// saves once, and prints the wall-clock time of the commit.

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "pg-counter" {
    exit(try await runPostgresCounter(arguments))
}
// Usage: strata-test-writer migrate <store path> | migrate-pg <PostgreSQL URL with ?schema=>
// Opens a version-1 victim store with version 2, migrating it, and prints
// "migrated", or "failed <error code>" and exits with 3.
if arguments.count == 3, arguments[1] == "migrate" || arguments[1] == "migrate-pg" {
    let container = try PersistentContainer(name: "Victim", schema: Schema(versionedSchema: VictimV2.self))
    container.storeDescriptions = [
        arguments[1] == "migrate" ? StoreDescription(url: URL(fileURLWithPath: arguments[2])) : try .postgres(url: arguments[2]),
    ]
    FileHandle.standardOutput.write(Data("started\n".utf8))
    do {
        try await container.loadPersistentStores()
    } catch let error as StrataError {
        FileHandle.standardOutput.write(Data("failed \(error.code)\n".utf8))
        exit(3)
    }
    FileHandle.standardOutput.write(Data("migrated\n".utf8))
    exit(0)
}
guard arguments.count >= 4, let key = Int64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: strata-test-writer <store> <book pk> <title> [history]\n".utf8))
    exit(2)
}
let container = try PersistentContainer(name: "Writer", schema: librarySchema)
var description = StoreDescription(url: URL(fileURLWithPath: arguments[1]))
description.historyTracking = arguments.count > 4 && arguments[4] == "history"
container.storeDescriptions = [description]
try await container.loadPersistentStores()
try container.perform { context in
    context.transactionAuthor = "writer-process"
    let books = try context.fetch(FetchRequest<Book>())
    guard let book = books.first(where: { $0.objectID.primaryKey == key }) else {
        throw StrataError(.objectNotFound, "no book with key \(key)")
    }
    book.title = arguments[3]
    context.insert(Book(title: "Written by another process", year: 2026))
}
print(Date().timeIntervalSince1970)
