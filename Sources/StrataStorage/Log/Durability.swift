/// When a commit's frame reaches stable storage, like Redis' `appendfsync`.
public enum Durability: Sendable, Hashable, Codable {
    /// A commit returns only after its frame is on stable storage (`fdatasync`, or
    /// `F_FULLFSYNC` on Darwin). Concurrent commits share one write and one sync. The default.
    case always
    /// The log is synced about once a second; commits block rather than let the unsynced
    /// part grow older than about two seconds. A power loss may lose the last seconds.
    case everySecond
    /// The log is written at each commit but synced only at checkpoints and close. A process
    /// crash loses nothing; a power loss may lose a suffix of transactions (never a middle).
    /// (Named `never` rather than `none`, which would be ambiguous with `Optional.none`.)
    case never
}
