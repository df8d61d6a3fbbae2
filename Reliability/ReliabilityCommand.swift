import ArgumentParser

/// `strata-reliability`: measurements that hold every change to saving,
/// loading and migrating to the same standard. `quick` runs in CI; `full`
/// produces the figures kept in RELIABILITY.md.
@main
struct ReliabilityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-reliability",
        abstract: "Reliability trials for Strata stores.",
        subcommands: [SoakCommand.self])
}
