import Foundation

/// The memory cases (8): each runs in a child process of this executable, which
/// reports its peak resident set (`VmHWM` from `/proc/self/status`) as it ends.
enum MemoryCases {
    /// The child's peak resident set size in KiB, as the kernel accounts it.
    static func peakResidentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }

    /// In the child: runs one memory case and prints `MEMORY <ms> <KiB>`.
    /// `baseline` does nothing, to show what the process itself costs.
    static func runChild(_ name: String, library: any BenchLibrary.Type, path: String, workload: Workload) async throws {
        var elapsed = Duration.zero
        switch name {
        case BenchCase.memoryImport.rawValue:
            try await library.create(at: path, rows: [])
            let instance = try await library.open(at: path)
            elapsed = try await measure {
                try await instance.importInUnits(total: workload.memoryRows, unit: workload.memoryUnit)
            }
            try await instance.close()
        case BenchCase.memoryFetch.rawValue:
            let instance = try await library.open(at: path)
            elapsed = try await measure {
                Sink.consume(try await instance.streamAll(batchSize: workload.batchSize))
            }
            try await instance.close()
        default:
            break
        }
        print("MEMORY \(elapsed.milliseconds) \(peakResidentKiB())")
    }

    /// In the parent: per library, an import child writes the file that a
    /// fetch child then reads. Returns the peak memory and the time of each.
    static func run(workload: Workload, libraries: [any BenchLibrary.Type], log: (String) -> Void) throws
        -> (measurements: [Measurement], baselineMiB: Double) {
        let baseline = try child("baseline", library: RawLibrary.self, path: "/dev/null", workload: workload)
        var measurements: [Measurement] = []
        // The in-memory store holds every row in memory by design, and its rows
        // cannot pass from the import child to the fetch child: it sits these out.
        for library in libraries where library != StrataMemoryLibrary.self
            && (library != FluentLibrary.self || workload.memoryRows <= workload.fluentMaxRows) {
            let directory = try ScratchDirectory("memory-\(library.name)")
            defer { directory.remove() }
            let path = directory.file()
            for benchCase in [BenchCase.memoryImport, .memoryFetch] {
                let (milliseconds, kib) = try child(benchCase.rawValue, library: library, path: path, workload: workload)
                let mib = Double(kib) / 1024
                measurements.append(Measurement(
                    caseName: benchCase.rawValue + "-peak", number: 8, library: library.name,
                    value: mib, unit: .mebibytes, samples: [mib]))
                measurements.append(Measurement(
                    caseName: benchCase.rawValue, number: 8, library: library.name,
                    value: milliseconds, samples: [milliseconds]))
                log("  " + pad(benchCase.rawValue, 26) + pad(library.name, 14)
                    + String(format: "%12.1f MiB %12.1f ms", mib, milliseconds))
            }
        }
        return (measurements, Double(baseline.kib) / 1024)
    }

    /// Runs this executable as a child for one case and parses its report.
    private static func child(_ name: String, library: any BenchLibrary.Type, path: String, workload: Workload) throws
        -> (milliseconds: Double, kib: Int) {
        try child(name, library: library.name, path: path, extra: ["--memory-rows", String(workload.memoryRows)])
    }

    /// Runs this executable as a child for one named job and parses its
    /// `MEMORY <ms> <KiB>` report.
    static func child(_ name: String, library: String, path: String, extra: [String]) throws
        -> (milliseconds: Double, kib: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = [
            "--memory-child", name, "--library", library, "--memory-path", path,
        ] + extra
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
              let line = text.split(separator: "\n").last(where: { $0.hasPrefix("MEMORY ") }) else {
            throw RawError(message: "memory child \(name) for \(library) failed: \(text)")
        }
        let fields = line.split(separator: " ")
        return (Double(fields[1]) ?? .nan, Int(fields[2]) ?? -1)
    }
}
