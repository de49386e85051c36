/// What one committed transaction changed, published to observers after it is durable.
///
/// Contexts use it for ``ObjectContext/mergeChanges(from:)-(StoreChange)`` and automatic merging.
public struct StoreChange: Sendable, Hashable {
    /// What kind of transaction it was.
    public enum Kind: String, Sendable, Hashable {
        /// A context's save.
        case save
        /// A batch update request.
        case batchUpdate
        /// A batch delete request.
        case batchDelete
        /// A batch insert request.
        case batchInsert
    }

    /// The transaction's LSN.
    public var lsn: UInt64
    /// What kind of transaction it was.
    public var kind: Kind
    /// Objects inserted.
    public var inserted: Set<ObjectID>
    /// Objects updated.
    public var updated: Set<ObjectID>
    /// Objects deleted.
    public var deleted: Set<ObjectID>
    /// The context that saved, when a context did (to skip merging one's own saves).
    public var originContext: ObjectIdentifier?
}
