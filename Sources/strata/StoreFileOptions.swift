import ArgumentParser
import Foundation
import Strata

/// The arguments every command on a store takes: the store, and `--json`.
struct StoreFileOptions: ParsableArguments {
    @Argument(help: "The store: a file, or a PostgreSQL URL (postgres://user@host/database?schema=name).")
    var file: String

    @Flag(name: .long, help: "Print the result as JSON, for scripts (a failure too, on standard error).")
    var json = false

    func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
