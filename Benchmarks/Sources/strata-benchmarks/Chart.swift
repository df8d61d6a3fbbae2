import Foundation

/// Draws the ratios to raw as a horizontal bar chart on a log scale, as
/// hand-written SVG: one group per case, one bar per library, raw at 1×.
struct RatioChart {
    let report: Report

    static let colors = [
        "grdb-row": "#59a14f", "grdb-record": "#4e79a7", "grdb-codable": "#76b7b2", "fluent": "#e15759",
        "strata": "#f28e2b", "strata-memory": "#edc948",
    ]

    var svg: String {
        let libraries = ["grdb-row", "grdb-record", "grdb-codable", "fluent", "strata", "strata-memory"]
        let cases = report.measurements.reduce(into: [String]()) { names, m in
            if !names.contains(m.caseName), report.ratio(m) != nil { names.append(m.caseName) }
        }
        let ratios = report.measurements.compactMap { m in report.ratio(m).map { (m.caseName, m.library, $0) } }
            .filter { $0.1 != RawLibrary.name }
        let values = ratios.map(\.2).filter { $0 > 0 }
        let low = floor(log10(min(values.min() ?? 1, 1)))
        let high = ceil(log10(max(values.max() ?? 10, 10)))
        let left = 190.0, plotWidth = 640.0, barHeight = 9.0, groupGap = 10.0, top = 50.0
        let groupHeight = Double(libraries.count) * barHeight + groupGap
        let height = top + Double(cases.count) * groupHeight + 40
        func x(_ ratio: Double) -> Double { left + (log10(ratio) - low) / (high - low) * plotWidth }

        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(left + plotWidth + 130))" height="\(Int(height))" \
            font-family="Helvetica, Arial, sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="10" y="20" font-size="14" font-weight="bold">Time (or peak memory) relative to raw SQLite — log scale, lower is better</text>

            """
        var exponent = low
        while exponent <= high {
            let tick = pow(10, exponent)
            let tx = x(tick)
            out += "<line x1=\"\(f(tx))\" y1=\"\(f(top - 8))\" x2=\"\(f(tx))\" y2=\"\(f(height - 35))\" "
                + "stroke=\"\(exponent == 0 ? "#000" : "#ccc")\" stroke-width=\"\(exponent == 0 ? 1.5 : 1)\"/>\n"
            out += "<text x=\"\(f(tx))\" y=\"\(f(height - 20))\" text-anchor=\"middle\">\(Self.label(tick))</text>\n"
            exponent += 1
        }
        for (row, name) in cases.enumerated() {
            let groupTop = top + Double(row) * groupHeight
            out += "<text x=\"\(f(left - 8))\" y=\"\(f(groupTop + Double(libraries.count) * barHeight / 2 + 4))\" "
                + "text-anchor=\"end\">\(name)</text>\n"
            for (index, library) in libraries.enumerated() {
                guard let ratio = ratios.first(where: { $0.0 == name && $0.1 == library })?.2, ratio > 0 else { continue }
                let y = groupTop + Double(index) * barHeight
                let x0 = min(x(1), x(ratio)), x1 = max(x(1), x(ratio))
                out += "<rect x=\"\(f(x0))\" y=\"\(f(y))\" width=\"\(f(max(x1 - x0, 1)))\" height=\"\(f(barHeight - 1))\" "
                    + "fill=\"\(Self.colors[library] ?? "#999")\"><title>\(name) \(library) \(String(format: "%.2f", ratio))×</title></rect>\n"
                out += "<text x=\"\(f(x1 + 3))\" y=\"\(f(y + barHeight - 2))\" font-size=\"8\">\(String(format: "%.2f", ratio))×</text>\n"
            }
        }
        for (index, library) in libraries.enumerated() {
            let lx = left + plotWidth + 20, ly = top + Double(index) * 16
            out += "<rect x=\"\(f(lx))\" y=\"\(f(ly))\" width=\"10\" height=\"10\" fill=\"\(Self.colors[library] ?? "#999")\"/>"
                + "<text x=\"\(f(lx + 14))\" y=\"\(f(ly + 9))\">\(library)</text>\n"
        }
        out += "</svg>\n"
        return out
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func label(_ tick: Double) -> String {
        tick >= 1 ? "\(Int(tick))×" : String(format: "%g×", tick)
    }
}
