import Foundation
import Strata

/// An executable of this package built beside the test bundle
/// (`strata-test-writer`, `strata`), for tests that run another process.
func builtExecutable(_ name: String) throws -> URL {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [bundle, bundle.deletingLastPathComponent()].map { $0.appendingPathComponent(name) }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw StrataError(.objectNotFound, "\(name) was not built next to the tests (run swift build first)")
    }
    return found
}
