#if STRATA_REPLICATION
import ArgumentParser
import Dispatch
import Foundation
import Strata
import StrataReplication

/// `strata replicate STORE --to postgres://…`: the sidecar, shipping the log of a store that
/// another process writes, until SIGINT or SIGTERM.
struct ReplicateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replicate",
        abstract: "Ship a store's log to PostgreSQL as another process writes it, until interrupted.",
        discussion: """
            Opens the store read-only (no writer lock) and follows its log. It holds the writer's \
            log with a file in the store directory (replication-hold, the first LSN not yet \
            shipped): the writer's checkpoints keep those frames, also while the sidecar is \
            stopped, so every LSN stays restorable. Delete the file to release the hold when the \
            sidecar is retired (docs/REPLICATION.md, "The sidecar's hold").

            Example:
              strata replicate todo.strata --to postgres://strata@db.internal/strata
            """)

    @OptionGroup var target: StoreArgument
    @OptionGroup var key: KeyFileOption

    @Option(name: .long, help: "The PostgreSQL URL to ship to (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE).")
    var to: String

    @Option(name: .customLong("store-id"), help: "The ID to ship under (default: the store's UUID in lower case).")
    var storeID: String?

    @Option(name: .customLong("poll-ms"), help: "How often to look for new frames, in milliseconds (default 100).")
    var pollMilliseconds: Int = 100

    @Option(name: .customLong("report-ms"), help: "How often, at most, to print the shipped LSN and the lag while it runs, in milliseconds (default 1000).")
    var reportMilliseconds: Int = 1000

    func run() throws {
        try reportingFailures {
            var storeOptions = PersistentStore.Options()
            storeOptions.storage.readOnly = true
            storeOptions.storage.cipher = try key.cipher()
            let store = try PersistentStore.open(at: target.store, options: storeOptions)
            var options = Replicator.Options()
            options.storeID = storeID
            options.pollInterval = .milliseconds(max(1, pollMilliseconds))
            let replicator: Replicator
            do throws(ReplicationError) {
                replicator = try Replicator(store: store, url: to, options: options)
                try replicator.start()
            } catch {
                throw InspectorFailure(error.code == .invalidURL ? .usage : .io, error.message)
            }
            print("Replicating \(target.store) as store \(replicator.storeID) to \(replicator.location); SIGINT or SIGTERM stops.")
            fflush(nil)  // so that a supervisor reading a pipe sees the line now
            Signals.waitForInterrupt(reportingEvery: reportMilliseconds) {
                let status = replicator.status
                return Signals.Progress(position: status.shippedLSN,
                                        line: "Shipped LSN \(status.shippedLSN) (local LSN \(status.localLSN), \(status.lagFrames) frame(s) behind).",
                                        error: status.lastError?.message)
            }
            replicator.stop()
            let status = replicator.status
            print("Stopped: PostgreSQL holds store \(status.storeID) up to LSN \(status.shippedLSN); the writer keeps its log from LSN \(status.shippedLSN + 1) for the next run (delete \(target.store)/replication-hold to release it).")
            if let error = status.lastError { Console.error("strata: the last attempt failed: \(error.message)") }
        }
    }
}
#endif
