import Foundation
import GRDB
import Strata
import StrataTestModels

/// Writers killed with SIGKILL at random moments during saves and batch
/// inserts: every acknowledged transaction must be in the store whole, no
/// transaction may be there in part, SQLite's `integrity_check` must pass, and
/// the store must reopen and take another save.
struct KillTrial {
    var trials: Int
    var rows = 20
    var seed: UInt64

    func run() async throws -> TrialReport {
        var report = TrialReport(name: "kill: \(trials) writers killed mid-save (SIGKILL)")
        var random = SeededGenerator(seed: seed)
        var acknowledged = 0, lost = 0, partial = 0, damaged = 0, unusable = 0
        for trial in 0..<trials {
            let scratch = try Scratch("kill")
            defer { scratch.remove() }
            let path = scratch.file("Kill.sqlite").path
            // Several kills on one file: later writers start from what earlier ones left.
            for round in 0..<3 {
                let mode = (trial + round) % 3 == 2 ? "batch" : "save"
                let writer = try ChildProcess(["child", "writer", "--store", path, "--rows", "\(rows)", "--mode", mode])
                guard writer.waitForLine(where: { $0 == "ready" }) != nil else {
                    report.fail("trial \(trial): the writer did not start: \(writer.wait().lines.joined(separator: " "))")
                    break
                }
                try await Task.sleep(for: .microseconds(Int.random(in: 1_000...120_000, using: &random)))
                writer.kill()
                let acked = Set(writer.wait().lines.compactMap { $0.hasPrefix("acked ") ? Int($0.dropFirst(6)) : nil })
                acknowledged += acked.count

                let counts = try rowsPerTransaction(path)
                for transaction in acked where counts[transaction] != rows {
                    lost += 1
                    report.fail("trial \(trial): acknowledged transaction \(transaction) has \(counts[transaction] ?? 0) of \(rows) rows")
                }
                for (transaction, count) in counts where count != rows {
                    partial += 1
                    report.fail("trial \(trial): transaction \(transaction) is partly there (\(count) of \(rows) rows)")
                }
                if try !integrityHolds(path) {
                    damaged += 1
                    report.fail("trial \(trial): integrity_check failed after the kill")
                }
            }
            do {
                let container = try await openLibrary(at: path, name: "Reopened")
                try container.perform { context in
                    context.insert(Book(title: "after the kills", year: -1))
                    try context.save()
                }
                try container.persistentStoreCoordinator.close()
            } catch {
                unusable += 1
                report.fail("trial \(trial): the store did not reopen and save: \(error)")
            }
        }
        report.note("\(trials * 3) kills, \(acknowledged) acknowledged transactions of \(rows) rows (saves and batch inserts)")
        report.note("lost \(lost), partial \(partial), integrity failures \(damaged), stores that would not reopen \(unusable)")
        report.figures = ["kills": trials * 3, "acknowledged": acknowledged, "lost": lost, "partial": partial,
                          "integrity failures": damaged, "unusable": unusable]
        return report
    }

    /// Rows in the store by transaction number (the writer's `year`), read
    /// with plain SQLite: nothing of Strata's on the reading side.
    private func rowsPerTransaction(_ path: String) throws -> [Int: Int] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists("Book") else { return [:] }
            var counts: [Int: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT year, COUNT(*) AS n FROM Book WHERE year > 0 GROUP BY year") {
                counts[row["year"]] = row["n"]
            }
            return counts
        }
    }

    private func integrityHolds(_ path: String) throws -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return true }
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"] }
    }
}
