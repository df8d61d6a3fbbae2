import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import Metrics
import MetricsTestKit
import Strata
import StrataTestModels
import StrataTesting
import Testing
import Tracing

/// Logging, spans and metrics as a server team relies on them: the app's
/// logger with Strata's metadata, no error logged that the caller receives,
/// and spans and metrics named as OpenTelemetry's database conventions say.
@Suite("Logs, spans and metrics")
struct ObservabilityTests {
    /// A logger that keeps every entry, from trace up.
    private func recordingLogger() -> (Logger, InMemoryLogHandler) {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "app") { _ in handler }
        logger.logLevel = .trace
        return (logger, handler)
    }

    private struct AppError: Error {}

    @Test(arguments: testedStoreKinds)
    func errorsTheCallerReceivesAreNotLoggedAboveDebug(_ kind: StoreKind) async throws {
        let (logger, log) = recordingLogger()
        let stack = try await TestStack(kind, schema: librarySchema, name: "Library", logger: logger)
        let reported = LockedErrors()
        stack.container.logError = { reported.append($0) }
        try stack.container.perform { $0.insert(Author(email: "a@example.com", name: "A")) }
        #expect(throws: StrataError.self) {
            try stack.container.perform { $0.insert(Author(email: "a@example.com", name: "B")) }
        }
        #expect(throws: AppError.self) {
            try stack.container.perform { _ in throw AppError() }
        }
        let loud = log.entries.filter { $0.level > .debug }
        #expect(loud.isEmpty, "\(loud.map(\.message))")
        let noted = log.entries.filter { $0.metadata["strata.error"] != nil }
        #expect(noted.count == 1, "Strata's own error, once, at debug: \(noted.map(\.message))")
        #expect(noted.first?.level == .debug)
        #expect(noted.first?.metadata["strata.error"] == "uniquenessConflict")
        #expect(noted.first?.metadata["strata.container"] == "Library")
        #expect(noted.first?.metadata["strata.context"] == "perform")
        #expect(!log.entries.contains { "\($0.message)".contains("AppError") }, "an app's error is the app's to log")
        #expect(reported.count == 2, "logError still hears both")
    }

    @Test func storesAndContextsLogWithTheirNames() async throws {
        let (logger, log) = recordingLogger()
        let directory = TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        let first = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV1.self))
        first.storeDescriptions = [StoreDescription(url: url)]
        try await first.loadPersistentStores()
        try first.persistentStoreCoordinator.close()
        let second = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV2.self), logger: logger)
        second.storeDescriptions = [StoreDescription(url: url)]
        try await second.loadPersistentStores()
        let migration = try #require(log.entries.first { "\($0.message)".hasPrefix("Migrat") }, "a migration is told at info")
        #expect(migration.level == .info)
        #expect(migration.metadata["strata.container"] == "Notes" && migration.metadata["strata.store"] == "Notes.sqlite")

        // An error no caller receives (an accessor's) is a warning, with the context's name and author.
        let context = second.newContext()
        context.name = "editor"
        context.transactionAuthor = "app"
        let note = NotesV2.Note(title: "t", text: "x")
        context.insert(note)
        try context.save()
        let id = note.objectID
        context.refresh(note, mergeChanges: false)   // a fault again: the next read loads the row
        try second.perform { other in other.delete(try other.existingObject(with: id, as: NotesV2.Note.self)) }
        _ = note.title
        let warning = try #require(log.entries.first { $0.level == .warning }, "\(log.entries.map(\.message))")
        #expect(warning.metadata["strata.context"] == "editor" && warning.metadata["strata.author"] == "app")
        #expect(warning.metadata["strata.error"] == "objectNotFound")
    }

    @Test(arguments: testedStoreKinds)
    func operationsAreClientSpansWithDatabaseAttributes(_ kind: StoreKind) async throws {
        let tracer = InMemoryTracer()
        let stack = try await TestStack(kind, schema: librarySchema, name: "Library")
        try withTracer(tracer) {
            try stack.container.perform { context in
                context.transactionAuthor = "importer"
                context.insert(Book(title: "Dune", year: 1965))
                context.insert(Book(title: "Emma", year: 1815))
            }
            _ = try stack.container.perform { try $0.fetch(FetchRequest<Book>(predicate: #Predicate { $0.year > 1900 })) }
            try stack.container.execute(BatchDeleteRequest<Book>(predicate: #Predicate { $0.year < 1900 }))
        }
        let spans = tracer.finishedSpans
        let system = kind == .postgres ? "postgresql" : kind == .memory ? "strata.memory" : "sqlite"

        let save = try #require(spans.first { $0.operationName.hasPrefix("save ") }, "\(spans.map(\.operationName))")
        #expect(save.kind == .client)
        #expect(save.attributes.get("db.system.name") == .string(system))
        #expect(save.attributes.get("db.operation.name") == .string("save"))
        #expect(save.attributes.get("strata.save.inserted") == .int64(2))
        #expect(save.attributes.get("strata.author") == .string("importer"))
        #expect(save.attributes.get("db.namespace") != nil)

        let fetch = try #require(spans.first { $0.operationName == "fetch Book" })
        #expect(fetch.attributes.get("db.collection.name") == .string("Book"))
        #expect(fetch.attributes.get("db.response.returned_rows") == .int64(1))

        let batch = try #require(spans.first { $0.operationName == "batch delete Book" })
        #expect(batch.attributes.get("db.response.returned_rows") == .int64(1))

        if kind == .postgres {
            // Each statement is a span under the operation that sent it, with its text and no values.
            let statements = spans.filter { $0.attributes.get("db.query.text") != nil }
            let underSave = statements.filter { $0.parentSpanID == save.spanID }
            #expect(!underSave.isEmpty, "\(statements.map(\.operationName))")
            #expect(statements.allSatisfy { $0.attributes.get("server.port") != nil })
            #expect(!statements.contains { "\($0.attributes.get("db.query.text") ?? .string(""))".contains("Dune") })
        }
    }

    @Test(arguments: testedStoreKinds)
    func aFailedSaveSaysWhyOnItsSpan(_ kind: StoreKind) async throws {
        let tracer = InMemoryTracer()
        let stack = try await TestStack(kind, schema: librarySchema)
        try stack.container.perform { $0.insert(Author(email: "a@example.com", name: "A")) }
        withTracer(tracer) {
            _ = try? stack.container.perform { $0.insert(Author(email: "a@example.com", name: "B")) }
        }
        let save = try #require(tracer.finishedSpans.first { $0.operationName.hasPrefix("save ") })
        #expect(save.attributes.get("error.type") == .string("uniquenessConflict"))
        #expect(save.status?.code == .error)
    }

    @Test(arguments: testedStoreKinds)
    func metricsCountOperationsRowsAndConflicts(_ kind: StoreKind) async throws {
        let metrics = TestMetrics()
        let stack = try await withMetricsFactory(metrics) {
            try await TestStack(kind, schema: librarySchema)
        }
        try stack.container.perform { context in
            for year in 1..<4 { context.insert(Book(title: "B\(year)", year: year)) }
        }
        _ = try stack.container.perform { try $0.fetch(FetchRequest<Book>()) }
        // Two contexts change one book: the second save meets a merge conflict.
        let first = stack.container.newContext(), second = stack.container.newContext()
        let books = try first.fetch(FetchRequest<Book>())
        let one = try #require(books.first)
        let two = try second.existingObject(with: one.objectID, as: Book.self)
        one.year = 100
        try first.save()
        two.year = 200
        #expect(throws: StrataError.self) { try second.save() }

        let system = kind == .postgres ? "postgresql" : kind == .memory ? "strata.memory" : "sqlite"
        let saves = metrics.timers.filter {
            $0.label == "db.client.operation.duration" && $0.dimensions.contains { $0 == ("db.operation.name", "save") }
                && !$0.dimensions.contains { $0.0 == "error.type" }
        }
        #expect(saves.reduce(0) { $0 + $1.values.count } == 2, "two saves went through")
        #expect(saves.allSatisfy { $0.dimensions.contains { $0 == ("db.system.name", system) } })
        let failed = metrics.timers.filter { $0.dimensions.contains { $0 == ("error.type", "mergeConflict") } }
        #expect(failed.reduce(0) { $0 + $1.values.count } == 1)
        #expect(metrics.counterTotal(label: "strata.rows.written") == 4)
        #expect(metrics.counterTotal(label: "strata.rows.read") >= 3)
        #expect(metrics.counterTotal(label: "strata.conflicts", dimensions: [("kind", "merge")]) >= 1)
        if kind == .postgres {
            #expect(!(try metrics.expectTimer(
                "db.client.connection.wait_time",
                [("db.system.name", "postgresql"), ("db.client.connection.pool.name", stackNamespace(stack))]).values.isEmpty))
        }
    }

    /// The PostgreSQL namespace a test stack's store metrics carry.
    private func stackNamespace(_ stack: TestStack) -> String {
        (try? stack.container.persistentStoreCoordinator.loadedStore().telemetry.identity.namespace) ?? ""
    }
}

/// Errors a `logError` hook received, from any thread.
final class LockedErrors: Sendable {
    private let errors = Locked<[any Error]>([])
    func append(_ error: any Error) { errors.withLock { $0.append(error) } }
    var count: Int { errors.withLock { $0.count } }
}
