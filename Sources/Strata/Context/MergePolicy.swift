/// What a save does when rows it changes were changed in the store since the context read
/// them, or when objects it inserts share the values of a uniqueness constraint with a
/// stored row or with each other (Core Data's merge policies).
///
/// For a uniqueness conflict, `.objectTrump` is an upsert: the inserted object's values
/// (those that differ from the defaults) are written over the stored row with the same
/// key, no second row is made, and the inserted object takes over the stored row's
/// ``ObjectID``. `.storeTrump` also merges the two but keeps the stored values. `.overwrite`
/// resolves like `.objectTrump`, `.rollback` like `.storeTrump`; `.error` throws
/// `.constraintConflict`.
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
