import Foundation
import StrataStorage

/// A row a save expected to find at a given version, which the store has changed or deleted.
struct StoreConflict: Sendable, Hashable {
    var objectID: ObjectID
    /// The row's version in the store now, or `nil` when it was deleted.
    var currentVersion: UInt64?
}

extension PersistentStore {
    /// Commits one transaction: checks that every updated or deleted row is still at the
    /// version the caller read (unless `expectedVersion` is 0), builds the next version,
    /// appends it to the log, waits for durability, publishes it and notifies observers.
    ///
    /// Concurrent commits share one log write and sync (group commit): the writer lock is
    /// held only while the version is built and its LSN assigned.
    ///
    /// - Returns: the published version and the change notification.
    /// - Throws: `StrataError` `.conflict` with the conflicts as cause (nothing written);
    ///   `.constraintConflict` with ``UniquenessConflicts`` as cause when the transaction
    ///   would leave two rows sharing a constrained value (nothing written);
    ///   `StorageError` when the log cannot be written (the store is then read-only).
    @discardableResult
    func commit(_ changes: Changeset, kind: TransactionKind = .save, payload: [UInt8]? = nil,
                origin: ObjectIdentifier? = nil, author: String? = nil) throws -> (StoreVersion, StoreChange) {
        // Encoding, compressing and checksumming the payload need no lock: only the version
        // build, the conflict check and the LSN assignment are serialized. So is the history
        // entry (only its LSN and time are given under the lock).
        let record = historyRecord(kind: kind, author: author) { HistoryEntry.groups(changes, layouts: layouts) }
        let authored = record != nil
        let prepare = { @Sendable () throws -> PreparedFrame in
            try PreparedFrame(kind: kind, author: author, authored: authored, payload: payload ?? ChangesetCodec.encode(changes))
        }
        // A large save's frame is prepared on a worker while the version is built below.
        let rows = changes.entities.values.reduce(0) { $0 + $1.inserts.count + $1.updates.count }
        let background = FramePreparation.isWorthIt(rows: rows) ? FramePreparation(prepare) : nil
        let inline = background == nil ? try prepare() : nil
        let (version, lsn) = try writer.withLock { state throws -> (StoreVersion, UInt64) in
            // The next version is built from the head's chunks; if one of them failed its
            // first decode, the damage is thrown instead of what the build found or built from
            // its placeholder columns (a conflict, a missing row), and nothing is logged.
            let (next, lsn) = try checkingDamageOfAnyError { try buildNext(changes, state: &state) }
            guard let frame = try inline ?? background?.frame() else { preconditionFailure("a commit without its frame") }
            let now = Self.now()
            let assigned = try engine.submit(kind: frame.kind, prepared: frame.payload, timestamp: now)
            precondition(assigned == lsn, "log LSNs must follow the store's writer lock")
            if let record { historyLog?.append(lsn: lsn, timestamp: now, payload: record) }
            state.head = next
            return (next, lsn)
        }
        try engine.waitUntilDurable(lsn)
        publish(version)
        let change = StoreChange(lsn: lsn, kind: StoreChange.Kind(kind), insertedIDs: insertedIDs(changes),
                                 updatedIDs: ObjectIDSet(ids(changes) { $0.updates.map(\.primaryKey) }),
                                 deletedIDs: ObjectIDSet(ids(changes) { $0.deletes.map(\.primaryKey) }), originContext: origin)
        notify(change)
        checkpointIfDue()
        waitForSynchronousReplication(lsn)
        return (version, change)
    }

    /// The next version with `changes` applied to the head, and its LSN, under the writer
    /// lock (`state`).
    ///
    /// - Throws: the conflicts with rows changed since the caller read them (nothing is
    ///   applied then), `.readOnly`, `.misuse` when `changes` do not apply, or the uniqueness
    ///   conflicts the new version would have.
    private func buildNext(_ changes: Changeset, state: inout WriterState) throws -> (StoreVersion, UInt64) {
        var conflicts: [StoreConflict] = []
        for (index, entity) in changes.entities {
            let table = state.head.tables[index]
            let entityID = idEntities[index]
            func check(_ key: Int64, _ expected: UInt64) {
                guard expected != 0 else { return }
                let id = ObjectID(entity: entityID, primaryKey: key)
                guard let location = table.locate(key) else {
                    conflicts.append(StoreConflict(objectID: id, currentVersion: nil)); return
                }
                let current = table.version(at: location)
                if current != expected { conflicts.append(StoreConflict(objectID: id, currentVersion: current)) }
            }
            for update in entity.updates { check(update.primaryKey, update.expectedVersion) }
            for delete in entity.deletes { check(delete.primaryKey, delete.expectedVersion) }
        }
        if !conflicts.isEmpty { throw StoreConflicts(conflicts: conflicts) }
        guard !isReadOnly else {
            throw StrataError(.readOnly, "The store at \(directory) is read-only" + (engine.failure.map { " after a write error (\($0.message))" } ?? " (opened read-only)") + "; nothing was saved.")
        }
        let lsn = engine.lastLSN + 1
        var next = state.head
        do {
            try Self.apply(changes, to: &next, lsn: lsn, nextKeys: &state.nextPrimaryKeys)
        } catch {
            throw StrataError(.misuse, "The transaction does not apply to the store (\(error)); nothing was saved.")
        }
        next = StoreVersion(lsn: lsn, tables: next.tables)
        let broken = uniquenessConflicts(changes, in: next)
        if !broken.isEmpty {
            throw UniquenessConflicts(conflicts: broken, totalCount: broken.count)
                .error("The save would break a uniqueness constraint", advice: "Nothing was saved. Change the values, or set the context's mergePolicy to .objectTrump (update the stored object) or .storeTrump (keep the stored values).")
        }
        return (next, lsn)
    }

    /// The IDs of the inserted rows. A large save keeps them as key ranges (one range when
    /// its keys were allocated together), made into a set only if someone reads them: an
    /// observer, or a context merging the change. A small one makes the set at once.
    private func insertedIDs(_ changes: Changeset) -> ObjectIDSet {
        let count = changes.entities.values.reduce(0) { $0 + $1.inserts.count }
        if count <= Self.eagerInsertedIDs { return ObjectIDSet(ids(changes) { $0.inserts.primaryKeys }) }
        var ranges: [(entity: Int, keys: KeyRanges)] = []
        for (index, entity) in changes.entities where !entity.inserts.isEmpty {
            ranges.append((index, Self.keyRanges(entity.inserts)))
        }
        return objectIDSet(ranges)
    }

    /// Up to this many inserted rows, a commit makes their ID set at once: for a few rows
    /// the set costs less than the ranges and the shared cache behind them.
    static let eagerInsertedIDs = 32

    /// The distinct keys of `inserts` as runs.
    ///
    /// - Complexity: O(1) for a run of consecutive keys (a batch insert's); O(n) when the
    ///   keys fill a dense range (a bitmap proves they are distinct); O(n log n) otherwise.
    static func keyRanges(_ inserts: Changeset.Inserts) -> KeyRanges {
        if let run = inserts.consecutiveKeys { return KeyRanges(first: run.first, count: Int64(run.count)) }
        var low = Int64.max, high = Int64.min
        for position in inserts.indices {
            low = min(low, inserts.primaryKey(at: position))
            high = max(high, inserts.primaryKey(at: position))
        }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if !overflow, span == Int64(inserts.count - 1) {
            var seen = [UInt64](repeating: 0, count: inserts.count / 64 + 1)
            var distinct = true
            for position in inserts.indices {
                let bit = Int(inserts.primaryKey(at: position) - low)
                let mask: UInt64 = 1 << UInt64(bit % 64)
                if seen[bit / 64] & mask != 0 { distinct = false; break }
                seen[bit / 64] |= mask
            }
            if distinct { return KeyRanges(first: low, count: Int64(inserts.count)) }
        }
        var keys = inserts.primaryKeys
        keys.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(keys.count)
        for key in keys where unique.last != key { unique.append(key) }
        return KeyRanges(sortedKeys: unique)
    }

    private func ids(_ changes: Changeset, _ keys: (Changeset.EntityChanges) -> [Int64]) -> Set<ObjectID> {
        var result = Set<ObjectID>()
        for (index, entity) in changes.entities {
            let list = keys(entity)
            if list.isEmpty { continue }
            // Presize for a large save (a million inserts would otherwise rehash ~20 times);
            // reserving on an empty set allocates, so one-row saves skip it.
            if result.isEmpty && list.count > 1 { result.reserveCapacity(list.count) }
            let entity = idEntities[index]
            for key in list {
                result.insert(ObjectID(entity: entity, primaryKey: key))
            }
        }
        return result
    }
}

/// The conflicts of a failed commit (internal; contexts turn them into `.conflict` errors).
struct StoreConflicts: Error, Sendable {
    var conflicts: [StoreConflict]
}

extension StoreChange.Kind {
    init(_ kind: TransactionKind) {
        switch kind {
        case .batchUpdate: self = .batchUpdate
        case .batchDelete: self = .batchDelete
        case .batchInsert: self = .batchInsert
        default: self = .save
        }
    }
}
