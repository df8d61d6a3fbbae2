import ArgumentParser
import Foundation
import Strata

/// The arguments every command on a store file takes: the file, and `--json`.
struct StoreFileOptions: ParsableArguments {
    @Argument(help: "The store file.")
    var file: String

    @Flag(name: .long, help: "Print the result as JSON, for scripts.")
    var json = false

    /// Reads the file with `read`; a failure prints Strata's reason and exits 1.
    func read<Result>(_ read: (URL) throws(StrataError) -> Result) throws -> Result {
        do {
            return try read(URL(fileURLWithPath: file))
        } catch {
            FileHandle.standardError.write(Data("strata: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
    }

    func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
