import ArgumentParser
import Foundation

/// `strata-benchmarks`: Strata beside raw SQLite, GRDB and Fluent in one run.
///
/// ```
/// swift run -c release --package-path Benchmarks strata-benchmarks [--rows N] [--runs R] [--tsv]
/// swift run -c release --package-path Benchmarks strata-benchmarks --case fetch-all --library strata --runs 20
/// ```
@main
struct StrataBenchmarks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-benchmarks",
        abstract: "Times Strata against raw SQLite, GRDB and Fluent and reports the ratios to raw.")

    @Option(help: "Rows for cases 1–7 (N).")
    var rows: Int?

    @Option(help: "Timed runs per case and library; the report shows their median.")
    var runs: Int?

    @Flag(help: "Print one line per case and library: case, library, median_ms, ratio_to_raw (tab-separated).")
    var tsv = false

    @Flag(help: "A small run (N = 10,000; memory 100,000; growth 1,000 … 100,000) to check the suite quickly.")
    var quick = false

    @Option(name: .customLong("case"), help: "Run only these cases (repeatable): \(BenchCase.allCases.map(\.rawValue).joined(separator: ", ")).")
    var cases: [String] = []

    @Option(name: .customLong("library"), help: "Run only these libraries (repeatable): raw, grdb-row, grdb-record, grdb-codable, fluent, strata, strata-memory; pg-raw, fluent-pg and strata-pg with STRATA_BENCH_POSTGRES set.")
    var libraries: [String] = []

    @Option(help: "Rows of the memory cases (default 1,000,000).")
    var memoryRows: Int?

    @Option(parsing: .upToNextOption, help: "Row counts of the growth case (default 10000 100000 1000000).")
    var growthRows: [Int] = []

    @Option(help: "The largest size at which Fluent joins the growth and memory cases.")
    var fluentMaxRows: Int?

    @Flag(help: "Do not write RESULTS.md and ratios.svg (implied by --case or --library).")
    var noWrite = false

    @Option(help: "Attachments (10 MB blobs) and rows of the migrate case (default 100 and 1,000,000).")
    var migrateBlobs: Int?
    @Option(help: .hidden) var migrateReadings: Int?

    @Option(help: .hidden) var memoryChild: String?
    @Option(help: .hidden) var memoryPath: String?

    func validate() throws {
        for name in cases where BenchCase(rawValue: name) == nil {
            throw ValidationError("Unknown case \(name); use one of \(BenchCase.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        for name in libraries where Libraries.named(name) == nil {
            throw ValidationError("Unknown library \(name)")
        }
    }

    var workload: Workload {
        var workload = Workload()
        if quick {
            workload.rows = 10_000
            workload.memoryRows = 100_000
            workload.growthRows = [1_000, 10_000, 100_000]
            workload.fluentMaxRows = 100_000
            workload.runs = 3
            workload.migrate = MigrateContents(blobs: 10, blobBytes: 1_000_000, readings: 100_000)
        }
        if let migrateBlobs { workload.migrate.blobs = migrateBlobs }
        if let migrateReadings { workload.migrate.readings = migrateReadings }
        if let rows { workload.rows = rows }
        if let runs { workload.runs = runs }
        if let memoryRows { workload.memoryRows = memoryRows }
        if !growthRows.isEmpty { workload.growthRows = growthRows }
        if let fluentMaxRows { workload.fluentMaxRows = fluentMaxRows }
        return workload
    }

    func run() async throws {
        let selectedLibraries = libraries.isEmpty ? Libraries.all : libraries.compactMap(Libraries.named)
        if let memoryChild, memoryChild.hasPrefix(BenchCase.migrate.rawValue) {
            let elapsed = try await MigrateCase.runChild(
                memoryChild, path: memoryPath ?? "", readings: workload.migrate.readings)
            print("MEMORY \(elapsed.milliseconds) \(MemoryCases.peakResidentKiB())")
            return
        }
        if let memoryChild {
            try await MemoryCases.runChild(
                memoryChild, library: selectedLibraries[0], path: memoryPath ?? "", workload: workload)
            return
        }
        let selectedCases = cases.isEmpty ? BenchCase.allCases : cases.compactMap(BenchCase.init(rawValue:))
        let workload = self.workload
        let log: (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        defer { ScratchDirectory.removeAll() }

        let runner = Runner(workload: workload, libraries: selectedLibraries, log: log)
        var baseline: Double?
        var memory: [Measurement] = []
        for benchCase in selectedCases where !benchCase.runsInChildren {
            log("case \(benchCase.number) \(benchCase.rawValue)")
            try await runner.run(benchCase)
        }
        if selectedCases.contains(where: \.isMemory) {
            log("case 8 memory (child processes, \(workload.memoryRows) rows)")
            let result = try MemoryCases.run(workload: workload, libraries: selectedLibraries, log: log)
            memory = result.measurements
            baseline = result.baselineMiB
        }
        var migrate: [Measurement] = []
        if selectedCases.contains(.migrate) {
            log("case 11 migrate (child processes, \(workload.migrate.note))")
            let result = try await MigrateCase.run(workload: workload, libraries: selectedLibraries, log: log)
            migrate = result.measurements
            baseline = baseline ?? result.baselineMiB
        }
        let measurements = Self.ordered(runner.measurements + memory + migrate)

        let command = (["swift run -c release --package-path Benchmarks strata-benchmarks"]
            + CommandLine.arguments.dropFirst()).joined(separator: " ")
        let report = Report(measurements: measurements, command: command, date: Date(), workload: workload,
                            memoryBaselineMiB: baseline)
        print(tsv ? report.tsv : report.table)
        if !noWrite, cases.isEmpty, libraries.isEmpty {
            let directory = Self.benchmarksDirectory()
            try RatioChart(report: report).svg.write(
                to: directory.appendingPathComponent("ratios.svg"), atomically: true, encoding: .utf8)
            try report.write(to: directory.appendingPathComponent("RESULTS.md"), chartFile: "ratios.svg")
            try report.writeFigures(intoReadmeAt: directory.deletingLastPathComponent().appendingPathComponent("README.md"))
            log("wrote \(directory.path)/RESULTS.md, ratios.svg and README's figures")
        }
        _ = Sink.value
    }

    /// Case order first, then library order, keeping each case's sub-measures together.
    static func ordered(_ measurements: [Measurement]) -> [Measurement] {
        let libraryOrder = Libraries.all.map { $0.name }
        var caseOrder: [String] = []
        for m in measurements where !caseOrder.contains(m.caseName) { caseOrder.append(m.caseName) }
        return measurements.sorted { a, b in
            if a.number != b.number { return a.number < b.number }
            let ca = caseOrder.firstIndex(of: a.caseName)!, cb = caseOrder.firstIndex(of: b.caseName)!
            if ca != cb { return ca < cb }
            return (libraryOrder.firstIndex(of: a.library) ?? 0) < (libraryOrder.firstIndex(of: b.library) ?? 0)
        }
    }

    /// The `Benchmarks/` directory: found from this source file, so the report
    /// lands there whatever the working directory.
    static func benchmarksDirectory() -> URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
