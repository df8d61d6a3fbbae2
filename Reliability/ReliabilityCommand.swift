import ArgumentParser
import Foundation
import Logging

/// `strata-reliability`: measurements that hold every change to saving,
/// loading and migrating to the same standard. `quick` runs in CI; `full`
/// produces the figures kept in RELIABILITY.md.
///
/// ```
/// swift run strata-reliability quick
/// swift run -c release strata-reliability full --report RELIABILITY.md
/// ```
@main
struct ReliabilityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-reliability",
        abstract: "Reliability trials for Strata stores.",
        subcommands: [QuickCommand.self, FullCommand.self, SoakCommand.self, ChildCommand.self])
}

/// How many of each trial a run makes.
struct TrialSizes {
    var kills: Int
    var contendingProcesses: Int
    var increments: Int
    var firstOpenRounds: Int
    var firstOpenProcesses: Int
    var fuzzedFiles: Int
    var sequences: Int
    var steps: Int
    var soakSaves: Int

    static let quick = TrialSizes(
        kills: 8, contendingProcesses: 3, increments: 40, firstOpenRounds: 4, firstOpenProcesses: 4,
        fuzzedFiles: 30, sequences: 150, steps: 40, soakSaves: 20_000)
    static let full = TrialSizes(
        kills: 120, contendingProcesses: 4, increments: 500, firstOpenRounds: 25, firstOpenProcesses: 4,
        fuzzedFiles: 400, sequences: 3_000, steps: 60, soakSaves: 300_000)

    /// Runs every trial, printing each report as it ends.
    func runAll(seed: UInt64) async throws -> [TrialReport] {
        quietLogs()
        print("seed \(seed)")
        var reports: [TrialReport] = []
        func finish(_ report: TrialReport) {
            report.print()
            reports.append(report)
        }
        finish(try await DifferentialTrial(sequences: sequences, steps: steps, seed: seed).run())
        finish(try await KillTrial(trials: kills, seed: seed).run())
        finish(try await ContentionTrial(processes: contendingProcesses, increments: increments).run())
        finish(try await FirstOpenTrial(rounds: firstOpenRounds, processes: firstOpenProcesses).run())
        finish(try await BadInputTrial(fuzzedFiles: fuzzedFiles, seed: seed).run())
        finish(try await ReadOnlyMountTrial().run())
        finish(try await Soak(saves: soakSaves, windows: 10, inMemory: false).run())
        return reports
    }
}

/// Every trial, small enough for CI (a few minutes in a debug build).
struct QuickCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "quick", abstract: "Every trial, at CI size.")

    @Option(help: "Seed for the random trials (a failure prints the seed that shows it).")
    var seed: UInt64 = UInt64(Date().timeIntervalSince1970)

    func run() async throws {
        let reports = try await TrialSizes.quick.runAll(seed: seed)
        if reports.contains(where: { !$0.failures.isEmpty }) { throw ExitCode.failure }
    }
}

/// Every trial at full size; `--report` writes RELIABILITY.md.
struct FullCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "full", abstract: "Every trial at full size; writes the figures RELIABILITY.md keeps.")

    @Option(help: "Seed for the random trials.") var seed: UInt64 = UInt64(Date().timeIntervalSince1970)
    @Option(help: "Where to write the figures (RELIABILITY.md).") var report: String?

    func run() async throws {
        let started = Date()
        let reports = try await TrialSizes.full.runAll(seed: seed)
        if let report {
            let previous = try? String(contentsOfFile: report, encoding: .utf8)
            let text = ReliabilityRecord(reports: reports, seed: seed, started: started).markdown
                + ReliabilityRecord.keptNotes(of: previous)
            try text.write(toFile: report, atomically: true, encoding: .utf8)
        }
        if reports.contains(where: { !$0.failures.isEmpty }) { throw ExitCode.failure }
    }
}

/// Trials fail saves on purpose; their reports, not the log, say what matters.
func quietLogs() {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = .critical
        return handler
    }
}
