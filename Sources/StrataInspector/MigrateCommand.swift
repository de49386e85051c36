import ArgumentParser
import Foundation
import Strata

/// `strata migrate STORE --schema new.json [--dry-run]`.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate the store to the schema in a JSON file (a lightweight migration), or print the plan.",
        discussion: """
            The schema file is the JSON form of the schema (what schema --json prints); an \
            entity, attribute or relationship that was renamed says so with "originalName". --dry-run \
            prints every difference, whether a lightweight migration can make it and the rows \
            it touches, and changes nothing (exit 10 when some need a custom stage). Without \
            it, the migration runs as one transaction (needs the writer lock); a change that \
            needs a custom stage is refused and nothing is written.

            Examples:
              strata migrate todo.strata --schema v2.json --dry-run
              strata migrate todo.strata --schema v2.json
            """)

    @OptionGroup var target: StoreArgument
    @OptionGroup var key: KeyFileOption

    @Option(help: ArgumentHelp("The new schema's JSON file.", valueName: "file"))
    var schema: String

    @Flag(help: "Print the plan and change nothing.")
    var dryRun = false

    func run() throws {
        var needsCustomStage = false
        try reportingFailures {
            guard let data = FileManager.default.contents(atPath: schema) else {
                throw InspectorFailure(.notAStore, "cannot read the schema file \(schema); check the path.")
            }
            let parsed = try Schema(jsonData: data)
            let out = OutputBuffer()
            if dryRun {
                let store = try StoreInspector.open(at: target.store, cipher: key.cipher()).store
                let changes = store.migrationChanges(to: parsed)
                Self.printPlan(changes, store: target.store, to: out)
                try out.flush()
                needsCustomStage = changes.contains { !$0.isLightweight }
                return
            }
            var options = PersistentStore.Options()
            options.storage.createIfMissing = false
            options.automaticCheckpointBytes = nil
            options.storage.cipher = try key.cipher()
            guard CreateCommand.isStore(target.store) else {
                throw InspectorFailure(.notAStore, "\(target.store) is not a Strata store; check the path.")
            }
            let before = try StoreInspector.open(at: target.store, cipher: key.cipher()).store.lastLSN
            let store = try PersistentStore.open(at: target.store, schema: parsed, options: options)
            defer { try? store.close() }
            if store.lastLSN == before {
                out.line("Nothing to migrate: the store's schema already stores what \(schema) describes.")
            } else {
                let changes = store.schemaHistory.last?.changes ?? []
                out.line("Migrated \(target.store) at LSN \(store.lastLSN): \(changes.count) \(changes.count == 1 ? "change" : "changes").")
                for change in changes { out.line("  \(change)") }
            }
            try out.flush()
        }
        if needsCustomStage { throw ExitCode(InspectorExit.invalidValue.rawValue) }
    }

    /// One line per difference: lightweight or custom, the change, the rows it touches.
    static func printPlan(_ changes: [SchemaChange], store: String, to out: OutputBuffer) {
        guard !changes.isEmpty else {
            out.line("Nothing to migrate: \(store) already has this schema.")
            return
        }
        let rows = changes.map { change in
            [change.isLightweight ? "lightweight" : "custom", change.summary,
             change.rowsTouched == 0 ? "0 rows" : "\(change.rowsTouched) \(change.rowsTouched == 1 ? "row" : "rows")"]
        }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for (row, change) in zip(rows, changes) {
            out.line(TableWriter.pad(row, widths: widths))
            if let reason = change.customStageReason { out.line("    needs a custom stage: \(reason)") }
        }
        let custom = changes.filter { !$0.isLightweight }.count
        out.line(custom == 0
            ? "\(changes.count) \(changes.count == 1 ? "change" : "changes"), all lightweight: `strata migrate` without --dry-run makes them in one transaction."
            : "\(changes.count) \(changes.count == 1 ? "change" : "changes"), \(custom) needing a custom stage: migrate in the application with a MigrationPlan and MigrationStage.custom.")
    }
}
