import Foundation
import Strata
import StrataTestModels

/// A store on a read-only mount opens read-only, reads, and refuses saves
/// with `.readOnlyStore`. Mounting needs a private mount namespace
/// (`unshare -m`, as root); where there is none the trial says so and passes.
struct ReadOnlyMountTrial {
    func run() async throws -> TrialReport {
        var report = TrialReport(name: "read-only mount: a store opened where nothing may be written")
        let scratch = try Scratch("read-only")
        defer { scratch.remove() }
        let store = scratch.file("Shelf.sqlite")
        let container = try PersistentContainer(name: "Shelf", schema: librarySchema)
        container.storeDescriptions = [StoreDescription(url: store)]
        try await container.loadPersistentStores()
        try container.perform { context in
            for index in 0..<25 { context.insert(Book(title: "shelf \(index)", year: index)) }
            try context.save()
        }
        try container.persistentStoreCoordinator.close()

        let folder = scratch.url.path
        let script = "mount --bind '\(folder)' '\(folder)' && mount -o remount,bind,ro '\(folder)' '\(folder)' && echo mounted && "
            + "'\(ChildProcess.executable.path)' child read-only --store '\(store.path)'"
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        shell.arguments = ["-m", "sh", "-c", script]
        let output = Pipe()
        shell.standardOutput = output
        shell.standardError = output
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"), (try? shell.run()) != nil else {
            report.note("skipped: unshare is not available")
            return report
        }
        shell.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.contains("mounted") {
            report.note("skipped: this machine does not allow a private read-only mount (\(text.prefix(120)))")
        } else if shell.terminationStatus == 0, text.contains("refused") {
            report.note(text.replacingOccurrences(of: "mounted\n", with: ""))
            report.figures["read-only mount opens"] = 1
        } else {
            report.fail("exit \(shell.terminationStatus): \(text.prefix(400))")
        }
        return report
    }
}
