import Foundation
import GRDB
import Strata
import StrataTestModels

/// Damaged store files, hostile names and hostile values.
///
/// Damaged files are opened by a child process with the integrity check on:
/// it must open the store and read it, or refuse it with a `StrataError`, and
/// a refused file must be left byte for byte as it was, with no `-wal` or
/// `-shm` beside it. A child that dies of a signal is a trap.
///
/// Before that, each file (and a clean store, one with a damaged data page
/// the integrity check passes, and one with a foreign value) is opened, read
/// and closed without a save, which must leave it byte for byte as it was
/// whatever the reads found: only a save, a migration or a repair writes.
struct BadInputTrial {
    var fuzzedFiles: Int
    var seed: UInt64

    func run() async throws -> TrialReport {
        var report = TrialReport(name: "bad input: \(fuzzedFiles) damaged files, hostile names and values")
        let scratch = try Scratch("bad-input")
        defer { scratch.remove() }
        let original = try await makeStore(at: scratch.file("Original.sqlite"))
        var random = SeededGenerator(seed: seed)
        var opened = 0, refused = 0, traps = 0, touched = 0, untyped = 0, readsThatWrote = 0
        /// Opens, reads and closes without saving: true when the file stayed as it was.
        func readOnlySession(_ url: URL, _ bytes: Data, _ damage: String) throws -> Bool {
            let (status, lines) = try ChildProcess(["child", "probe", "--store", url.path, "--no-save"]).wait()
            if case .signalled(let signal) = status {
                report.fail("\(damage): reading without a save, the process died of signal \(signal)")
            }
            let sideFiles = ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: url.path + $0) }
            guard try Data(contentsOf: url) == bytes, sideFiles.isEmpty else {
                readsThatWrote += 1
                report.fail("\(damage): opening and reading without a save (\(lines.last ?? "")) changed the file or left \(sideFiles)")
                return false
            }
            return true
        }
        for (name, bytes) in try Self.readableStates(original) {
            let url = scratch.file("Read-\(name).sqlite")
            try bytes.write(to: url)
            _ = try readOnlySession(url, bytes, name)
        }
        for index in 0..<fuzzedFiles {
            let url = scratch.file("Fuzzed-\(index).sqlite")
            let (bytes, damage) = Self.damage(original, using: &random)
            try bytes.write(to: url)
            guard try readOnlySession(url, bytes, damage) else { continue }
            let (status, lines) = try ChildProcess(["child", "probe", "--store", url.path]).wait()
            switch status {
            case .exited(0):
                opened += 1
            case .exited(3):
                refused += 1
                let sideFiles = ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: url.path + $0) }
                if try Data(contentsOf: url) != bytes || !sideFiles.isEmpty {
                    touched += 1
                    report.fail("\(damage): refused (\(lines.last ?? "")) but the file was changed or got \(sideFiles)")
                }
            case .exited(let code):
                untyped += 1
                report.fail("\(damage): failed without a StrataError (exit \(code)): \(lines.last ?? "")")
            case .signalled(let signal):
                traps += 1
                report.fail("\(damage): the process died of signal \(signal)")
            }
            try? FileManager.default.removeItem(at: url)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        report.note("damaged files: \(opened) opened and read, \(refused) refused and left untouched, \(touched) changed, \(untyped) untyped failures, \(traps) traps")
        report.figures["damaged files"] = fuzzedFiles
        report.figures["traps"] = traps
        report.figures["refused files changed"] = touched
        report.note("opened, read and closed without a save: \(readsThatWrote) of \(fuzzedFiles + 3) files changed")
        report.figures["files changed by reading"] = readsThatWrote

        let (values, valueFailures) = try await hostileValues()
        report.note("hostile values: \(values) round trips through save, fetch and predicates")
        for failure in valueFailures { report.fail(failure) }
        let (names, nameFailures) = hostileNames()
        report.note("hostile names: \(names) container names refused or kept inside the default directory")
        for failure in nameFailures { report.fail(failure) }
        return report
    }

    /// A store with authors and books, closed.
    private func makeStore(at url: URL) async throws -> Data {
        let container = try PersistentContainer(name: "Original", schema: librarySchema)
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        try container.perform { context in
            for index in 0..<40 {
                let author = Author(email: "author\(index)@example.com", name: String(repeating: "name \(index) ", count: 8))
                context.insert(author)
                for number in 0..<10 {
                    let book = Book(title: "book \(index)-\(number)", year: number, rating: number % 3 == 0 ? nil : Double(number))
                    context.insert(book)
                    book.author = author
                }
            }
            try context.save()
        }
        try container.persistentStoreCoordinator.close()
        return try Data(contentsOf: url)
    }

    /// A clean store, one with a damaged data page that the integrity check
    /// passes (text bytes changed in place), and one where another program
    /// wrote a blob into a text column.
    static func readableStates(_ original: Data) throws -> [(String, Data)] {
        var damaged = original
        let text = Data("book 39-9".utf8)
        if let found = damaged.range(of: text) { damaged.replaceSubrange(found, with: Data("BOOK 39-9".utf8)) }
        let scratch = try Scratch("foreign-value")
        defer { scratch.remove() }
        let url = scratch.file("Foreign.sqlite")
        try original.write(to: url)
        try ForeignValue.write(at: url)
        return [("clean store", original), ("damaged data page", damaged), ("foreign value", try Data(contentsOf: url))]
    }

    /// One random kind of damage: scribbled bytes in a page, a zeroed page, a
    /// file cut short, a flipped header bit, garbage appended.
    static func damage(_ original: Data, using random: inout SeededGenerator) -> (Data, String) {
        var bytes = original
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pages = bytes.count / pageSize
        let page = Int.random(in: 0..<pages, using: &random)
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            let start = page * pageSize + Int.random(in: 0..<pageSize, using: &random)
            let count = min(Int.random(in: 1...64, using: &random), bytes.count - start)
            for offset in start..<(start + count) { bytes[offset] = UInt8.random(in: 0...255, using: &random) }
            return (bytes, "\(count) random bytes in page \(page + 1)")
        case 1:
            bytes.replaceSubrange((page * pageSize)..<((page + 1) * pageSize), with: Data(count: pageSize))
            return (bytes, "page \(page + 1) zeroed")
        case 2:
            let length = Int.random(in: 0..<bytes.count, using: &random)
            return (bytes.prefix(length), "cut to \(length) bytes")
        case 3:
            let offset = Int.random(in: 16..<100, using: &random)
            bytes[offset] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            return (bytes, "header byte \(offset) flipped")
        default:
            let extra = Int.random(in: 1...(2 * pageSize), using: &random)
            bytes.append(Data((0..<extra).map { _ in UInt8.random(in: 0...255, using: &random) }))
            return (bytes, "\(extra) bytes appended")
        }
    }

    /// Values at the edges of their types must read back exactly, and match
    /// a predicate that compares with them, on every kind of store.
    private func hostileValues() async throws -> (Int, [String]) {
        let titles = ["", "\0", "a\0b", "'); DROP TABLE Book; --", "\" OR 1=1 --", "%_\\", String(repeating: "x", count: 1 << 20),
                      "👩‍👩‍👧‍👦", "\u{202E}txet", "e\u{301}", "\u{FEFF}", "\r\n\t", "NULL", "0x00"]
        let years = [Int.min, Int.max, 0, -1, Int(Int32.max) + 1]
        let ratings: [Double?] = [nil, 0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e-300]
        var failures: [String] = []
        var checked = 0
        for description in [StoreDescription.inMemory(), .memory()] {
            let container = try PersistentContainer(name: "Hostile", schema: librarySchema)
            container.storeDescriptions = [description]
            try await container.loadPersistentStores()
            try container.perform { context in
                for (index, title) in titles.enumerated() {
                    let year = years[index % years.count], rating = ratings[index % ratings.count]
                    context.insert(Book(title: title, year: year, rating: rating))
                }
                try context.save()
            }
            try container.perform { context in
                for (index, title) in titles.enumerated() {
                    let year = years[index % years.count], rating = ratings[index % ratings.count]
                    let found = try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == title && $0.year == year }))
                    checked += 1
                    guard found.count == 1, let book = found.first else {
                        failures.append("\(description.type): \(String(reflecting: title.prefix(20))) found \(found.count) times")
                        continue
                    }
                    if book.title != title || book.year != year || book.rating != rating
                        || book.rating.map({ $0.sign }) != rating.map({ $0 == 0 ? .plus : $0.sign }) {
                        failures.append("\(description.type): \(String(reflecting: title.prefix(20))) read back as \(String(reflecting: book.title.prefix(20))), \(book.year), \(String(describing: book.rating))")
                    }
                }
            }
        }
        // NaN has no stored form (SQLite has none): a typed error, nothing saved.
        let container = try PersistentContainer(name: "NaN", schema: librarySchema)
        container.storeDescriptions = [.inMemory()]
        try await container.loadPersistentStores()
        do {
            try container.perform { context in
                context.insert(Book(title: "nan", year: 0, rating: .nan))
                try context.save()
            }
            let stored = try container.perform { try $0.fetch(FetchRequest<Book>()).first?.rating }
            if let stored, !stored.isNaN { failures.append("NaN read back as \(stored)") }
        } catch is StrataError {
            // Refused with a typed error: fine.
        }
        return (checked, failures)
    }

    /// Container names that could name a file outside the default directory
    /// must be refused; the others must stay inside it.
    private func hostileNames() -> (Int, [String]) {
        let names = ["..", "../x", "/etc/passwd", "a/b", "..\\x", ".hidden", "", " ", "\0", "a\0b", "con", "x\ny",
                     String(repeating: "n", count: 300), "~", "$HOME", "%2e%2e", "名前", "a..b"]
        var failures: [String] = []
        let directory = PersistentContainer.defaultDirectoryURL.standardizedFileURL.path
        for name in names {
            guard let container = try? PersistentContainer(name: name, schema: librarySchema) else { continue }
            let url = container.storeDescriptions[0].url.standardizedFileURL
            if url.deletingLastPathComponent().path != directory {
                failures.append("the container name \(String(reflecting: name)) places its store at \(url.path)")
            }
        }
        return (names.count, failures)
    }
}

/// A value another program wrote that no property can read: a blob where a
/// book's title (text) is stored.
enum ForeignValue {
    static func write(at url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "UPDATE Book SET title = x'C0FF' WHERE pk = 1") }
        try queue.close()
    }
}
