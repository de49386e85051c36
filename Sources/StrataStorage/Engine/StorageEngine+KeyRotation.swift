import Foundation

extension StorageEngine {
    /// Rewrites the store under `newCipher` (`nil`: plain) as one crash-safe step: a snapshot
    /// of the state at the last LSN written under the new cipher, a new log segment under it,
    /// then every file under the old one removed (`docs/FORMAT.md`, "Key rotation").
    ///
    /// The caller must keep every commit out while it runs (the layer above holds its writer
    /// lock), so that `fill` writes exactly the state at the returned LSN. A running checkpoint
    /// is waited for.
    ///
    /// After a crash the directory opens with exactly one of the two ciphers: the old one
    /// until the new snapshot's rename is durable, the new one from then on; files under the
    /// other are left-overs of the rotation, which the next writable open with the new cipher
    /// removes. Nothing committed is lost either way.
    ///
    /// - Returns: the LSN of the snapshot (the last transaction before the rotation).
    /// - Throws: ``StorageError`` `readOnly`, `closed`, `invalidArgument` (a bad key, or a
    ///   replicator that has not shipped the log yet), `io` or `diskFull` (the store is then
    ///   read-only until reopened, and opens with one of the two keys).
    @discardableResult
    public func rotateKey(to newCipher: (any StoreCipher)?, tables: [TableDescriptor], metadata: [UInt8],
                          fill: (SnapshotWriter) throws -> Void) throws -> UInt64 {
        guard let log else { throw StorageError(.readOnly, "A read-only store cannot change its key; open it for writing.") }
        try newCipher?.checkUsable()
        try stateLock.withLock {
            while checkpointRunning && !closed { stateLock.wait() }
            if closed { throw StorageError(.closed, "The store is closed; open it again to change its key.") }
            checkpointRunning = true
            snapshotInProgress = true
        }
        defer { endSnapshotStep() }
        do {
            let lsn = try log.syncAll()
            let held = min(replication.retainedFrom ?? .max, LogHoldFile.read(in: directory, fileSystem: fileSystem) ?? .max)
            guard held > lsn else {
                throw StorageError(.invalidArgument, "A replicator has not shipped the log from LSN \(held) on yet, and a key rotation replaces the whole log. Let it catch up (or stop it) and rotate again. Nothing was changed.", file: directory)
            }
            // 1. The snapshot under the new cipher. Its rename (synced with the directory by
            //    `finish`) is the rotation's commit point: until then the old files are the store.
            let snapshot = try writeVerifiedSnapshot(lsn: lsn, tables: tables, metadata: metadata, cipher: newCipher, fill: fill).name
            // 2. Later frames go to a new segment under the new cipher.
            try log.rekey(to: newCipher)
            stateLock.withLock { currentCipher = newCipher }
            // 3. Everything under the old cipher goes.
            let kept: Set = [snapshot, StoreFileNames.segment(firstLSN: lsn + 1)]
            try WriteAheadLog.wrap("Removing the files under the old key") {
                for name in try fileSystem.contentsOfDirectory(directory) where !kept.contains(name)
                    && (StoreFileNames.segmentLSN(name) != nil || StoreFileNames.snapshotLSN(name) != nil) {
                    try fileSystem.remove("\(directory)/\(name)")
                }
                try fileSystem.syncDirectory(directory)
            }
            return lsn
        } catch let error as StorageError where [.io, .diskFull].contains(error.code) {
            // Rule 5: after any write or sync error the store is read-only until reopened.
            log.markFailed(error)
            throw error
        }
    }
}
