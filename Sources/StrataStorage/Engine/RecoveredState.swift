/// What a store directory held when it was opened: the snapshot to start from and the
/// transactions to replay on top of it, in order.
public struct RecoveredState: Sendable {
    /// The newest usable snapshot, or `nil` when the state starts empty.
    public var snapshot: SnapshotReader?
    /// Every transaction after the snapshot, in LSN order.
    public var records: [LogRecord]
    /// What recovery found and did.
    public var report: RecoveryReport
}
