import ArgumentParser
import Strata

/// `strata export STORE ENTITY [--format jsonl|csv] [--at LSN]`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print every row of an entity as JSON Lines or CSV, in primary-key order, in the form import reads.",
        discussion: "Example:\n  strata export people.strata Person --format csv > people.csv")

    @OptionGroup var target: EntityArguments
    @OptionGroup var at: AtOption

    @Option(help: "jsonl (default) or csv.")
    var format: ImportFormat = .jsonl

    func run() throws {
        try reportingFailures {
            let store = try at.open(target.store).store
            let rows = try store.fetchRows(FetchRequest(entityName: target.entity))
            var progress = ProgressBar("Exporting \(target.entity)", total: rows.rows.count)
            let out = OutputBuffer()
            (format == .csv ? RowFormat.csv : .jsonl).write(rows, keys: rows.keys, to: out, progress: &progress)
            progress.finish()
            try out.flush()
        }
    }
}
