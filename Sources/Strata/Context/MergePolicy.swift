/// What a save does when rows it changes were changed in the store since the context read
/// them (Core Data's merge policies).
public enum MergePolicy: Sendable, Hashable {
    /// Fail with a `.conflict` error naming the objects and keys; nothing is written. The default.
    case error
    /// Per property, the store's newer values win over this context's changes; this
    /// context's changes to properties the store did not change are kept.
    case storeTrump
    /// Per property, this context's changes win; properties it did not change take the
    /// store's newer values.
    case objectTrump
    /// This context's whole view of each object replaces the store's.
    case overwrite
    /// This context's changes to conflicting objects are discarded in favour of the store.
    case rollback
}
