public import Foundation

/// Where a ``Replicator`` stands: what PostgreSQL holds, how far behind it is, and the last
/// failure. Read it with ``Replicator/status``; every field is a snapshot of one moment.
public struct ReplicationStatus: Sendable {
    /// The store ID the frames are shipped under.
    public var storeID: String
    /// Whether the replicator's shipping thread runs (it keeps running through failures,
    /// retrying; it stops on ``Replicator/stop()`` or a failure that retrying cannot fix).
    public var isRunning: Bool
    /// The last LSN PostgreSQL has committed for the store.
    public var shippedLSN: UInt64
    /// The last LSN committed in the local store when the status was taken.
    public var localLSN: UInt64
    /// The LSN of the newest snapshot shipped (0 when none).
    public var snapshotLSN: UInt64
    /// When frames were last committed in PostgreSQL (`nil` before the first).
    public var lastShippedAt: Date?
    /// The failure of the last attempt, when it failed; `nil` once an attempt succeeds again.
    public var lastError: ReplicationError?
    /// How many attempts in a row have failed.
    public var consecutiveFailures: Int
    /// The backlog, in frames, past which ``isOverBacklogLimit`` is set (and a warning logged).
    public var backlogLimit: UInt64

    /// Frames committed locally and not yet in PostgreSQL: what a loss of this machine
    /// would lose in asynchronous mode.
    public var lagFrames: UInt64 { localLSN > shippedLSN ? localLSN - shippedLSN : 0 }

    /// Whether the unshipped backlog has passed ``backlogLimit``. Writes go on; the local
    /// log keeps every unshipped segment, so the store directory grows until PostgreSQL
    /// catches up.
    public var isOverBacklogLimit: Bool { lagFrames > backlogLimit }
}
