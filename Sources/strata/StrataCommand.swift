import ArgumentParser

/// The `strata` command-line tool.
@main
struct StrataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Strata: a Core Data-style object graph and persistence stack for Swift.",
        subcommands: [
            DemoCommand.self, InspectCommand.self, FetchCommand.self, HistoryCommand.self, CheckCommand.self,
            ExportCommand.self, ImportCommand.self, MigrateCommand.self,
        ])

    func run() async throws {
        throw CleanExit.helpRequest(self)
    }
}
