import Foundation
import StrataCore
import StrataSQLite

/// Strata through its public API, as an app would use it: a container, contexts,
/// `FetchRequest` with `#Predicate`, `save()`, `perform` units of work, on a
/// SQLite file store.
class StrataLibrary: BenchLibrary {
    class var name: String { "strata" }
    static let schema = Schema(StrataItem.self, StrataKeyedItem.self)
    let container: PersistentContainer
    private var heldContext: ManagedObjectContext?
    private var held: [StrataItem] = []

    required init(container: PersistentContainer) {
        self.container = container
    }

    class func load(at path: String) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Bench", schema: schema)
        container.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: path))]
        try await container.loadPersistentStores()
        return container
    }

    /// Writes `rows` through Strata itself, in units of 10,000 objects.
    class func create(at path: String, rows: [ItemRow]) async throws {
        let container = try await load(at: path)
        try insert(rows, into: container)
        try container.persistentStoreCoordinator.close()
    }

    static func insert(_ rows: [ItemRow], into container: PersistentContainer) throws {
        var start = 0
        while start < rows.count {
            let end = min(start + 10_000, rows.count)
            try container.perform { context in
                for row in rows[start..<end] { context.insert(StrataItem(row)) }
            }
            start = end
        }
    }

    class func open(at path: String) async throws -> Self {
        Self(container: try await load(at: path))
    }

    func close() async throws {
        held = []
        heldContext = nil
        try container.persistentStoreCoordinator.close()
    }

    func insert(_ rows: [ItemRow]) async throws {
        let context = container.newContext()
        for row in rows { context.insert(StrataItem(row)) }
        try context.save()
    }

    func fetchAll() async throws -> Int {
        let context = container.newContext()
        let items = try context.fetch(FetchRequest<StrataItem>())
        return items.reduce(0) { $0 &+ $1.checksum }
    }

    /// One context serves all the executions of one run, like a screen's context.
    private lazy var queryContext = container.newContext()

    func query(minimumScore: Double, limit: Int) async throws -> Int {
        var request = FetchRequest<StrataItem>(
            predicate: #Predicate { $0.score >= minimumScore },
            sortBy: [SortDescriptor(\.score)])
        request.fetchLimit = limit
        return try queryContext.fetch(request).reduce(0) { $0 &+ $1.checksum }
    }

    func hold(limit: Int?) async throws {
        let context = container.newContext()
        var request = FetchRequest<StrataItem>()
        request.fetchLimit = limit
        held = try context.fetch(request)
        heldContext = context
    }

    func updateHeld() async throws {
        for item in held { item.i1 += 1 }
        try heldContext?.save()
    }

    func deleteHeld() async throws {
        guard let context = heldContext else { return }
        for item in held { context.delete(item) }
        try context.save()
        held = []
    }

    func saveOneChange(_ index: Int) async throws {
        held[index].i1 += 1
        try heldContext?.save()
    }

    /// The view context fetches the objects; a background task changes and
    /// saves them; timed from the start of that save until the view context's
    /// objects show every change (merged automatically on the main actor).
    func saveElsewhereUntilVisible() async throws -> Duration {
        try await Self.backgroundSaveUntilMerged(container: container, count: held.count)
    }

    @MainActor
    private static func backgroundSaveUntilMerged(container: PersistentContainer, count: Int) async throws -> Duration {
        let view = container.viewContext
        var request = FetchRequest<StrataItem>()
        request.fetchLimit = count
        let shown = try view.fetch(request)
        let expected = shown.map { $0.i2 + 1 }
        var visibleAt: ContinuousClock.Instant?
        let observation = view.onMerge { _ in
            if visibleAt == nil, shown.last?.i2 == expected.last { visibleAt = .now }
        }
        defer { withExtendedLifetime(observation) {} }
        let savedAt = try await container.performBackgroundTask { context in
            var request = FetchRequest<StrataItem>()
            request.fetchLimit = count
            for item in try context.fetch(request) { item.i2 += 1 }
            let start = ContinuousClock.now
            try context.save()
            return start
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while visibleAt == nil, ContinuousClock.now < deadline {
            await Task.yield()
        }
        guard let visibleAt, shown.map(\.i2) == expected else {
            throw RawError(message: "the view context did not show the background save")
        }
        return visibleAt - savedAt
    }

    /// Loads batches of `batchSize` as the loop reaches them (`fetch(_:batchSize:)`);
    /// each object is read once and let go with its batch.
    func streamAll(batchSize: Int) async throws -> Int {
        let context = container.newContext()
        var sum = 0
        for item in try context.fetch(FetchRequest<StrataItem>(), batchSize: batchSize) { sum &+= item.checksum }
        return sum
    }

    /// `container.perform` units of work, reset afterwards (`cleanUpAfterExecution`).
    func importInUnits(total: Int, unit: Int) async throws {
        container.cleanUpAfterExecution = true
        var next = 1
        while next <= total {
            let count = min(unit, total - next + 1)
            try container.perform { context in
                for row in ItemRow.make(count, startingAt: next) { context.insert(StrataItem(row)) }
            }
            next += count
        }
    }
}
