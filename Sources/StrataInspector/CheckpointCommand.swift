import ArgumentParser
import Strata

/// `strata checkpoint STORE`.
struct CheckpointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoint",
        abstract: "Write a snapshot of the store and trim the log it replaces (needs the writer lock).",
        discussion: "Example:\n  strata checkpoint todo.strata")

    @OptionGroup var target: StoreArgument
    @OptionGroup var key: KeyFileOption

    func run() throws {
        try reportingFailures {
            let store = try WritableStore.open(target.store, key: key)
            defer { try? store.close() }
            let lsn = try store.checkpoint()
            print("Checkpoint at LSN \(lsn): the snapshot holds every transaction up to it; the log before it was removed.")
        }
    }
}
