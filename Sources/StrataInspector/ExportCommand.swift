import ArgumentParser
import Strata

/// `strata export STORE ENTITY [--format jsonl|json|csv] [--at LSN]`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print every row of an entity as JSON Lines, JSON or CSV, in primary-key order (import reads JSON Lines and CSV).",
        discussion: "Example:\n  strata export people.strata Person --format csv > people.csv")

    @OptionGroup var target: EntityArguments
    @OptionGroup var key: KeyFileOption
    @OptionGroup var at: AtOption

    @Option(help: "jsonl (default), json (one array, as query prints it) or csv.")
    var format: ExportFormat = .jsonl

    func run() throws {
        try reportingFailures {
            let store = try at.open(target.store, key: key).store
            let rows = try store.fetchRows(FetchRequest(entityName: target.entity))
            var progress = ProgressBar("Exporting \(target.entity)", total: rows.rows.count)
            let out = OutputBuffer()
            format.rowFormat.write(rows, keys: rows.keys, to: out, progress: &progress)
            progress.finish()
            try out.flush()
        }
    }
}

/// What `export --format` accepts; an unknown value is refused with these listed.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    /// One JSON object per line, what `import` reads.
    case jsonl
    /// One JSON array, as `query --format json` prints it.
    case json
    /// CSV with a header line, what `import` reads.
    case csv

    /// The row writer.
    var rowFormat: RowFormat {
        switch self {
        case .jsonl: return .jsonl
        case .json: return .json
        case .csv: return .csv
        }
    }
}
