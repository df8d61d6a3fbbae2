import Foundation
import Strata
import Synchronization
import Testing

/// Collects errors handed to `logError`.
final class ErrorLog: Sendable {
    let errors = Mutex<[StrataError.Code?]>([])
    func record(_ error: any Error) { errors.withLock { $0.append((error as? StrataError)?.code) } }
    var count: Int { errors.withLock { $0.count } }
}

struct ExampleFailure: Error {}

@Suite("Container")
struct ContainerTests {
    @Test func useBeforeLoadingThrowsStoreNotLoaded() async throws {
        let container = try PersistentContainer(name: "Early", schema: librarySchema)
        container.storeDescriptions = [.inMemory()]
        #expect(!container.isLoaded)
        let error = #expect(throws: StrataError.self) { try container.perform { _ in } }
        #expect(error?.code == .storeNotLoaded)
        await #expect(throws: StrataError.self) { try await container.performBackgroundTask { _ in 1 } }
        let background = container.newBackgroundContext()
        await #expect(throws: StrataError.self) { try await background.perform { _ in 1 } }
    }

    @Test func loadingTwiceIsHarmlessAndKeepsTheStore() async throws {
        let stack = try await TestStack(.file)
        try stack.container.perform { $0.insert(Book(title: "Once", year: 1)) }
        try await stack.container.loadPersistentStores()
        #expect(try stack.container.perform { try $0.count(for: FetchRequest<Book>()) } == 1)
    }

    @Test func theCompletionHandlerReportsEachStoreOnce() async throws {
        let container = try PersistentContainer(name: "Handler", schema: librarySchema)
        container.storeDescriptions = [.inMemory()]
        let reports = Mutex<[String]>([])
        container.loadPersistentStores { description, error in
            reports.withLock { $0.append("\(description.isInMemory) \(error == nil)") }
        }
        #expect(reports.withLock { $0 } == ["true true"])
        #expect(container.isLoaded)
    }

    @Test func waitingForTheStoreResumesOnceItLoads() async throws {
        let container = try PersistentContainer(name: "Deferred", schema: librarySchema)
        container.storeDescriptions = [.inMemory()]
        async let waited: Void = container.waitUntilLoaded()
        try await Task.sleep(for: .milliseconds(20))
        try await container.loadPersistentStores()
        try await waited
        #expect(try container.perform { try $0.count(for: FetchRequest<Book>()) } == 0)
        try await container.waitUntilLoaded()
    }

    @Test func logErrorReceivesLoadAndClosureErrorsWhichAreRethrown() async throws {
        let log = ErrorLog()
        let directory = TemporaryDirectory()
        let url = directory.file("Bad.sqlite")
        try Data("not a database at all, not even close".utf8).write(to: url)
        let container = try PersistentContainer(name: "Bad", schema: librarySchema)
        container.logError = { log.record($0) }
        container.storeDescriptions = [StoreDescription(url: url)]
        await #expect(throws: StrataError.self) { try await container.loadPersistentStores() }
        #expect(log.count == 1)

        let good = try PersistentContainer(name: "Good", schema: librarySchema)
        good.logError = { log.record($0) }
        good.storeDescriptions = [.inMemory()]
        try await good.loadPersistentStores()
        #expect(throws: ExampleFailure.self) { try good.perform { _ in throw ExampleFailure() } }
        #expect(log.count == 2)
        await #expect(throws: ExampleFailure.self) {
            try await good.performBackgroundTask { _ -> Int in throw ExampleFailure() }
        }
        #expect(log.count == 3)
        #expect(throws: StrataError.self) {
            try good.perform { context throws in
                _ = try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title.count > 3 }))
            }
        }
        #expect(log.count >= 4)
    }

    @Test func performSavesOnReturnAndResetsItsContext() async throws {
        let stack = try await TestStack(.inMemory)
        let context = try stack.container.perform { context throws in
            context.insert(Book(title: "Saved", year: 1))
            return Unchecked(context)
        }
        #expect(context.value.registeredObjects.isEmpty)
        #expect(try stack.container.perform { try $0.count(for: FetchRequest<Book>()) } == 1)

        stack.container.cleanUpAfterExecution = false
        let kept = try stack.container.perform { context throws in
            _ = try context.fetch(FetchRequest<Book>())
            return Unchecked(context)
        }
        #expect(kept.value.registeredObjects.count == 1)
    }

    @Test func aSecondStoreDescriptionIsReportedNotLoaded() async throws {
        let container = try PersistentContainer(name: "Two", schema: librarySchema)
        container.storeDescriptions = [.inMemory(), .inMemory()]
        let errors = Mutex<Int>(0)
        container.loadPersistentStores { _, error in if error != nil { errors.withLock { $0 += 1 } } }
        #expect(errors.withLock { $0 } == 1)
        #expect(container.isLoaded)
    }
}

/// Lets a test look at a context after the unit of work that owned it.
struct Unchecked<Value>: @unchecked Sendable {
    // @unchecked: tests read the value on the thread that created it.
    let value: Value
    init(_ value: Value) { self.value = value }
}
