internal import StrataStorage

/// A sidecar replicator's hold on a store's log: `replication-hold` in the store directory,
/// written by `strata replicate` (docs/REPLICATION.md, "The sidecar's hold").
///
/// While the file names an LSN, the writer's checkpoints keep every log segment holding a
/// frame at or after it, so that the sidecar can ship those frames when it runs again. A
/// sidecar that stopped for good (and whose hold file was not deleted) therefore makes the
/// log grow without bound: ``PersistentStore/logHold`` tells an app, and `strata info` and
/// `strata verify` tell an operator, once it holds more than ``warningFrames``.
public struct LogHold: Sendable, Hashable {
    /// The first LSN the sidecar has not shipped (0 when the file does not read as an LSN:
    /// then the whole log is kept).
    public var heldFromLSN: UInt64
    /// The store's last LSN when the hold was read.
    public var lastLSN: UInt64

    /// Frames the hold keeps that the sidecar has not shipped.
    public var framesHeld: UInt64 { lastLSN >= heldFromLSN ? lastLSN - heldFromLSN + 1 : 0 }

    /// Frames held past which the hold is reported as lagging: the replicator's default
    /// backlog limit.
    public static let warningFrames: UInt64 = 100_000

    /// Whether the hold keeps more than `limit` unshipped frames.
    public func isLagging(beyond limit: UInt64 = LogHold.warningFrames) -> Bool { framesHeld > limit }

    /// What to tell an operator about the hold.
    public var explanation: String {
        let from = heldFromLSN == 0 ? "the whole log (the hold file does not read as an LSN)" : "every frame from LSN \(heldFromLSN) on"
        return "A sidecar replicator's hold (\(LogHoldFile.name)) keeps \(from): \(framesHeld) frames it has not shipped. Start `strata replicate` again so it ships them, or delete \(LogHoldFile.name) if that sidecar is retired; until then checkpoints cannot trim the log."
    }

    /// The hold in `directory`, `nil` when there is none.
    static func read(in directory: String, lastLSN: UInt64, fileSystem: any FileSystem = PosixFileSystem()) -> LogHold? {
        LogHoldFile.read(in: directory, fileSystem: fileSystem).map { LogHold(heldFromLSN: $0, lastLSN: lastLSN) }
    }

    /// Whether `strata verify` warns: the hold lags beyond ``warningFrames``, or its file does
    /// not read as an LSN (it keeps the whole log).
    var deservesWarning: Bool { heldFromLSN == 0 || isLagging() }
}

extension PersistentStore {
    /// A sidecar replicator's hold on this store's log, `nil` when there is none (see
    /// ``LogHold``). Reads one small file.
    public var logHold: LogHold? { LogHold.read(in: directory, lastLSN: lastLSN, fileSystem: options.storage.fileSystem) }
}

extension StoreInspector {
    /// A sidecar replicator's hold on the inspected store's log, `nil` when there is none.
    public var logHold: LogHold? { LogHold.read(in: directory, lastLSN: newestLSN) }
}
