#if STRATA_REPLICATION
import ArgumentParser
import Foundation
import StrataReplication

/// The subcommands that need the replication product (left out of builds without it).
enum ReplicationCommands {
    static let all: [any ParsableCommand.Type] = [RestoreCommand.self, ReplicateCommand.self, FollowCommand.self, PromoteCommand.self]
}

/// `strata restore --from postgres://… --store ID [--at LSN|TIME] DIR`.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Build a store directory from what a replicator shipped to PostgreSQL.",
        discussion: """
            Takes the newest shipped snapshot at or before the target LSN and every frame after it, \
            checks each one, and writes them byte for byte. DIR must be missing or empty. See docs/REPLICATION.md.

            Example:
              strata restore --from postgres://strata@db.internal/strata --store 3f2a…e1 --at 1200 todo-restored.strata
              strata restore --from postgres://strata@db.internal/strata --store 3f2a…e1 --at 2026-11-25T06:00:00Z todo-restored.strata
            """)

    @Option(name: .long, help: "The PostgreSQL URL the replicator shipped to (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE).")
    var from: String

    @Option(name: .long, help: "The store ID it shipped under (by default the store's UUID in lower case).")
    var store: String

    @Option(name: .long, help: ArgumentHelp("The LSN to restore to, or a time (ISO 8601, such as 2026-11-25T06:00:00Z): the state after the last transaction committed at or before it. Default: the newest shipped.", valueName: "LSN|TIME"))
    var at: String?

    @Argument(help: "The directory to build the store in (missing or empty).")
    var directory: String

    func run() throws {
        try reportingFailures {
            let report: RestoreReport
            let target = try RestoreTarget(at)
            do throws(ReplicationError) {
                switch target {
                case .lsn(let lsn): report = try StoreRestore.restore(from: from, storeID: store, at: lsn, into: directory)
                case .time(let time): report = try StoreRestore.restore(from: from, storeID: store, asOf: time, into: directory)
                }
            } catch {
                throw InspectorFailure(InspectorExit(replication: error.code), error.message)
            }
            let start = report.snapshotLSN > 0 ? "snapshot \(report.snapshotLSN)" : "the first frame"
            print("Restored store \(report.storeID) to LSN \(report.lsn) in \(report.directory): \(start), then \(report.frames) frame(s) in \(report.segments.count) segment(s).")
        }
    }
}

/// What `strata restore --at` names: an LSN (digits) or a time (ISO 8601).
enum RestoreTarget {
    case lsn(UInt64?)
    case time(Date)

    init(_ text: String?) throws {
        guard let text else { self = .lsn(nil); return }
        if let lsn = UInt64(text) { self = .lsn(lsn); return }
        for options in [ISO8601DateFormatter.Options.withInternetDateTime, [.withInternetDateTime, .withFractionalSeconds]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let time = formatter.date(from: text) { self = .time(time); return }
        }
        throw InspectorFailure(.usage, "--at \(text) is neither an LSN (digits) nor a time in ISO 8601 with a time zone, such as 2026-11-25T06:00:00Z or 2026-11-25T07:00:00.250+01:00.")
    }
}

extension InspectorExit {
    /// The exit code of a replication failure.
    init(replication code: ReplicationError.Code) {
        switch code {
        case .invalidURL, .invalidArgument: self = .usage
        case .notFound: self = .notAStore
        case .gap, .corrupted: self = .corrupted
        default: self = .io
        }
    }
}
#else
import ArgumentParser

/// Built without the replication product (`STRATA_WITHOUT_REPLICATION=1`): no such commands.
enum ReplicationCommands {
    static let all: [any ParsableCommand.Type] = []
}
#endif
