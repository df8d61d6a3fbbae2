import Foundation

/// A copy of this program started for one role in a trial (a writer to kill,
/// a contending worker, a first opener, a probe of a damaged file), with its
/// standard output read line by line.
///
/// ```swift
/// let child = try ChildProcess(["child", "open", "--store", path])
/// let status = child.wait()           // .exited(0), .exited(3) or .signalled(9)
/// ```
final class ChildProcess {
    enum Status: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    let process = Process()
    private let output = Pipe()

    init(_ arguments: [String]) throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// This program: children run the same binary with a `child` subcommand.
    static var executable: URL {
        #if os(Linux)
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        #endif
    }

    /// Everything the child printed so far.
    private var received = Data()

    /// Reads until a line satisfies `condition` (returned) or the output ends (nil).
    func waitForLine(where condition: (String) -> Bool) -> String? {
        while true {
            if let line = String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init).first(where: condition) {
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            received.append(chunk)
        }
    }

    /// Stops the child at once, as a crash or a power-cut process would stop.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the child to end; returns how it ended and every line it printed.
    @discardableResult
    func wait() -> (status: Status, lines: [String]) {
        received.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        // A line cut off by a kill is not a line.
        var text = String(decoding: received, as: UTF8.self)
        if !text.hasSuffix("\n") { text = text.lastIndex(of: "\n").map { String(text[...$0]) } ?? "" }
        let lines = text.split(separator: "\n").map(String.init)
        let status: Status = process.terminationReason == .uncaughtSignal
            ? .signalled(process.terminationStatus) : .exited(process.terminationStatus)
        return (status, lines)
    }
}

/// A seeded generator, so a failing trial can be run again exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// SplitMix64.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A temporary folder for one trial, removed afterwards.
struct Scratch {
    let url: URL

    init(_ name: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
