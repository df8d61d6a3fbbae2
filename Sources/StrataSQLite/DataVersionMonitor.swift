import Foundation
import StrataCore
import GRDB

/// Watches a store file for commits made through other connections — other
/// processes, or other containers in this process — by polling SQLite's
/// `PRAGMA data_version` on a connection of its own.
///
/// `data_version` changes whenever another connection commits, so a poll costs
/// one tiny query and finds commits within one interval. (File-system
/// notifications would be faster but are not portable across platforms.)
///
/// ```swift
/// let monitor = try DataVersionMonitor(path: url.path) { print("the file changed") }
/// monitor.start()
/// ```
final class DataVersionMonitor: Sendable {
    private let queue: DatabaseQueue
    private let interval: Duration
    private let onChange: @Sendable () -> Void
    private let task = Locked<Task<Void, Never>?>(nil)

    init(path: String, interval: Duration = .milliseconds(20), onChange: @escaping @Sendable () -> Void) throws {
        var configuration = Configuration()
        configuration.label = "strata.monitor"
        configuration.busyMode = .timeout(1)
        configuration.readonly = true
        queue = try DatabaseQueue(path: path, configuration: configuration)
        self.interval = interval
        self.onChange = onChange
    }

    private func currentVersion() -> Int? {
        try? queue.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
    }

    /// Starts polling; calls `onChange` after each interval in which the file
    /// changed, and once at the start when `reportingFirst`.
    func start(reportingFirst: Bool = false) {
        let initial = currentVersion()
        let newTask = Task.detached(priority: .utility) { [weak self] in
            if reportingFirst, !Task.isCancelled { self?.onChange() }
            var last = initial
            while !Task.isCancelled {
                guard let self else { return }
                try? await Task.sleep(for: self.interval)
                let version = self.currentVersion()
                if version != last {
                    last = version
                    self.onChange()
                }
            }
        }
        task.withLock { task in
            task?.cancel()
            task = newTask
        }
    }

    /// Stops polling and closes the connection.
    func stop() {
        task.withLock { task in
            task?.cancel()
            task = nil
        }
        try? queue.close()
    }

    deinit {
        task.withLock { $0?.cancel() }
    }
}
