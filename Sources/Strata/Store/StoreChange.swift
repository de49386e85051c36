/// What one committed transaction changed, published to observers after it is durable.
///
/// Contexts use it for ``ObjectContext/mergeChanges(from:)-(StoreChange)`` and automatic merging.
///
/// A batch request's change holds its keys as ranges; the ID sets are made the first time
/// one is read, and shared by every copy of the change afterwards.
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
    public var inserted: Set<ObjectID> {
        get { insertedIDs.set }
        set { insertedIDs = ObjectIDSet(newValue) }
    }
    /// Objects updated.
    public var updated: Set<ObjectID> {
        get { updatedIDs.set }
        set { updatedIDs = ObjectIDSet(newValue) }
    }
    /// Objects deleted.
    public var deleted: Set<ObjectID> {
        get { deletedIDs.set }
        set { deletedIDs = ObjectIDSet(newValue) }
    }
    /// The context that saved, when a context did (to skip merging one's own saves).
    public var originContext: ObjectIdentifier?

    var insertedIDs: ObjectIDSet
    var updatedIDs: ObjectIDSet
    var deletedIDs: ObjectIDSet

    init(lsn: UInt64, kind: Kind, inserted: Set<ObjectID>, updated: Set<ObjectID>, deleted: Set<ObjectID>,
         originContext: ObjectIdentifier?) {
        self.init(lsn: lsn, kind: kind, insertedIDs: ObjectIDSet(inserted), updatedIDs: ObjectIDSet(updated),
                  deletedIDs: ObjectIDSet(deleted), originContext: originContext)
    }

    init(lsn: UInt64, kind: Kind, insertedIDs: ObjectIDSet, updatedIDs: ObjectIDSet, deletedIDs: ObjectIDSet,
         originContext: ObjectIdentifier?) {
        self.lsn = lsn
        self.kind = kind
        self.insertedIDs = insertedIDs
        self.updatedIDs = updatedIDs
        self.deletedIDs = deletedIDs
        self.originContext = originContext
    }

    /// Changes are equal when their LSN, kind, ID sets and origin are.
    public static func == (a: StoreChange, b: StoreChange) -> Bool {
        a.lsn == b.lsn && a.kind == b.kind && a.originContext == b.originContext
            && a.insertedIDs.count == b.insertedIDs.count && a.updatedIDs.count == b.updatedIDs.count
            && a.deletedIDs.count == b.deletedIDs.count
            && a.inserted == b.inserted && a.updated == b.updated && a.deleted == b.deleted
    }

    /// Hashes the same fields that ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(lsn)
        hasher.combine(kind)
        hasher.combine(originContext)
        hasher.combine(inserted)
        hasher.combine(updated)
        hasher.combine(deleted)
    }
}
