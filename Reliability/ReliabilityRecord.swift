import Foundation

/// RELIABILITY.md: a full run's figures, its machine and date, and each
/// trial's report, as Benchmarks/RESULTS.md keeps speed.
struct ReliabilityRecord {
    let reports: [TrialReport]
    let seed: UInt64
    let started: Date

    var markdown: String {
        let minutes = Int(Date().timeIntervalSince(started) / 60)
        var text = """
            # Reliability

            What `strata-reliability full --report RELIABILITY.md` measured (\(Self.build) build)
            on \(Self.machine()), \(Self.day(started)) (seed \(seed), \(minutes) \(minutes == 1 ? "minute" : "minutes")).
            `swift run strata-reliability quick` runs the same trials, smaller, in CI. What each
            trial does is described in `Reliability/`; the ThreadSanitizer run is
            `swift test --sanitize=thread`.

            | Figure | Count |
            |---|---:|

            """
        for report in reports {
            for (name, value) in report.figures.sorted(by: { $0.key < $1.key }) {
                text += "| \(report.name.prefix { $0 != ":" }): \(name) | \(value) |\n"
            }
        }
        text += "\n"
        for report in reports {
            text += "## \(report.name): \(report.failures.isEmpty ? "held" : "FAILED")\n\n"
            for line in report.lines { text += "    \(line)\n" }
            for line in report.failures { text += "    failure: \(line)\n" }
            text += "\n"
        }
        return text
    }

    /// Below this line RELIABILITY.md keeps notes written by hand (findings of
    /// runs outside the harness, such as ThreadSanitizer's) across rewrites.
    static let notesMarker = "<!-- notes: text below this line is kept when the harness rewrites this file -->"

    /// The marker and the notes below it in the previous file, or the marker alone.
    static func keptNotes(of previous: String?) -> String {
        guard let previous, let range = previous.range(of: notesMarker) else { return notesMarker + "\n" }
        return String(previous[range.lowerBound...])
    }

    #if DEBUG
    static let build = "debug"
    #else
    static let build = "release"
    #endif

    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// Cores, memory and system, as the benchmark results name them.
    static func machine() -> String {
        let info = ProcessInfo.processInfo
        let memory = Double(info.physicalMemory) / 1_073_741_824
        return String(format: "%d cores, %.0f GiB, %@", info.activeProcessorCount, memory, info.operatingSystemVersionString)
    }
}
