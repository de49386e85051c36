public import Foundation

/// Where a ``Replica`` stands: how far it has applied the primary's history, how far
/// PostgreSQL holds it, and the last failure. Every field is a snapshot of one moment.
public struct ReplicaStatus: Sendable {
    /// The store ID the replica follows.
    public var storeID: String
    /// Whether the replica's applying thread runs (it keeps running through failures,
    /// retrying; it stops on ``Replica/close()``, a promotion, or a failure that retrying
    /// cannot fix, such as a gap).
    public var isRunning: Bool
    /// The last LSN the replica's store has applied.
    public var appliedLSN: UInt64
    /// The last LSN PostgreSQL held for the store when the replica last asked.
    public var primaryLSN: UInt64
    /// When frames were last applied (`nil` before the first after opening).
    public var lastAppliedAt: Date?
    /// The failure of the last attempt, when it failed; `nil` once an attempt succeeds again.
    public var lastError: ReplicationError?
    /// How many attempts in a row have failed.
    public var consecutiveFailures: Int

    /// Frames PostgreSQL holds that the replica has not applied yet.
    public var lagFrames: UInt64 { primaryLSN > appliedLSN ? primaryLSN - appliedLSN : 0 }
}
