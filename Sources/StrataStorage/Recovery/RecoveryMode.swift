/// What recovery does when it finds damage before the end of the log.
public enum RecoveryMode: Sendable, Hashable {
    /// Fail with a ``StorageError/Code/corrupted`` error naming file, offset and last good LSN,
    /// and change nothing. The default.
    case strict
    /// Open at the last good transaction and move everything after it aside to
    /// `*.quarantine` files (never deleted by Strata). Requires a writable open.
    case pointInTime
}
