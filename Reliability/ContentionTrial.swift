import Foundation
import Strata
import StrataTestModels

/// Processes adding to one counter in one store file at once, under each
/// merge policy, retrying saves that fail with a conflict. Under `.error` no
/// update may be lost; the other policies resolve conflicts by dropping one
/// side's change by design, and the report counts how many they dropped.
struct ContentionTrial {
    var processes: Int
    var increments: Int

    func run() async throws -> TrialReport {
        var report = TrialReport(name: "contention: \(processes) processes × \(increments) increments per merge policy")
        for policy in CountingWorker.policyNames {
            let scratch = try Scratch("contention")
            defer { scratch.remove() }
            let path = scratch.file("Counter.sqlite").path
            let setup = try await openLibrary(at: path, name: "Setup")
            try setup.perform { context in
                context.insert(Book(title: "counter", year: 0))
                try context.save()
            }
            let workers = try (0..<processes).map { _ in
                try ChildProcess(["child", "counter", "--store", path, "--increments", "\(increments)", "--policy", policy])
            }
            var retries = 0, failed = 0
            for worker in workers {
                let (status, lines) = worker.wait()
                if status != .exited(0) { failed += 1 }
                retries += lines.compactMap { $0.hasPrefix("retries ") ? Int($0.dropFirst(8)) : nil }.reduce(0, +)
            }
            let total = try setup.perform { context in
                try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == "counter" })).first?.year ?? 0
            }
            let lost = processes * increments - total
            report.note("\(policy): \(total) of \(processes * increments) increments kept, \(lost) lost, \(retries) retries")
            if failed > 0 { report.fail("\(policy): \(failed) worker(s) failed") }
            if policy == "error" {
                report.figures["lost updates under .error"] = lost
                if lost != 0 { report.fail(".error with retries lost \(lost) updates") }
            }
            try setup.persistentStoreCoordinator.close()
        }
        return report
    }
}

/// Processes opening one store that does not exist yet, all at once: each
/// must open it and save.
struct FirstOpenTrial {
    var rounds: Int
    var processes: Int

    func run() async throws -> TrialReport {
        var report = TrialReport(name: "first opens: \(rounds) rounds of \(processes) processes creating one store")
        var failures = 0
        for round in 0..<rounds {
            let scratch = try Scratch("first-open")
            defer { scratch.remove() }
            let path = scratch.file("Fresh.sqlite").path
            let openers = try (0..<processes).map { index in
                try ChildProcess(["child", "open", "--store", path, "--name", "opener \(index)"])
            }
            var failedThisRound = 0
            for opener in openers {
                let (status, lines) = opener.wait()
                if status != .exited(0) {
                    failedThisRound += 1
                    report.fail("round \(round): \(lines.last ?? "no output") (\(status))")
                }
            }
            let container = try await openLibrary(at: path, name: "Check")
            let count = try container.perform { try $0.count(for: FetchRequest<Book>()) }
            failures += failedThisRound
            if count != processes - failedThisRound { report.fail("round \(round): \(count) books for \(processes) openers") }
            try container.persistentStoreCoordinator.close()
        }
        report.note("\(rounds * processes) opens, \(failures) failed")
        report.figures["failed first opens"] = failures
        return report
    }
}
