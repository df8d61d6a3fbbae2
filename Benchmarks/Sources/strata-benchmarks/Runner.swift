import Foundation

/// Runs the timed cases in this process, one library after another per case,
/// each on its own fresh database files.
final class Runner {
    let workload: Workload
    let libraries: [any BenchLibrary.Type]
    private(set) var measurements: [Measurement] = []
    private let log: (String) -> Void

    init(workload: Workload, libraries: [any BenchLibrary.Type], log: @escaping (String) -> Void) {
        self.workload = workload
        self.libraries = libraries
        self.log = log
    }

    func run(_ benchCase: BenchCase) async throws {
        switch benchCase {
        case .insert: try await insert()
        case .fetchAll: try await fetchAll()
        case .query: try await query()
        case .updateAll: try await updateAll()
        case .deleteAll: try await deleteAll()
        case .singleSave: try await singleSave()
        case .backgroundSave: try await backgroundSave()
        case .growth: try await growth()
        case .upsert: try await upsert()
        case .aggregate: try await aggregate()
        case .search: try await search()
        case .searchPrefix: try await searchPrefix()
        case .prefetch: try await prefetch()
        case .partial: try await partial()
        case .grouped: try await grouped()
        case .controller: try await controller()
        case .notify: try await notify()
        case .batch: try await batch()
        case .relate: try await relate()
        case .values: try await values()
        case .transform: try await transform()
        case .migratePostgres: try await migratePostgres()
        case .memoryFetch, .memoryImport, .migrate: break  // These run in child processes.
        }
    }

    /// One warm-up run then `runs` timed runs. Each run opens the library anew
    /// (untimed) on a file that `freshFile` recreates per run with `setupRows`,
    /// or that is created once and shared by the runs of a read-only case.
    /// `body` returns the run's samples in milliseconds.
    private func timedRuns(
        _ library: any BenchLibrary.Type, _ label: String, setupRows: [ItemRow], freshFile: Bool, runs: Int? = nil,
        prepare: (any BenchLibrary) async throws -> Void = { _ in },
        body: (any BenchLibrary) async throws -> [Double]
    ) async throws -> [[Double]] {
        let directory = try ScratchDirectory("\(label)-\(library.name)")
        defer { directory.remove() }
        var path = directory.file()
        if !freshFile { try await library.create(at: path, rows: setupRows) }
        var results: [[Double]] = []
        // Fluent is 20–300× slower than raw here: one timed run, no warm-up.
        let isFluent = library == FluentLibrary.self || library == FluentPostgresLibrary.self
        let count = isFluent ? workload.fluentRuns : runs ?? workload.runs
        for run in (isFluent ? 1 : 0)...count {
            if freshFile {
                path = directory.file("run\(run).sqlite")
                try await library.create(at: path, rows: setupRows)
            }
            let instance = try await library.open(at: path)
            try await prepare(instance)
            let samples = try await body(instance)
            try await instance.close()
            if freshFile { removeDatabase(at: path) }
            if run > 0 { results.append(samples) }
        }
        return results
    }

    private func removeDatabase(at path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Records the median over runs of a one-sample-per-run case.
    func record(_ benchCase: BenchCase, library: any BenchLibrary.Type, runs: [[Double]],
                        name: String? = nil, scale: Double = 1, note: String = "") {
        let values = runs.map { $0[0] * scale }
        let measurement = Measurement(
            caseName: name ?? benchCase.rawValue, number: benchCase.number, library: library.name,
            value: Stats.median(values), samples: values, note: note)
        measurements.append(measurement)
        log("  " + pad(measurement.caseName, 26) + pad(library.name, 14) + String(format: "%12.3f ms", measurement.value))
    }

    private func milliseconds(_ body: () async throws -> Void) async throws -> [Double] {
        [try await measure(body).milliseconds]
    }

    private var rows: [ItemRow] { ItemRow.make(workload.rows) }

    // MARK: - Cases

    private func insert() async throws {
        let rows = self.rows
        for library in libraries {
            let runs = try await timedRuns(library, "insert", setupRows: [], freshFile: true) { lib in
                try await milliseconds { try await lib.insert(rows) }
            }
            record(.insert, library: library, runs: runs)
        }
    }

    private func fetchAll() async throws {
        let rows = self.rows
        for library in libraries {
            let runs = try await timedRuns(library, "fetch", setupRows: rows, freshFile: false) { lib in
                try await milliseconds { Sink.consume(try await lib.fetchAll()) }
            }
            record(.fetchAll, library: library, runs: runs)
        }
    }

    private func query() async throws {
        let rows = self.rows
        let executions = workload.queryExecutions, limit = workload.queryLimit
        for library in libraries {
            let runs = try await timedRuns(library, "query", setupRows: rows, freshFile: false) { lib in
                try await milliseconds {
                    for execution in 0..<executions {
                        let minimum = Double(execution) * 990 / Double(executions)
                        Sink.consume(try await lib.query(minimumScore: minimum, limit: limit))
                    }
                }
            }
            record(.query, library: library, runs: runs)
        }
    }

    private func updateAll() async throws {
        let rows = self.rows
        for library in libraries {
            let runs = try await timedRuns(
                library, "update", setupRows: rows, freshFile: true, prepare: { try await $0.hold(limit: nil) }
            ) { lib in
                try await milliseconds { try await lib.updateHeld() }
            }
            record(.updateAll, library: library, runs: runs)
        }
    }

    private func deleteAll() async throws {
        let rows = self.rows
        for library in libraries {
            let runs = try await timedRuns(
                library, "delete", setupRows: rows, freshFile: true, prepare: { try await $0.hold(limit: nil) }
            ) { lib in
                try await milliseconds { try await lib.deleteHeld() }
            }
            record(.deleteAll, library: library, runs: runs)
        }
    }

    /// p50 and p99 of the per-save latencies of each run; medians over runs.
    private func singleSave() async throws {
        let rows = self.rows
        let saves = workload.singleSaves
        for library in libraries {
            let runs = try await timedRuns(
                library, "single", setupRows: rows, freshFile: true, prepare: { try await $0.hold(limit: saves) }
            ) { lib in
                var latencies: [Double] = []
                latencies.reserveCapacity(saves)
                for index in 0..<saves {
                    latencies.append(try await measure { try await lib.saveOneChange(index) }.milliseconds)
                }
                return [Stats.percentile(latencies, 0.5), Stats.percentile(latencies, 0.99)]
            }
            record(.singleSave, library: library, runs: runs.map { [$0[0]] }, name: "single-save-p50")
            record(.singleSave, library: library, runs: runs.map { [$0[1]] }, name: "single-save-p99")
        }
    }

    private func backgroundSave() async throws {
        let rows = self.rows
        let objects = min(workload.backgroundObjects, workload.rows)
        for library in libraries {
            let runs = try await timedRuns(
                library, "background", setupRows: rows, freshFile: true, prepare: { try await $0.hold(limit: objects) }
            ) { lib in
                [try await lib.saveElsewhereUntilVisible().milliseconds]
            }
            let note = library is StrataLibrary.Type
                ? "background save until the view context's objects show it"
                : "write on one connection, then re-read the rows (equivalent)"
            record(.backgroundSave, library: library, runs: runs, note: note)
        }
    }

    /// Fetch-all time per row at each size; per-row values in milliseconds.
    private func growth() async throws {
        for size in workload.growthRows {
            let rows = ItemRow.make(size)
            for library in libraries where !(library is any FluentBenchLibrary.Type) || size <= workload.fluentMaxRows {
                let runs = try await timedRuns(
                    library, "growth\(size)", setupRows: rows, freshFile: false,
                    runs: size > workload.rows ? min(workload.runs, workload.largeRuns) : nil
                ) { lib in
                    try await milliseconds { Sink.consume(try await lib.fetchAll()) }
                }
                record(.growth, library: library, runs: runs, name: "fetch-per-row@\(size)", scale: 1 / Double(size))
            }
        }
    }
}

/// `text` left-aligned in `width` columns.
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
}
