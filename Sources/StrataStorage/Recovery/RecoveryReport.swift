/// What opening a store found and did: the snapshot used, the transactions replayed, and
/// any torn tail truncated or damaged data moved aside.
public struct RecoveryReport: Sendable, Hashable, Codable {
    /// A torn or zero-filled tail that was cut off (only the newest segment may be torn).
    public struct TornTail: Sendable, Hashable, Codable {
        /// The segment file.
        public var file: String
        /// The offset the file was cut at (the end of the last whole frame).
        public var offset: Int64
        /// Bytes discarded after that offset.
        public var bytesDiscarded: Int64
        /// The LSN of the last whole transaction kept.
        public var lastGoodLSN: UInt64
    }

    /// The snapshot the state was loaded from, if any.
    public var snapshotFile: String?
    /// The LSN of that snapshot (0 when there is none).
    public var snapshotLSN: UInt64 = 0
    /// Snapshots that could not be used, with the reason.
    public var unusableSnapshots: [String: String] = [:]
    /// How many transactions were replayed from the log after the snapshot.
    public var replayedTransactions: Int = 0
    /// The LSN of the last transaction in the recovered state (0 for an empty store).
    public var lastLSN: UInt64 = 0
    /// The torn tail that was cut off (or, read-only, ignored), if any.
    public var tornTail: TornTail?
    /// Where damage in the middle was found when recovering with ``RecoveryMode/pointInTime``.
    public var corruption: String?
    /// Files moved aside by point-in-time recovery.
    public var quarantinedFiles: [String] = []
    /// Leftover files removed (unfinished snapshots, segments torn while being created).
    public var removedFiles: [String] = []
    /// When the store was opened, microseconds since 1970-01-01 UTC.
    public var openedAt: Int64 = 0
    /// Whether the open was read-only (then nothing was changed on disk).
    public var readOnly: Bool = false

    /// Whether recovery had to repair or skip anything.
    public var hadDamage: Bool {
        tornTail != nil || corruption != nil || !unusableSnapshots.isEmpty || !quarantinedFiles.isEmpty
    }
}
