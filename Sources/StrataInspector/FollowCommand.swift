#if STRATA_REPLICATION
import ArgumentParser
import Foundation
import Strata
import StrataReplication

/// `strata follow DIR --from postgres://… --store ID`: keeps a read replica in DIR up to date
/// with what a replicator ships to PostgreSQL, until SIGINT or SIGTERM.
struct FollowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Keep a read replica of a shipped store up to date, until interrupted.",
        discussion: """
            Builds DIR from the newest snapshot in PostgreSQL and the frames after it, then applies \
            each new frame as PostgreSQL announces it (LISTEN/NOTIFY, with a poll as a backup). DIR \
            must be missing, empty, or a replica of the same store (it is rebuilt: a replica is a \
            cache of PostgreSQL). Other processes read DIR as a read-only store (strata query, \
            PersistentStore.Options.readOnly) while it follows. Prints the applied LSN when it \
            changes, at most once per --report-ms. See docs/REPLICATION.md, "Read replicas".

            Example:
              strata follow /var/lib/app/replica.strata --from postgres://strata@db.internal/strata --store 3f2a…e1
            """)

    @Option(name: .long, help: "The PostgreSQL URL the replicator ships to (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE).")
    var from: String

    @Option(name: .long, help: "The store ID it ships under.")
    var store: String

    @OptionGroup var key: KeyFileOption

    @Option(name: .customLong("poll-ms"), help: "How often to ask PostgreSQL for frames when no notification comes, in milliseconds (default 1000).")
    var pollMilliseconds: Int = 1000

    @Option(name: .customLong("report-ms"), help: "How often, at most, to print the applied LSN, in milliseconds (default 1000).")
    var reportMilliseconds: Int = 1000

    @Argument(help: "The replica's directory (missing, empty, or a replica of the same store).")
    var directory: String

    func run() throws {
        try reportingFailures {
            var options = Replica.Options()
            options.pollInterval = .milliseconds(max(1, pollMilliseconds))
            options.retryInterval = .milliseconds(max(1, min(1000, pollMilliseconds)))
            options.storeOptions.storage.cipher = try key.cipher()
            let replica: Replica
            do throws(ReplicationError) {
                replica = try PersistentStore.openReplica(at: directory, from: from, storeID: store, options: options)
            } catch {
                throw InspectorFailure(InspectorExit(replication: error.code), error.message)
            }
            print("Following store \(store) from \(replica.location) in \(directory), at LSN \(replica.status.appliedLSN); SIGINT or SIGTERM stops.")
            fflush(nil)  // so that a supervisor reading a pipe sees the line now
            Signals.waitForInterrupt(reportingEvery: reportMilliseconds) {
                let status = replica.status
                return Signals.Progress(position: status.appliedLSN, line: "Applied LSN \(status.appliedLSN) (primary at \(status.primaryLSN)).",
                                        error: status.lastError?.message)
            }
            let status = replica.status
            do throws(ReplicationError) { try replica.close() } catch {
                throw InspectorFailure(InspectorExit(replication: error.code), error.message)
            }
            print("Stopped at LSN \(status.appliedLSN) (primary at \(status.primaryLSN)); \(directory) stays a replica of store \(store).")
        }
    }
}
#endif
