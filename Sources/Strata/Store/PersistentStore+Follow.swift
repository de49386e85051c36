import Foundation
import StrataStorage

/// The state of a read-only store that follows the writer process's log.
final class StoreFollowing: Sendable {
    /// Where the log is read next; `nil` for a writable store. Held for the whole of a
    /// refresh, so refreshes apply and announce transactions one after another, in order.
    let follower = Locked<LogFollower?>(nil)
    /// The automatic refresh's timer (``PersistentStore/Options/followInterval``).
    let timer = Locked<(any DispatchSourceTimer)?>(nil)
    /// The error of the last automatic refresh (none once one succeeds).
    let lastError = Locked<[any Error]>([])
    /// How many times the store was opened again from a snapshot (for tests).
    let reopens = Locked(0)

    /// Keeps `error` as the last automatic refresh's.
    func record(_ error: any Error) {
        let failure = [error]
        lastError.withLock { $0 = failure }
    }

    /// Calls `tick` every `interval` on a background queue of its own (one tick at a time).
    func start(every interval: DispatchTimeInterval, _ tick: @escaping @Sendable () -> Void) {
        timer.withLock { timer in
            let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "strata.follow", qos: .utility))
            source.schedule(deadline: .now() + interval, repeating: interval)
            source.setEventHandler(handler: tick)
            source.resume()
            timer?.cancel()
            timer = source
        }
    }

    func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    deinit { stop() }
}

extension PersistentStore {
    /// Brings a read-only store up to date with the process that writes it, and returns how
    /// many transactions that added.
    ///
    /// Each transaction the writer committed since this store's version is applied and
    /// published one at a time, in order, and announced to ``observeChanges(_:)`` exactly as
    /// a commit in this process would be: contexts that merge automatically
    /// (``ObjectContext/automaticallyMergesChangesFromStore``), fetched-results controllers
    /// and live queries update from it. (Core Data's nearest counterpart is refreshing a
    /// context after `NSPersistentStoreRemoteChange`.)
    ///
    /// Guarantees:
    /// - Only whole, checksummed transactions are applied, with no gaps: the version is
    ///   always an exact prefix of the writer's history. A transaction the writer is still
    ///   writing is not yet there; a later call picks it up.
    /// - It never blocks the writer: it takes no lock the writer takes, and writes nothing.
    /// - When a checkpoint has deleted the log it needs, it opens the store again from the
    ///   newest snapshot (the writer's checkpoint and any later log) and announces the
    ///   difference as one change.
    ///
    /// On a store opened for writing it does nothing and returns 0 (the store is the
    /// writer). To refresh on a timer instead, set ``Options/followInterval``.
    ///
    /// Observers run on the refreshing thread, one refresh at a time; a handler must not call
    /// `refresh()` on the same store synchronously (it would wait for the refresh that is
    /// calling it). A reopen from a snapshot is announced as one change of kind `.save`.
    ///
    /// For example:
    /// ```swift
    /// let reader = try PersistentStore.open(at: path, options: .readOnly)
    /// let context = ObjectContext(store: reader)
    /// context.automaticallyMergesChangesFromStore = true
    /// let added = try reader.refresh()      // the writer's new commits, if any
    /// ```
    ///
    /// - Returns: the number of transactions the store's version moved forward by.
    /// - Throws: `StorageError` `io` when the store's files cannot be read, `corrupted` when a
    ///   fresh open finds real damage; `StrataError` `.schemaMismatch` when the writer migrated
    ///   the store to another schema or the directory now holds another store (open it again).
    /// - Complexity: O(bytes logged since the last refresh) to read, plus the cost of applying
    ///   those transactions; O(size of the store) when it opens it again from a snapshot.
    @discardableResult
    public func refresh() throws -> Int {
        guard engine.isReadOnly else { return 0 }
        // What the replay or the comparison read from a chunk that failed its first decode
        // is not announced: the damage is thrown instead (``SnapshotDamage``).
        return try checkingDamageOfAnyError { try following.follower.withLock { slot throws -> Int in
            var follower = slot ?? LogFollower(fileSystem: options.storage.fileSystem, directory: directory,
                                               lastLSN: currentVersion.lsn, cipher: options.storage.cipher)
            defer { slot = follower }
            let start = currentVersion.lsn
            let poll = try follower.poll()
            for record in poll.records {
                try applyFollowed(record)
            }
            if poll.needsReopen {
                try reopenFromSnapshot()
                follower = LogFollower(fileSystem: options.storage.fileSystem, directory: directory,
                                       lastLSN: currentVersion.lsn, cipher: options.storage.cipher)
            }
            return Int(currentVersion.lsn - start)
        } }
    }

    /// The error of the last automatic refresh (``Options/followInterval``), or `nil` when it
    /// succeeded. The timer keeps running after an error, so a passing problem (a file the
    /// writer was replacing) clears on its own; a lasting one (the writer migrated the
    /// schema) stays here until the store is opened again.
    public var followError: (any Error)? { following.lastError.withLock { $0.first } }

    /// Starts the automatic refresh of a read-only store (called by the open).
    func startFollowing(every interval: Duration) {
        guard engine.isReadOnly else { return }
        let (seconds, attoseconds) = interval.components
        let nanoseconds = max(1_000_000, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        following.start(every: .nanoseconds(nanoseconds)) { [weak self] in
            guard let self else { return }
            do {
                try self.refresh()
                self.following.lastError.withLock { $0.removeAll() }
            } catch {
                self.following.record(error)
            }
        }
    }

    /// Applies one transaction read from the writer's log, publishes the new version and
    /// announces it, as a commit in this process does.
    private func applyFollowed(_ record: LogRecord) throws {
        var version = currentVersion
        var keys = writer.withLock { $0.nextPrimaryKeys }
        var change: StoreChange
        do {
            switch TransactionKind(rawValue: record.kind) {
            case .save?, .batchInsert?:
                let changes = try ChangesetCodec.decode(record.payload, layouts: layouts)
                try Self.apply(changes, to: &version, lsn: record.lsn, nextKeys: &keys)
                change = StoreChange(lsn: record.lsn, kind: record.kind == TransactionKind.save.rawValue ? .save : .batchInsert,
                                     insertedIDs: idSet(changes) { $0.inserts.primaryKeys },
                                     updatedIDs: idSet(changes) { $0.updates.map(\.primaryKey) },
                                     deletedIDs: idSet(changes) { $0.deletes.map(\.primaryKey) }, originContext: nil)
            case .batchUpdate?:
                let batch = try BatchUpdateRecord(decoding: record.payload)
                try Self.apply(batch, to: &version, lsn: record.lsn)
                change = StoreChange(lsn: record.lsn, kind: .batchUpdate, insertedIDs: ObjectIDSet(),
                                     updatedIDs: objectIDSet([(batch.entity, batch.keys)]), deletedIDs: ObjectIDSet(),
                                     originContext: nil)
            case .batchDelete?:
                let batch = try BatchDeleteRecord(decoding: record.payload)
                try Self.apply(batch, to: &version, lsn: record.lsn)
                let updated = batch.nullifications.map { entity, byProperty in
                    (entity: entity, keys: KeyRanges(sortedKeys: Self.distinctAscending(byProperty.values.flatMap(\.keys))))
                }
                change = StoreChange(lsn: record.lsn, kind: .batchDelete, insertedIDs: ObjectIDSet(),
                                     updatedIDs: objectIDSet(updated),
                                     deletedIDs: objectIDSet(batch.deletes.map { ($0.key, $0.value) }), originContext: nil)
            case .migration?, .metadata?:
                throw StrataError(.schemaMismatch, "The store at \(directory) was migrated to another schema by the process that writes it (transaction \(record.lsn)); this read-only store cannot follow it further. Open it again to read the new schema.")
            default:
                throw PayloadError("unknown transaction kind \(record.kind)")
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StorageError(.corrupted, "Transaction \(record.lsn) in \(record.segment) at byte \(record.offset) does not decode (\(error)). Its checksum is valid, so the writer produced it; report a bug.", file: "\(directory)/\(record.segment)", offset: record.offset, lastGoodLSN: record.lsn - 1)
        }
        version = StoreVersion(lsn: record.lsn, tables: version.tables)
        adoptFollowed(version, keys: keys)
        notify(change)
    }

    /// Opens the store again from its newest snapshot and log, and announces the difference
    /// from the current version as one change.
    private func reopenFromSnapshot() throws {
        var storage = options.storage
        storage.readOnly = true
        let (engine, recovered) = try StorageEngine.open(at: directory, options: storage)
        defer { try? engine.close() }
        var reopenOptions = options
        reopenOptions.storage = storage
        // Its chunks report a failed first decode to this store, which is the one read.
        let fresh = try Self.load(directory: directory, schema: nil, options: reopenOptions, engine: engine, recovered: recovered,
                                  damage: snapshotDamage)
        guard fresh.storeID == storeID else {
            throw StrataError(.schemaMismatch, "The directory \(directory) now holds another store (its identity changed); open it again.")
        }
        guard fresh.schema == schema else {
            throw StrataError(.schemaMismatch, "The store at \(directory) was migrated to another schema by the process that writes it; this read-only store cannot follow it further. Open it again to read the new schema.")
        }
        let old = currentVersion, new = fresh.currentVersion
        following.reopens.withLock { $0 += 1 }
        // Recovery may have stopped short of this version (a torn tail it could not see the
        // end of yet): keep the newer state and follow on from it later.
        guard new.lsn > old.lsn else { return }
        let (inserted, updated, deleted) = Self.difference(from: old, to: new)
        adoptFollowed(new, keys: fresh.writer.withLock { $0.nextPrimaryKeys })
        notify(StoreChange(lsn: new.lsn, kind: .save, insertedIDs: objectIDSet(inserted), updatedIDs: objectIDSet(updated),
                           deletedIDs: objectIDSet(deleted), originContext: nil))
    }

    private func adoptFollowed(_ version: StoreVersion, keys: [Int64]) {
        writer.withLock { state in
            state.head = version
            state.nextPrimaryKeys = keys
        }
        publish(version)
    }

    /// The rows inserted, updated and deleted from `old` to `new` (two versions with no
    /// chunks in common), per entity index.
    /// - Complexity: O(rows · log rows).
    static func difference(from old: StoreVersion, to new: StoreVersion)
        -> (inserted: [(entity: Int, keys: KeyRanges)], updated: [(entity: Int, keys: KeyRanges)], deleted: [(entity: Int, keys: KeyRanges)]) {
        var inserted: [(entity: Int, keys: KeyRanges)] = []
        var updated: [(entity: Int, keys: KeyRanges)] = []
        var deleted: [(entity: Int, keys: KeyRanges)] = []
        for index in new.tables.indices {
            let before = old.tables[index], after = new.tables[index]
            var added: [Int64] = [], changed: [Int64] = [], removed: [Int64] = []
            for chunk in after.chunks {
                let keys = chunk.primaryKeys, versions = chunk.versions
                for row in keys.indices where UInt64(bitPattern: versions[row]) > old.lsn {
                    if before.locate(keys[row]) == nil { added.append(keys[row]) } else { changed.append(keys[row]) }
                }
            }
            for chunk in before.chunks {
                for key in chunk.primaryKeys where after.locate(key) == nil { removed.append(key) }
            }
            if !added.isEmpty { inserted.append((index, KeyRanges(sortedKeys: added))) }
            if !changed.isEmpty { updated.append((index, KeyRanges(sortedKeys: changed))) }
            if !removed.isEmpty { deleted.append((index, KeyRanges(sortedKeys: removed))) }
        }
        return (inserted, updated, deleted)
    }

    /// The IDs of the keys that `keys` picks from each entity's changes, as key ranges.
    private func idSet(_ changes: Changeset, _ keys: (Changeset.EntityChanges) -> [Int64]) -> ObjectIDSet {
        var ranges: [(entity: Int, keys: KeyRanges)] = []
        for (index, entity) in changes.entities.sorted(by: { $0.key < $1.key }) {
            let list = keys(entity)
            if !list.isEmpty { ranges.append((index, KeyRanges(sortedKeys: Self.distinctAscending(list)))) }
        }
        return objectIDSet(ranges)
    }

    private static func distinctAscending(_ keys: [Int64]) -> [Int64] {
        var result: [Int64] = []
        result.reserveCapacity(keys.count)
        for key in keys.sorted() where result.last != key { result.append(key) }
        return result
    }
}
