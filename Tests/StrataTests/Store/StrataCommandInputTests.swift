import Foundation
import Strata
import StrataTestModels
import StrataTesting
import Testing

/// What one run of a program printed and how it ended.
struct ProgramRun {
    let status: Int32
    let output: String
    let errors: String

    /// Standard error's lines, without the empty one after the last newline.
    var errorLines: [Substring] { errors.split(separator: "\n") }
}

/// Runs a program built beside the tests.
func run(_ program: String, _ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> ProgramRun {
    let process = Process()
    process.executableURL = try builtExecutable(program)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    let failed = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProgramRun(
        status: process.terminationStatus, output: String(decoding: printed, as: UTF8.self),
        errors: String(decoding: failed, as: UTF8.self))
}

/// `strata` as a newcomer meets it: arguments read as the help says, one
/// line per error, JSON on request, words a person can act on.
@Suite("The strata command's input and messages")
struct StrataCommandInputTests {
    /// A demo store in a new folder.
    private func demo() throws -> (TemporaryDirectory, String) {
        let directory = TemporaryDirectory()
        let made = try run("strata", ["demo", "--directory", directory.url.path], in: directory.url)
        #expect(made.status == 0, "\(made.errors)")
        return (directory, directory.file("StrataDemo.sqlite").path)
    }

    @Test func oneErrorIsOneLineOnStandardError() throws {
        let directory = TemporaryDirectory()
        try Data().write(to: directory.file("empty.sqlite"))
        try Data("{bad".utf8).write(to: directory.file("bad.json"))
        let cases: [[String]] = [
            ["inspect", "empty.sqlite"], ["inspect", directory.url.path], ["inspect", ""], ["inspect", "missing.sqlite"],
            ["fetch", "empty.sqlite", "Book"], ["migrate", "empty.sqlite", "--schema", "bad.json"],
            ["history", "missing.sqlite"], ["demo", "--directory", directory.file("empty.sqlite").path + "/below"],
        ]
        for arguments in cases {
            let failed = try run("strata", arguments, in: directory.url)
            #expect(failed.status == 1, "\(arguments)")
            #expect(failed.errorLines.count == 1, "\(arguments): \(failed.errors)")
            #expect(failed.errors.hasPrefix("strata: "), "\(arguments): \(failed.errors)")
            #expect(!failed.errors.contains("Error Domain") && !failed.errors.contains("UserInfo"), "\(failed.errors)")
        }
        // A store under a file: the path in words.
        let underFile = try run("strata", ["demo", "--directory", directory.file("empty.sqlite").path + "/below"], in: directory.url)
        #expect(underFile.errors.contains("empty.sqlite is a file, not a folder"), "\(underFile.errors)")
    }

    @Test func notAStoreIsSaidTheSameWayWhateverIsThere() throws {
        let directory = TemporaryDirectory()
        try Data().write(to: directory.file("empty.sqlite"))
        var reasons: [String] = []
        for path in ["empty.sqlite", directory.url.path, "missing.sqlite"] {
            let failed = try run("strata", ["inspect", path], in: directory.url)
            let message = String(failed.errorLines.first ?? "")
            #expect(message.contains(" is not a Strata store: "), "\(message)")
            reasons.append(String(message.split(separator: ": ").last ?? ""))
        }
        #expect(reasons == ["the file is empty", "it is a folder", "nothing is there"])
    }

    @Test func failuresAreJSONWhenJSONIsAsked() throws {
        let directory = TemporaryDirectory()
        let failed = try run("strata", ["inspect", "missing.sqlite", "--json"], in: directory.url)
        #expect(failed.status == 1 && failed.errorLines.count == 1)
        let object = try JSONSerialization.jsonObject(with: Data(failed.errors.utf8)) as? [String: [String: String]]
        #expect(object?["error"]?["code"] == "invalidStoreLocation")
        #expect(object?["error"]?["message"]?.contains("missing.sqlite is not a Strata store") == true)
        let usage = try run("strata", ["fetch", "x.sqlite", "Book", "--limit", "-1", "--json"], in: directory.url)
        let usageObject = try JSONSerialization.jsonObject(with: Data(usage.errors.utf8)) as? [String: [String: String]]
        #expect(usage.status != 0 && usageObject?["error"]?["code"] == "usage", "\(usage.errors)")
    }

    @Test func sortsLimitsConditionsAndDatesReadAsTheHelpSays() throws {
        let (directory, store) = try demo()
        let descending = try run("strata", ["fetch", store, "Book", "--sort", "-year", "--limit", "2"], in: directory.url)
        #expect(descending.status == 0, "\(descending.errors)")
        #expect(descending.output.contains("The Stone Sky") && descending.output.contains("2 rows of Book"), "\(descending.output)")
        let words = try run("strata", ["fetch", store, "Book", "--sort", "year desc", "--limit", "1"], in: directory.url)
        #expect(words.output.contains("The Stone Sky") && words.output.contains("1 row of Book"), "\(words.output)")
        let range = try run("strata", ["fetch", store, "Book", "--where", "year >= 1970 and year < 2000"], in: directory.url)
        #expect(range.status == 0 && range.output.contains("The Dispossessed") && range.output.contains("1 row of Book"), "\(range.output)\(range.errors)")
        let quoted = try run("strata", ["fetch", store, "Book", "--where", "title = 'Sand and Stone'"], in: directory.url)
        #expect(quoted.status == 0 && quoted.output.contains("0 rows of Book"), "an 'and' inside quotes is part of the value: \(quoted.errors)")
        let negative = try run("strata", ["fetch", store, "Book", "--limit", "-1"], in: directory.url)
        #expect(negative.status != 0 && negative.errors.contains("--limit takes a number of rows, 0 or more, not -1"), "\(negative.errors)")
        let badSort = try run("strata", ["fetch", store, "Book", "--sort", "year up"], in: directory.url)
        #expect(badSort.errors.contains("'name', 'name desc' or '-name'"), "\(badSort.errors)")
    }

    @Test func datesReadAsADayOrWithoutAZone() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Dates.sqlite")
        let container = try PersistentContainer(name: "Dates", schema: Schema(DatedEvent.self))
        container.storeDescriptions = [StoreDescription(url: url)]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        try container.perform { context in
            context.insert(DatedEvent(name: "new year", day: ISO8601DateFormatter().date(from: "2026-01-01T00:00:00Z")!))
            context.insert(DatedEvent(name: "spring", day: ISO8601DateFormatter().date(from: "2026-03-20T09:30:00Z")!))
        }
        try container.persistentStoreCoordinator.close()
        for (condition, expected) in [
            ("day = 2026-01-01", "new year"), ("day > 2026-01-01", "spring"), ("day = 2026-03-20T09:30", "spring"),
            ("day = 2026-03-20T09:30:00", "spring"), ("day = 2026-03-20T11:30:00+02:00", "spring"),
        ] {
            let found = try run("strata", ["fetch", url.path, "DatedEvent", "--where", condition], in: directory.url)
            #expect(found.status == 0 && found.output.contains(expected) && found.output.contains("1 row of DatedEvent"), "\(condition): \(found.output)\(found.errors)")
        }
    }

    @Test func countsAreWrittenInGoodEnglish() throws {
        let (directory, store) = try demo()
        let history = try run("strata", ["inspect", store], in: directory.url)
        #expect(!history.output.contains("1 transactions") && !history.output.contains(" 1 rows"), "\(history.output)")
        let one = try run("strata", ["fetch", store, "Author", "--limit", "1"], in: directory.url)
        #expect(one.output.contains("1 row of Author"), "\(one.output)")
    }

    @Test func namesTakeTheirArticle() async throws {
        #expect(withArticle("Author") == "an Author" && withArticle("Book") == "a Book" && withArticle("") == "")
        let container = try await PersistentContainer.inMemory(Author.self, Book.self)
        let id = try container.perform { context in
            let book = Book(title: "Dune", year: 1965)
            context.insert(book)
            try context.save()
            return book.objectID
        }
        #expect(throws: StrataError.self) {
            try container.perform { context in
                do {
                    _ = try context.existingObject(with: id, as: Author.self)
                } catch let error as StrataError {
                    #expect(error.message.hasSuffix("is not an Author"), "\(error.message)")
                    throw error
                }
            }
        }
    }

    @Test func inspectionJSONHasAShapeOfItsOwn() throws {
        let (directory, store) = try demo()
        let inspected = try run("strata", ["inspect", store, "--json"], in: directory.url)
        #expect(!inspected.output.contains("\"_0\"") && !inspected.output.contains("rawValue"), "\(inspected.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(inspected.output.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["store", "sizeInBytes", "storeIdentifier", "formatVersion", "schemaVersion", "fingerprint", "entities", "history"])
        let entities = try #require(object["entities"] as? [[String: Any]])
        let author = try #require(entities.first { $0["name"] as? String == "Author" })
        #expect(author["rowCount"] as? Int == 3)
        let email = try #require((author["attributes"] as? [[String: Any]])?.first { $0["name"] as? String == "email" })
        #expect(email["type"] as? String == "string" && email["optional"] as? Bool == false && email["options"] as? [String] == ["unique"])
        let books = try #require((author["relationships"] as? [[String: Any]])?.first)
        #expect(books["destination"] as? String == "Book" && books["toMany"] as? Bool == true && books["deleteRule"] as? String == "cascade")
        #expect((object["history"] as? [String: Any])?["transactionCount"] as? Int ?? 0 > 0)
    }

    @Test func anExportGoesBesideTheStoreAndAnImportMakesItsStore() throws {
        let (directory, store) = try demo()
        let elsewhere = TemporaryDirectory()
        let exported = try run("strata", ["export", store, "--to", "json"], in: elsewhere.url)
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(FileManager.default.fileExists(atPath: directory.file("StrataDemo.json").path), "beside the store")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.url.path).isEmpty, "not in the current folder")

        let target = directory.file("Restored.sqlite")
        let imported = try run("strata", ["import", target.path, directory.file("StrataDemo.json").path], in: directory.url)
        #expect(imported.status == 0 && imported.output.contains("imported 11 rows of 2 entities"), "\(imported.output)\(imported.errors)")
        let restored = try StoreReport(url: target)
        #expect(restored.entities.map(\.rowCount) == [3, 8])
        #expect(restored.fingerprint == (try StoreReport(url: URL(fileURLWithPath: store))).fingerprint)
        // The app's own schema opens the store the import made.
        let container = try PersistentContainer(name: "Restored", schema: librarySchema)
        container.storeDescriptions = [StoreDescription(url: target)]
        container.loadPersistentStores { _, error in #expect(error == nil) }
        #expect(try container.perform { try $0.count(for: FetchRequest<Book>()) } == 8)

        // An import that fails leaves no store behind.
        try Data("{\"format\": \"strata-export\"}".utf8).write(to: directory.file("broken.json"))
        let broken = try run("strata", ["import", directory.file("Never.sqlite").path, directory.file("broken.json").path], in: directory.url)
        #expect(broken.status == 1 && !FileManager.default.fileExists(atPath: directory.file("Never.sqlite").path))
    }

    @Test func theVersionIsPrinted() throws {
        let directory = TemporaryDirectory()
        let version = try run("strata", ["--version"], in: directory.url)
        #expect(version.status == 0 && version.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }
}

@Model final class DatedEvent {
    var name: String
    var day: Date
    init(name: String, day: Date) { self.name = name; self.day = day }
}
