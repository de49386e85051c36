#if STRATA_REPLICATION
import ArgumentParser
import Foundation
import Strata
import StrataReplication

/// `strata promote DIR --from postgres://… --store ID`: makes DIR the store's new primary,
/// fencing the old one.
struct PromoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promote",
        abstract: "Make a replica the store's primary, fencing the old primary.",
        discussion: """
            Builds (or rebuilds) the replica in DIR from PostgreSQL, raises the store's epoch there \
            (from then on PostgreSQL refuses the old primary's frames, and its replicator stops with \
            "fenced"), applies every frame PostgreSQL committed before the fence, records the epoch \
            in DIR, and leaves DIR a writable store. Stop any `strata follow` on DIR first. Then \
            open DIR in the application and ship it with a Replicator (or `strata replicate DIR`). \
            See docs/REPLICATION.md, "Promotion and fencing".

            Example:
              strata promote /var/lib/app/replica.strata --from postgres://strata@db.internal/strata --store 3f2a…e1
            """)

    @Option(name: .long, help: "The PostgreSQL URL the replicator ships to (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE).")
    var from: String

    @Option(name: .long, help: "The store ID it ships under.")
    var store: String

    @OptionGroup var key: KeyFileOption

    @Option(name: .customLong("timeout-s"), help: "How long to wait for the frames shipped before the fence, in seconds (default 60).")
    var timeoutSeconds: Int = 60

    @Argument(help: "The replica's directory (missing, empty, or a replica of the same store).")
    var directory: String

    func run() throws {
        try reportingFailures {
            let promoted: PersistentStore
            let epoch: UInt64
            let cipher = try key.cipher()   // read before anything is fenced
            do throws(ReplicationError) {
                var options = Replica.Options()
                options.storeOptions.storage.cipher = cipher
                var writable = PersistentStore.Options()
                writable.storage.cipher = cipher
                let replica = try PersistentStore.openReplica(at: directory, from: from, storeID: store, options: options)
                promoted = try replica.promote(options: writable, timeout: .seconds(max(1, timeoutSeconds)))
                epoch = replica.promotedEpoch ?? 0
            } catch {
                throw InspectorFailure(InspectorExit(replication: error.code), error.message)
            }
            let lsn = promoted.lastLSN
            try promoted.close()
            print("Promoted store \(store) in \(directory) at LSN \(lsn) under epoch \(epoch): the old primary is fenced. Open \(directory) for writing and ship it with `strata replicate \(directory) --to …` or a Replicator.")
        }
    }
}
#endif
