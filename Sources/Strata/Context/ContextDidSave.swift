/// What a context's save changed, sent to the context's save observers after the save is
/// durable. Pass it to another context's ``ObjectContext/mergeChanges(from:)-(ContextDidSave)``.
public struct ContextDidSave: Sendable, Hashable {
    /// The transaction's LSN.
    public var lsn: UInt64
    /// Objects inserted.
    public var inserted: Set<ObjectID> {
        get { insertedIDs.set }
        set { insertedIDs = ObjectIDSet(newValue) }
    }
    /// Objects updated.
    public var updated: Set<ObjectID>
    /// Objects deleted.
    public var deleted: Set<ObjectID>

    /// The inserted IDs as the store's change keeps them: a big save's are key ranges, made
    /// into a set only when ``inserted`` is read.
    var insertedIDs: ObjectIDSet

    init(lsn: UInt64, inserted: Set<ObjectID>, updated: Set<ObjectID>, deleted: Set<ObjectID>) {
        self.init(lsn: lsn, insertedIDs: ObjectIDSet(inserted), updated: updated, deleted: deleted)
    }

    init(lsn: UInt64, insertedIDs: ObjectIDSet, updated: Set<ObjectID>, deleted: Set<ObjectID>) {
        self.lsn = lsn
        self.insertedIDs = insertedIDs
        self.updated = updated
        self.deleted = deleted
    }

    /// Saves are equal when their LSN and ID sets are.
    public static func == (a: ContextDidSave, b: ContextDidSave) -> Bool {
        a.lsn == b.lsn && a.insertedIDs.count == b.insertedIDs.count
            && a.updated == b.updated && a.deleted == b.deleted && a.inserted == b.inserted
    }

    /// Hashes the same fields that ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(lsn)
        hasher.combine(inserted)
        hasher.combine(updated)
        hasher.combine(deleted)
    }
}
