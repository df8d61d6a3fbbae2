import Foundation

/// The figures README quotes, written from the same run as `RESULTS.md`
/// between two markers, so README never tells of an older run than the table.
extension Report {
    static let figuresStart = "<!-- benchmark figures: written by the benchmark suite from its last full run -->"
    static let figuresEnd = "<!-- end of benchmark figures -->"

    /// The cases README shows, each as a ratio to raw SQLite.
    static let readmeCases = [
        "insert", "fetch-all", "values", "query", "partial", "prefetch", "search-prefix", "update-all", "delete-all",
        "single-save-p50", "upsert", "relate", "batch-insert",
    ]

    /// A table of GRDB's fastest style (`grdb-row`) and Strata against raw SQLite, case by case.
    var readmeFigures: String {
        func shown(_ caseName: String, _ library: String) -> String {
            guard let measurement = measurements.first(where: { $0.caseName == caseName && $0.library == library }),
                  let value = self.ratio(measurement) else { return "—" }
            return String(format: "%.2f×", value)
        }
        var lines = ["| case | grdb-row | strata |", "|---|---:|---:|"]
        for caseName in Self.readmeCases where measurements.contains(where: { $0.caseName == caseName }) {
            lines.append("| \(caseName) | \(shown(caseName, GRDBRowLibrary.name)) | \(shown(caseName, StrataLibrary.name)) |")
        }
        let day = ISO8601DateFormatter.string(from: date, timeZone: .gmt, formatOptions: [.withFullDate])
        lines.append("")
        lines.append("Time relative to raw SQLite (1.00×), N = \(workload.rows) rows, one run on \(day); lower is faster.")
        return lines.joined(separator: "\n")
    }

    /// Replaces the figures between the markers of `url`; a file without them is left alone.
    func writeFigures(intoReadmeAt url: URL) throws {
        guard var text = try? String(contentsOf: url, encoding: .utf8),
              let start = text.range(of: Self.figuresStart),
              let end = text.range(of: Self.figuresEnd, range: start.upperBound..<text.endIndex) else { return }
        text.replaceSubrange(start.upperBound..<end.lowerBound, with: "\n" + readmeFigures + "\n")
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}
