import ArgumentParser
import Foundation
import Strata

/// `strata query STORE ENTITY [--where …] [--sort …] [--limit N] [--offset N] [--keys …] [--format …]`.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the rows of an entity that match a predicate.",
        discussion: """
            Keys are the attributes and to-one relationships (as the destination's primary key); \
            _pk is the row's own primary key.

            Examples:
              strata query people.strata Person --where 'age >= 18' --sort age:desc,name --limit 10
              strata query people.strata Person --where 'name BEGINSWITH $p' --arg p=A --keys _pk,name --format json
              strata query todo.strata TodoItem --where 'createdAt < $d' --arg d:date=2025-01-01T05:00:00Z
            """)

    @OptionGroup var target: EntityArguments
    @OptionGroup var key: KeyFileOption
    @OptionGroup var filter: FilterOptions
    @OptionGroup var at: AtOption

    @Option(help: ArgumentHelp("Sort keys, most significant first: key[:desc],…", valueName: "keys"))
    var sort: String?

    // `.unconditional`: `--limit -3` reaches validate() (and its message) rather than being
    // taken for an option, which left "Missing value for '--limit'".
    @Option(parsing: .unconditional, help: "At most this many rows.")
    var limit: Int?

    @Option(parsing: .unconditional, help: "Skip this many rows first.")
    var offset: Int?

    @Option(help: ArgumentHelp("The keys to print, in order (default: all; _pk is the primary key).", valueName: "a,b"))
    var keys: String?

    @Option(help: "table (default), json, jsonl or csv.")
    var format: RowFormat = .table

    @Flag(help: "Print how the query runs (which index finds the rows, whether an index walk orders them) instead of the rows.")
    var explain = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative.") }
        if let offset, offset < 0 { throw ValidationError("--offset must not be negative.") }
    }

    func run() throws {
        try reportingFailures {
            let store = try at.open(target.store, key: key).store
            var request = try FetchRequest(entityName: target.entity, predicate: filter.predicate(),
                                           sortKeys: SortParsing.keys(sort))
            request.fetchLimit = limit ?? 0
            request.fetchOffset = offset ?? 0
            let wanted = keys.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
            if let wanted { request.propertiesToFetch = wanted.filter { $0 != RowFormat.primaryKey } }
            if explain {
                let out = OutputBuffer()
                for line in try store.fetchStrategy(request).description.split(separator: "\n") { out.line(String(line)) }
                try out.flush()
                return
            }
            let rows = try store.fetchRows(request)
            var progress = ProgressBar("Writing", total: rows.rows.count)
            let out = OutputBuffer()
            format.write(rows, keys: wanted ?? rows.keys, to: out, progress: &progress)
            progress.finish()
            try out.flush()
        }
    }
}

/// Parses `--sort key[:desc],…`.
enum SortParsing {
    static func keys(_ text: String?) throws -> [SortKey] {
        guard let text else { return [] }
        return try text.split(separator: ",").map { part in
            let pieces = part.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            switch (pieces.count, pieces.last?.lowercased()) {
            case (1, _): return SortKey(pieces[0])
            case (2, "desc"?): return SortKey(pieces[0], ascending: false)
            case (2, "asc"?): return SortKey(pieces[0])
            default: throw InspectorFailure(.usage, "--sort '\(part)' is not key, key:asc or key:desc.")
            }
        }
    }
}
