import Foundation
import GRDB
import Strata
import Testing

/// Entity `A` with a unique `b_c`, and entity `A_b` with a unique `c`: both
/// would name their index `A_b_c`.
@Model final class A {
    @Attribute(.unique) var b_c: String = ""
    init() {}
}

@Model final class A_b {
    @Attribute(.unique) var c: String = ""
    init() {}
}

@Suite("Store file safety")
struct StoreFileSafetyTests {
    /// A closed file store holding a few hundred notes, so it spans many pages.
    private func closedStore(in directory: TemporaryDirectory, name: String = "Safe") async throws -> URL {
        let url = directory.file("\(name).sqlite")
        let container = try PersistentContainer(name: name, schema: Schema(Note.self))
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        try container.perform { context throws in
            for index in 0..<400 { context.insert(Note(text: String(repeating: "note \(index) ", count: 20))) }
            try context.save()
        }
        try container.persistentStoreCoordinator.close()
        return url
    }

    private func load(_ url: URL, schema: Schema = Schema(Note.self), configure: (inout StoreDescription) -> Void = { _ in })
        async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Safe", schema: schema)
        var description = StoreDescription(url: url)
        configure(&description)
        container.storeDescriptions = [description]
        try await container.loadPersistentStores()
        return container
    }

    private func sideFiles(of url: URL) -> [String] {
        ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: url.path + $0) }
    }

    @Test func closingFoldsTheLogBackSoNeitherFileGrowsWithOpensAndCloses() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        var sizes: [Int] = []
        for _ in 0..<6 {
            let container = try await load(url)
            _ = try container.perform { try $0.count(for: FetchRequest<Note>()) }
            try container.persistentStoreCoordinator.close()
            let log = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
            #expect(log == 0)
            sizes.append(try Data(contentsOf: url).count)
        }
        #expect(Set(sizes).count == 1)
    }

    /// A closed store as other programs may leave it.
    enum OpenedState: String, CaseIterable, Sendable {
        case clean
        /// Bytes of a note's text changed: the page's structure holds, so the
        /// integrity check passes.
        case damagedPage
        /// A blob where a `String` is stored, which a fetch refuses.
        case foreignValue
    }

    @Test(arguments: OpenedState.allCases)
    func openingFetchingAndClosingLeaveTheFileByteForByteAsItWas(_ state: OpenedState) async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        switch state {
        case .clean:
            break
        case .damagedPage:
            var bytes = try Data(contentsOf: url)
            let text = Data("note 399 note 399".utf8)
            let found = try #require(bytes.range(of: text))
            bytes.replaceSubrange(found, with: Data("NOTE 399 NOTE 399".utf8))
            try bytes.write(to: url)
        case .foreignValue:
            try Self.execute("UPDATE Note SET text = x'C0FF' WHERE pk = 1", at: url)
        }
        let before = try Data(contentsOf: url)
        for _ in 0..<3 {
            let container = try await load(url) { $0.verifiesIntegrity = true }
            switch state {
            case .clean, .damagedPage:
                #expect(try container.perform { try $0.fetch(FetchRequest<Note>()).count } == 400)
            case .foreignValue:
                let error = #expect(throws: StrataError.self) { try container.perform { try $0.fetch(FetchRequest<Note>()) } }
                #expect(error?.code == .valueConversion)
            }
            try container.persistentStoreCoordinator.close()
            #expect(try Data(contentsOf: url) == before)
            #expect(sideFiles(of: url).isEmpty)
        }
    }

    /// Runs SQL on the file as another program would.
    private static func execute(_ sql: String, at url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    @Test func aStoreAnotherProgramTookOutOfWALModeIsRefusedForWritingUntouchedAndReadsReadOnly() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        let queue = try DatabaseQueue(path: url.path)
        _ = try queue.inDatabase { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") }
        try queue.close()
        let before = try Data(contentsOf: url)
        #expect(before[18] == 1 && before[19] == 1)

        let error = await #expect(throws: StrataError.self) { _ = try await load(url) }
        #expect(error?.code == .incompatibleStore && error?.message.contains("journal_mode = WAL") == true)
        #expect(try Data(contentsOf: url) == before)
        #expect(sideFiles(of: url).isEmpty)

        let reader = try await load(url) { $0.isReadOnly = true }
        #expect(try reader.perform { try $0.count(for: FetchRequest<Note>()) } == 400)
        try reader.persistentStoreCoordinator.close()
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aSaveAfterOpeningWithoutWritingStillWritesAndReadsBack() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        let before = try Data(contentsOf: url)
        let reader = try await load(url)
        _ = try reader.perform { try $0.count(for: FetchRequest<Note>()) }
        try reader.persistentStoreCoordinator.close()
        let container = try await load(url)
        try container.perform { context throws in
            context.insert(Note(text: "one more"))
            try context.save()
        }
        try container.persistentStoreCoordinator.close()
        #expect(try Data(contentsOf: url) != before)
        let again = try await load(url)
        #expect(try again.perform { try $0.count(for: FetchRequest<Note>()) } == 401)
    }

    @Test func aStoreCutShortIsRefusedLeftAsItWasAndGetsNoSideFiles() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        var bytes = try Data(contentsOf: url)
        bytes.removeLast()
        try bytes.write(to: url)

        let error = await #expect(throws: StrataError.self) { _ = try await load(url) }
        #expect(error?.code == .corruptStore)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(sideFiles(of: url).isEmpty)
    }

    @Test func aDamagedPageIsFoundByTheIntegrityCheckAndTheFileLeftAsItWas() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        var bytes = try Data(contentsOf: url)
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        // Scribble over the header of the last page, which holds notes.
        let start = bytes.count - pageSize
        for offset in start..<(start + 16) { bytes[offset] = 0xA5 }
        try bytes.write(to: url)

        let error = await #expect(throws: StrataError.self) {
            _ = try await load(url) { $0.verifiesIntegrity = true }
        }
        #expect(error?.code == .corruptStore)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(sideFiles(of: url).isEmpty)
    }

    @Test func aTableWhoseStoredSchemaLostAColumnIsRefusedBeforeAnythingIsWritten() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        // Damage no page check sees: the column's name in the schema's text.
        let queue = try DatabaseQueue(path: url.path)
        try await queue.write { db in try db.execute(sql: #"ALTER TABLE "Note" RENAME COLUMN "text" TO "tekst""#) }
        try queue.close()
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let bytes = try Data(contentsOf: url)

        let error = await #expect(throws: StrataError.self) {
            _ = try await load(url) { $0.historyTracking = true }
        }
        #expect(error?.code == .corruptStore)
        #expect(error?.message.contains("text") == true)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(sideFiles(of: url).isEmpty)
    }

    @Test func aRelationshipToARowThatDoesNotExistFailsTheIntegrityCheck() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Library.sqlite")
        let library = try await load(url, schema: librarySchema)
        try library.perform { context throws in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            let book = Book(title: "B", year: 1)
            context.insert(book)
            book.author = author
            try context.save()
        }
        try library.persistentStoreCoordinator.close()
        // A key scribbled over: the page is sound, the row it names is not there.
        var unchecked = Configuration()
        unchecked.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: url.path, configuration: unchecked)
        try await queue.write { db in try db.execute(sql: #"UPDATE "Book" SET "author" = 999"#) }
        try queue.close()
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let bytes = try Data(contentsOf: url)

        let error = await #expect(throws: StrataError.self) {
            _ = try await load(url, schema: librarySchema) { $0.verifiesIntegrity = true }
        }
        #expect(error?.code == .corruptStore)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(sideFiles(of: url).isEmpty)
    }

    @Test func aSoundStorePassesTheIntegrityCheck() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        let container = try await load(url) { $0.verifiesIntegrity = true }
        #expect(try container.perform { try $0.count(for: FetchRequest<Note>()) } == 400)
    }

    @Test func containersOpeningANewStoreAtOnceAllOpenTheSameStore() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Raced.sqlite")
        let identifiers = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<6 {
                group.addTask {
                    let container = try await load(url)
                    let identifier = try container.perform { context throws in
                        let note = Note(text: "from \(index)")
                        context.insert(note)
                        try context.save()
                        return note.objectID.storeIdentifier
                    }
                    try container.persistentStoreCoordinator.close()
                    return identifier
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(identifiers.count == 1)
        let container = try await load(url)
        #expect(try container.perform { try $0.count(for: FetchRequest<Note>()) } == 6)
    }

    @Test func aReadOnlyStoreReadsAndRefusesEveryWrite() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        let before = try Data(contentsOf: url)
        let container = try await load(url) { $0.isReadOnly = true }
        #expect(try container.perform { try $0.count(for: FetchRequest<Note>()) } == 400)
        let error = #expect(throws: StrataError.self) {
            try container.perform { context throws in
                context.insert(Note(text: "nope"))
                try context.save()
            }
        }
        #expect(error?.code == .readOnlyStore)
        try container.persistentStoreCoordinator.close()
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aReadOnlyStoreOpensWhereSQLiteCannotKeepItsSharedMemoryFile() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        // A folder where the `-shm` file would go: SQLite cannot create it,
        // as on a read-only mount.
        try FileManager.default.createDirectory(atPath: url.path + "-shm", withIntermediateDirectories: false)
        let container = try await load(url) { $0.isReadOnly = true }
        let texts = try container.perform { context in
            try context.fetch(FetchRequest<Note>()).map(\.text)
        }
        #expect(texts.count == 400)
        let error = #expect(throws: StrataError.self) {
            try container.perform { context throws in
                context.insert(Note(text: "nope"))
                try context.save()
            }
        }
        #expect(error?.code == .readOnlyStore)
    }

    @Test(.enabled(if: getuid() != 0, "permission bits do not bind the superuser"))
    func aReadOnlyStoreOpensInAFolderNobodyMayWrite() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path) }
        let container = try await load(url) { $0.isReadOnly = true }
        #expect(try container.perform { try $0.count(for: FetchRequest<Note>()) } == 400)
    }

    @Test func aNewStoreIsReadableOnlyByItsOwnerUnlessToldOtherwise() async throws {
        let directory = TemporaryDirectory()
        let url = try await closedStore(in: directory)
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        let shared = directory.file("Shared.sqlite")
        let container = try await load(shared) { $0.filePermissions = 0o640 }
        try container.perform { context throws in
            context.insert(Note(text: "shared"))
            try context.save()
        }
        for suffix in ["", "-wal", "-shm"] {
            let bits = try FileManager.default.attributesOfItem(atPath: shared.path + suffix)[.posixPermissions] as? Int
            #expect(bits == 0o640, "\(suffix)")
        }
    }

    @Test func aLinkToNowhereAtTheStorePathIsRefusedAndNothingIsCreated() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Linked.sqlite")
        let target = directory.file("elsewhere/Target.sqlite")
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: target.path)

        let error = await #expect(throws: StrataError.self) { _ = try await load(url) }
        #expect(error?.code == .invalidStoreLocation)
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(!FileManager.default.fileExists(atPath: target.deletingLastPathComponent().path))
    }

    @Test(arguments: ["", "  ", "../Escape", "a/b", "a\\b", ".hidden", "tab\tname", String(repeating: "n", count: 201)])
    func aContainerNameThatCannotNameAFileIsRefused(_ name: String) {
        let error = #expect(throws: StrataError.self) { _ = try PersistentContainer(name: name, schema: Schema(Note.self)) }
        #expect(error?.code == .invalidName)
    }

    @Test(arguments: ["Library", "My Library 2", "Bücher", "a..b"])
    func aPlainContainerNameIsAccepted(_ name: String) throws {
        let container = try PersistentContainer(name: name, schema: Schema(Note.self))
        #expect(container.storeDescriptions.first?.url.lastPathComponent == "\(name).sqlite")
    }

    @Test func entitiesAndPropertiesWhoseStoredNamesWouldCollideFailValidation() {
        let schema = Schema(A.self, A_b.self)
        let problem = schema.problems.first { $0.message.contains("A_b_c") }
        #expect(problem?.code == .invalidSchema)
        #expect(throws: StrataError.self) { _ = try PersistentContainer(name: "Collide", schema: schema) }
    }
}

