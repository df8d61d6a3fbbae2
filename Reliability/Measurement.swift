import Foundation

/// Readings of this process, for trials that report resources over time.
enum ProcessReadings {
    /// Resident memory in bytes (0 where the platform gives no cheap reading).
    static func residentBytes() -> Int {
        #if os(Linux)
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return 0
        #endif
    }
}

extension Duration {
    /// The duration in microseconds, for reports.
    var microseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1_000_000 + Double(attoseconds) / 1_000_000_000_000
    }
}

/// A trial's verdict: what held and what did not, printed as one block.
struct TrialReport {
    var name: String
    var lines: [String] = []
    var failures: [String] = []
    /// The counts RELIABILITY.md keeps (losses, traps, divergences, …).
    var figures: [String: Int] = [:]

    mutating func note(_ line: String) { lines.append(line) }
    mutating func fail(_ line: String) { failures.append(line) }

    func print() {
        Swift.print("== \(name): \(failures.isEmpty ? "ok" : "FAILED")")
        for line in lines { Swift.print("   \(line)") }
        for line in failures { Swift.print("   failure: \(line)") }
    }
}
