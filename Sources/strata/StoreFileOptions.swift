import ArgumentParser
import Foundation
import Strata

/// The arguments every command on a store takes: the store, and `--json`.
struct StoreFileOptions: ParsableArguments {
    @Argument(help: "The store: a file, or a PostgreSQL URL (postgres://user@host/database?schema=name).")
    var file: String

    @Flag(name: .long, help: "Print the result as JSON, for scripts (a failure too, on standard error).")
    var json = false

    /// The store file; a failure is thrown to `StrataCommand.main`, which prints it once.
    func read<Result>(_ read: (URL) throws(StrataError) -> Result) throws(StrataError) -> Result {
        guard !file.isEmpty else { throw StrataError(.invalidStoreLocation, "No store was named: give a file or a PostgreSQL URL") }
        return try read(URL(fileURLWithPath: file))
    }

    func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
