/// What a context's save changed, sent to the context's save observers after the save is
/// durable. Pass it to another context's ``ObjectContext/mergeChanges(from:)-(ContextDidSave)``.
public struct ContextDidSave: Sendable, Hashable {
    /// The transaction's LSN.
    public var lsn: UInt64
    /// Objects inserted.
    public var inserted: Set<ObjectID>
    /// Objects updated.
    public var updated: Set<ObjectID>
    /// Objects deleted.
    public var deleted: Set<ObjectID>
}
