import ArgumentParser

/// `strata-bench`: Strata and SQLite/GRDB on the same workloads, side by side.
@main
struct StrataBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-bench",
        abstract: "Runs the same workloads on Strata and on SQLite (through GRDB) and compares them.",
        discussion: "Build in release (swift build -c release). Figures are medians over several runs; "
            + "the machine's physical limits are measured in the same run.",
        subcommands: [RunCommand.self, ListCommand.self, RSSProbe.self],
        defaultSubcommand: RunCommand.self)
}
