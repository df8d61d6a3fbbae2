import Foundation

/// A progress bar on standard error for long operations: drawn only when
/// standard error is a terminal, so piped and scripted runs stay quiet.
///
/// ```swift
/// let bar = ProgressBar(label: "exporting")
/// try StoreExport.export(storeAt: url, as: .json, to: output, progress: bar.update)
/// bar.finish()
/// ```
final class ProgressBar {
    private let label: String
    private let isShown = isatty(FileHandle.standardError.fileDescriptor) != 0
    private var lastDrawn = -1

    init(label: String) {
        self.label = label
    }

    /// Draws `done` of `total` when the shown percentage changes.
    func update(_ done: Int, _ total: Int) {
        guard isShown, total > 0 else { return }
        let percent = min(100, done * 100 / total)
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        let width = 30, filled = width * percent / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(percent)% (\(done)/\(total))".utf8))
    }

    /// Ends the bar's line, if one was drawn.
    func finish() {
        guard isShown, lastDrawn >= 0 else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
