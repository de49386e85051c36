import ArgumentParser
import Foundation

/// `strata`: look into, check and change a Strata store directory from the shell, the way
/// `sqlite3` does for SQLite files. See `docs/INSPECTOR.md`.
@main
struct StrataTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Inspect, query, check and change a Strata store directory.",
        discussion: """
            Read-only commands (info, schema, export, query, count, log, verify, stats) never take \
            the writer lock and never change a file, so they work while an application has the \
            store open. create, import, update, delete, checkpoint, migrate (without --dry-run), \
            encrypt, decrypt and rotate-key need the writer lock. An encrypted store needs \
            --key-file FILE on every command: a file of \(KeyFile.formats).

            Example:
              strata query todo.strata TodoItem --where 'done == NO' --sort title --limit 10

            \(InspectorExit.helpTable)
            """,
        version: "strata 0.1.0 (store format: \(StrataFormat.withSnapshots))",
        subcommands: [InfoCommand.self, SchemaCommand.self, CreateCommand.self, ImportCommand.self,
                      ExportCommand.self, QueryCommand.self, CountCommand.self, UpdateCommand.self,
                      DeleteCommand.self, LogCommand.self, VerifyCommand.self, CheckpointCommand.self,
                      StatsCommand.self, MigrateCommand.self, EncryptCommand.self, DecryptCommand.self,
                      RotateKeyCommand.self] + ReplicationCommands.all
    )

    /// Runs the command line, giving usage errors exit code 2 (argument-parser's default is 64).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
            // `print` buffers: a full disk shows only now.
            if fflush(nil) != 0 {
                Console.error("strata: cannot write the output: \(String(cString: strerror(errno))).")
                Foundation.exit(InspectorExit.io.rawValue)
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            if exitCode(for: error) == .validationFailure {
                Console.error(message(for: error))
                Console.error("Run 'strata help' or add --help for usage.")
                Foundation.exit(InspectorExit.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}
