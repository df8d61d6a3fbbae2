import ArgumentParser
import Foundation
import Strata

/// `strata check STORE`: the database's integrity check and Strata's own invariants;
/// exits non-zero when a problem is found.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a store: SQLite integrity (a file), relationships, row versions and history. Exits 1 on a problem.")

    @OptionGroup var options: StoreFileOptions

    func run() throws {
        let bar = ProgressBar(label: "checking")
        let check = try StoreBrowser.check(at: options.file, progress: bar.update)
        bar.finish()
        if options.json {
            try options.printJSON(check)
        } else if check.problems.isEmpty {
            print("\(check.fileName): ok")
        } else {
            print("\(check.fileName): \(CommandOutput.count(check.problems.count, "problem"))")
            for problem in check.problems { print("  \(problem)") }
        }
        if !check.problems.isEmpty { throw ExitCode.failure }
    }
}
