import ArgumentParser
import Foundation
import Strata
import StrataTestModels

/// A long run of small saves with a merging view context, reporting save
/// cost, merge delay and memory per window: all three must stay flat.
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Hundreds of thousands of saves with a merging view context; save cost and memory must stay flat.")

    @Option(help: "Saves in the run.") var saves = 300_000
    @Option(help: "Windows the run is reported in.") var windows = 10
    @Option(help: "Store kind: file or memory.") var store = "file"

    func run() async throws {
        let report = try await Soak(saves: saves, windows: windows, inMemory: store == "memory").run()
        report.print()
        if !report.failures.isEmpty { throw ExitCode.failure }
    }
}

/// The soak trial itself, shared by `soak`, `quick` and `full`.
struct Soak {
    var saves: Int
    var windows: Int
    var inMemory: Bool

    struct Window {
        var saveMicroseconds: Double
        var mergeDelayMicroseconds: Double
        var residentBytes: Int
    }

    func run() async throws -> TrialReport {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = try PersistentContainer(name: "Soak", schema: librarySchema)
        container.storeDescriptions = [inMemory ? .inMemory() : StoreDescription(url: directory.appendingPathComponent("Soak.sqlite"))]
        try await container.loadPersistentStores()

        let bookID = try container.perform { context in
            let book = Book(title: "counter", year: 0)
            context.insert(book)
            try context.save()
            return book.objectID
        }
        // The view context registers the book, so every save's merge does real work.
        try await MainActor.run { _ = try container.viewContext.existingObject(with: bookID, as: Book.self) }

        let perWindow = max(1, saves / windows)
        var results: [Window] = []
        let writer = container.newContext()
        let book = try writer.existingObject(with: bookID, as: Book.self)
        let clock = ContinuousClock()
        var year = 0
        for _ in 0..<windows {
            let start = clock.now
            for _ in 0..<perWindow {
                year += 1
                book.year = year
                if year % 100 == 0 { writer.insert(Book(title: "extra \(year)", year: year)) }
                try writer.save()
            }
            let saveCost = (clock.now - start).microseconds / Double(perWindow)
            let saved = clock.now
            let target = year
            while try await MainActor.run(body: { try container.viewContext.existingObject(with: bookID, as: Book.self).year }) != target {
                if clock.now - saved > .seconds(10) {
                    var report = verdict(results, perWindow: perWindow)
                    report.fail("the view context had not merged save \(target) after 10 s")
                    return report
                }
                await Task.yield()
            }
            let delay = (clock.now - saved).microseconds
            results.append(Window(saveMicroseconds: saveCost, mergeDelayMicroseconds: delay,
                                  residentBytes: ProcessReadings.residentBytes()))
        }
        return verdict(results, perWindow: perWindow)
    }

    /// Flat means the last window costs at most twice the second (the first
    /// warms caches) and memory grows by less than 32 bytes a save after it.
    private func verdict(_ windows: [Window], perWindow: Int) -> TrialReport {
        var report = TrialReport(name: "soak: \(saves) saves, merging view context, \(inMemory ? "in-memory" : "file") store")
        for (index, window) in windows.enumerated() {
            report.note(String(format: "saves %7d–%7d: %7.1f µs/save, merge delay %8.1f µs, resident %6.1f MiB",
                               index * perWindow + 1, (index + 1) * perWindow, window.saveMicroseconds,
                               window.mergeDelayMicroseconds, Double(window.residentBytes) / 1_048_576))
        }
        guard windows.count >= 3 else { return report }
        let baseline = windows[1], last = windows[windows.count - 1]
        let growth = Double(last.residentBytes - baseline.residentBytes) / Double(perWindow * (windows.count - 2))
        report.note(String(format: "save cost last/second window: %.2f×; memory growth %.1f B/save", last.saveMicroseconds / baseline.saveMicroseconds, growth))
        if last.saveMicroseconds > 2 * baseline.saveMicroseconds {
            report.fail("save cost grew from \(Int(baseline.saveMicroseconds)) µs to \(Int(last.saveMicroseconds)) µs")
        }
        if growth > 32 {
            report.fail(String(format: "memory grew %.1f bytes per save", growth))
        }
        return report
    }
}
