public import Foundation

/// One committed transaction as persistent history keeps it: who, when, and which rows it
/// inserted, updated (with the keys that changed) and deleted.
///
/// Core Data's `NSPersistentHistoryTransaction`. Rows are kept as key ranges per entity, so
/// the history of a batch update over a million rows is a few bytes, and its
/// ``updatedObjectIDs`` costs nothing until iterated. ``changes`` lists the changes one row
/// at a time, as Core Data does; it costs one value per row.
public struct PersistentHistoryTransaction: Sendable {
    /// What kind of transaction it was.
    public enum Kind: String, Sendable, Hashable {
        /// A context's save.
        case save
        /// A batch insert request.
        case batchInsert
        /// A batch update request.
        case batchUpdate
        /// A batch delete request.
        case batchDelete
        /// A schema migration (it changes the schema, not rows: ``changeGroups`` is empty).
        case migration
    }

    /// The position right after this transaction: pass it to
    /// ``PersistentStore/history(after:)`` to read what followed.
    public var token: PersistentHistoryToken { PersistentHistoryToken(lsn: transactionNumber) }
    /// The transaction's LSN (Core Data's `transactionNumber`).
    public let transactionNumber: UInt64
    /// When it was committed.
    public let timestamp: Date
    /// Who made it: the saving context's ``ObjectContext/transactionAuthor`` (else its
    /// ``ObjectContext/name``), or a batch request's `transactionAuthor`; `nil` when unset.
    public let author: String?
    /// What kind of transaction it was.
    public let kind: Kind
    /// Its changes, grouped: per entity, the rows inserted, the rows updated with the same
    /// keys, the rows deleted.
    public let changeGroups: [PersistentHistoryChanges]
    let storeID: UUID

    init(lsn: UInt64, timestamp: Int64, entry: HistoryEntry, storeID: UUID) {
        transactionNumber = lsn
        self.storeID = storeID
        self.timestamp = Date(timeIntervalSince1970: Double(timestamp) / 1_000_000)
        author = entry.author
        switch entry.kind {
        case .batchInsert: kind = .batchInsert
        case .batchUpdate: kind = .batchUpdate
        case .batchDelete: kind = .batchDelete
        case .migration, .metadata: kind = .migration
        case .save: kind = .save
        }
        changeGroups = entry.groups.map { PersistentHistoryChanges($0, storeID: storeID) }
    }

    /// The IDs of the rows it inserted.
    public var insertedObjectIDs: ObjectIDSet { ids(.insert) }
    /// The IDs of the rows it updated.
    public var updatedObjectIDs: ObjectIDSet { ids(.update) }
    /// The IDs of the rows it deleted.
    public var deletedObjectIDs: ObjectIDSet { ids(.delete) }

    private func ids(_ type: PersistentHistoryChangeType) -> ObjectIDSet {
        let groups = changeGroups.filter { $0.changeType == type }
        if groups.count == 1 { return groups[0].objectIDs }
        return ObjectIDSet(storeID: storeID, ranges: groups.map { ($0.entityName, $0.keys) })
    }

    /// The keys the transaction changed in the row `id`: `nil` when it did not update it.
    ///
    /// - Complexity: O(groups × log runs).
    public func updatedProperties(of id: ObjectID) -> Set<String>? {
        var found: Set<String>?
        for group in changeGroups where group.changeType == .update && group.entityName == id.entityName
            && group.keys.contains(id.primaryKey) {
            found = (found ?? []).union(group.updatedProperties)
        }
        return found
    }

    /// Every change, one row at a time (Core Data's `changes`).
    ///
    /// - Complexity: O(rows changed): a batch over a million rows gives a million values;
    ///   prefer ``changeGroups`` or the ID sets there.
    public var changes: [PersistentHistoryChange] {
        changeGroups.flatMap { group in
            group.objectIDs.map { PersistentHistoryChange(changedObjectID: $0, changeType: group.changeType,
                                                          updatedProperties: group.updatedProperties) }
        }
    }
}

/// The rows of one entity that one kind of change touched in a transaction, with the keys an
/// update changed.
public struct PersistentHistoryChanges: Sendable {
    /// Inserted, updated or deleted.
    public let changeType: PersistentHistoryChangeType
    /// The entity of every row.
    public let entityName: String
    /// For updates, the keys that changed (the same for every row of the group); else empty.
    public let updatedProperties: Set<String>
    let keys: KeyRanges
    /// The rows, as IDs kept as key ranges (iterating makes them).
    public let objectIDs: ObjectIDSet

    /// How many rows.
    public var count: Int { keys.count }

    init(_ group: HistoryEntry.Group, storeID: UUID) {
        changeType = group.type
        entityName = group.entity
        updatedProperties = Set(group.properties)
        keys = group.keys
        objectIDs = ObjectIDSet(storeID: storeID, ranges: [(group.entity, group.keys)])
    }
}

/// One row's change in a transaction (Core Data's `NSPersistentHistoryChange`).
public struct PersistentHistoryChange: Sendable, Hashable {
    /// The row.
    public let changedObjectID: ObjectID
    /// What happened to it.
    public let changeType: PersistentHistoryChangeType
    /// For an update, the keys that changed; else empty.
    public let updatedProperties: Set<String>
}
