import StrataStorage

/// A transaction built against the head version under the writer lock: the next version
/// (already stamped with its LSN), its log payload and what it changed.
struct BuiltTransaction {
    var next: StoreVersion
    var payload: [UInt8]
    /// The frame of ``payload``, already being prepared on a worker (a large transaction,
    /// see ``FramePreparation``); `nil`: the commit prepares ``payload`` itself.
    var frame: FramePreparation? = nil
    var inserted = ObjectIDSet()
    var updated = ObjectIDSet()
    var deleted = ObjectIDSet()
    /// Its changes for persistent history (read only when the store keeps history).
    var history: [HistoryEntry.Group] = []
}

extension PersistentStore {
    /// Commits a transaction that `build` computes from the head version (batch requests
    /// decide which rows they touch only once they hold the writer lock, so the rows they
    /// log are exactly the rows they change). `build` returns `nil` to write nothing.
    ///
    /// - Returns: the published version and the change, or `nil` when nothing was written.
    func commitTransaction(kind: TransactionKind, author: String? = nil,
                           build: (_ head: StoreVersion, _ lsn: UInt64, _ nextKeys: inout [Int64]) throws -> BuiltTransaction?)
        throws -> (StoreVersion, StoreChange)? {
        let built = try writer.withLock { state throws -> (BuiltTransaction, UInt64)? in
            guard !isReadOnly else {
                throw StrataError(.readOnly, "The store at \(directory) is read-only" + (engine.failure.map { " after a write error (\($0.message))" } ?? " (opened read-only)") + "; nothing was written.")
            }
            let lsn = engine.lastLSN + 1
            var keys = state.nextPrimaryKeys
            // A batch request decides what it writes (and what it returns) from the head's
            // chunks: if one of them failed its first decode, the damage is thrown instead of
            // the transaction, its result or its error, and nothing is logged.
            guard let transaction = try checkingDamageOfAnyError({ try build(state.head, lsn, &keys) }) else { return nil }
            let record = historyRecord(kind: kind, author: author) { transaction.history }
            let frame = try transaction.frame?.frame()
                ?? PreparedFrame(kind: kind, author: author, authored: record != nil, payload: transaction.payload)
            let now = Self.now()
            let assigned = try engine.submit(kind: frame.kind, prepared: frame.payload, timestamp: now)
            precondition(assigned == lsn, "log LSNs must follow the store's writer lock")
            if let record { historyLog?.append(lsn: lsn, timestamp: now, payload: record) }
            state.nextPrimaryKeys = keys
            state.head = transaction.next
            return (transaction, lsn)
        }
        guard let (transaction, lsn) = built else { return nil }
        try engine.waitUntilDurable(lsn)
        publish(transaction.next)
        let change = StoreChange(lsn: lsn, kind: StoreChange.Kind(kind), insertedIDs: transaction.inserted,
                                 updatedIDs: transaction.updated, deletedIDs: transaction.deleted, originContext: nil)
        notify(change)
        checkpointIfDue()
        waitForSynchronousReplication(lsn)
        return (transaction.next, change)
    }

    /// Object IDs of `keys` in the entity at `index`.
    func objectIDs(_ keys: [Int64], entity index: Int) -> [ObjectID] {
        let entity = idEntities[index]
        return keys.map { ObjectID(entity: entity, primaryKey: $0) }
    }

    /// The IDs of `keys` per entity index, made only when someone reads them.
    func objectIDSet(_ keys: [(entity: Int, keys: KeyRanges)]) -> ObjectIDSet {
        ObjectIDSet(storeID: storeID, ranges: keys.map { (layouts[$0.entity].entity.name, $0.keys) })
    }
}
