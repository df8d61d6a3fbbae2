/// The benchmark cases, named as `--case` accepts them.
enum BenchCase: String, CaseIterable, Sendable {
    case insert = "insert"
    case fetchAll = "fetch-all"
    case query = "query"
    case updateAll = "update-all"
    case deleteAll = "delete-all"
    case singleSave = "single-save"
    case backgroundSave = "background-save"
    case memoryFetch = "memory-fetch"
    case memoryImport = "memory-import"
    case growth = "growth"
    case upsert = "upsert"
    case migrate = "migrate"
    case migratePostgres = "migrate-pg"
    case aggregate = "aggregate"
    case search = "search"
    case searchPrefix = "search-prefix"
    case prefetch = "prefetch"
    case partial = "partial"
    case grouped = "grouped"
    case controller = "controller"
    case notify = "notify"
    case batch = "batch"
    case relate = "relate"
    case values = "values"
    case transform = "transform"

    /// The case number.
    var number: Int {
        switch self {
        case .insert: 1
        case .fetchAll: 2
        case .query: 3
        case .updateAll: 4
        case .deleteAll: 5
        case .singleSave: 6
        case .backgroundSave: 7
        case .memoryFetch, .memoryImport: 8
        case .growth: 9
        case .upsert: 10
        case .migrate, .migratePostgres: 11
        case .aggregate: 12
        case .search, .searchPrefix: 13
        case .prefetch: 14
        case .partial: 15
        case .grouped: 16
        case .controller: 17
        case .notify: 18
        case .batch: 19
        case .relate: 20
        case .values: 21
        case .transform: 22
        }
    }

    var isMemory: Bool { self == .memoryFetch || self == .memoryImport }
    /// Cases run in child processes rather than by `Runner`.
    var runsInChildren: Bool { isMemory || self == .migrate }
}

/// What one run measures: the sizes and counts behind the cases.
struct Workload: Sendable {
    var rows = 100_000
    var runs = 5
    var queryExecutions = 100
    var queryLimit = 100
    var singleSaves = 1_000
    var backgroundObjects = 10_000
    var memoryRows = 1_000_000
    var memoryUnit = 10_000
    var batchSize = 1_000
    var growthRows = [10_000, 100_000, 1_000_000]
    /// Fluent joins the growth and memory cases only up to this many rows
    /// (it is 10–100× slower than the others there and would dominate the run).
    var fluentMaxRows = 100_000
    /// Runs at sizes above `rows` (the 1,000,000-row growth point).
    var largeRuns = 3
    /// Fluent's timed runs, without a warm-up: it is slow enough that one run
    /// dwarfs the noise, and more would double the length of the whole suite.
    var fluentRuns = 1
    /// The store of the migrate case: about 1 GB of blobs and a million rows.
    var migrate = MigrateContents(blobs: 100, blobBytes: 10_000_000, readings: 1_000_000)
}

/// One line of the report: a case (or a sub-measure of one) for one library.
struct Measurement: Sendable {
    enum Unit: String, Sendable {
        case milliseconds = "ms", mebibytes = "MiB"
    }

    var caseName: String
    var number: Int
    var library: String
    var value: Double
    var unit: Unit = .milliseconds
    /// Every run's value, for the record.
    var samples: [Double] = []
    var note: String = ""
}
