import Foundation
import StrataStorage

extension PersistentStore {
    /// Writes a snapshot of the current state and deletes the log it makes unnecessary.
    ///
    /// Commits wait only while the log rotates; the snapshot is written from a pinned
    /// version while they continue. Runs on the calling thread.
    ///
    /// - Returns: the LSN the snapshot captured.
    /// - Throws: `StorageError` (`readOnly`, `io`, `diskFull`; after an I/O error the store
    ///   is read-only until reopened); `StrataError` `.corrupted` when a chunk of the store's
    ///   snapshot fails its first decode (an encrypted chunk that does not authenticate), in
    ///   which case no snapshot is written and the log is not trimmed.
    @discardableResult
    public func checkpoint() throws -> UInt64 {
        // The snapshot will hold every chunk: those still undecoded since the open are read
        // now, before the log rotates, so that one that fails its first read (an encrypted
        // chunk that does not authenticate) leaves every file as it was.
        try checkingDamageOfAnyError { currentVersion.readEveryChunk() }
        let (version, keys) = try writer.withLock { state throws -> (StoreVersion, [Int64]) in
            if state.checkpointRunning {
                throw StorageError(.invalidArgument, "A checkpoint is already running.")
            }
            try snapshotDamage.check()
            let lsn = try engine.beginCheckpoint()
            precondition(lsn == state.head.lsn, "the rotation point must be the head version")
            state.checkpointRunning = true
            return (state.head, state.nextPrimaryKeys)
        }
        defer { writer.withLock { $0.checkpointRunning = false } }
        var metadata = StoreMetadata(storeID: storeID, schema: schema, nextPrimaryKeys: keys)
        metadata.history = schemaHistory
        let size = try engine.completeCheckpoint(lsn: version.lsn, tables: layouts.map(\.table),
                                                 metadata: metadata.encoded(includingKeys: true)) { writer in
            // History must hold every transaction up to the snapshot before the log that
            // holds them is deleted: after this checkpoint only history remembers them.
            try historyLog?.sync()
            for table in version.tables {
                for chunk in table.chunks { try writer.append(table: table.layout.index, columns: chunk.columns) }
            }
            // Before the snapshot is finished (synced and renamed): a chunk that failed its
            // first decode here wrote placeholder columns, and the file is abandoned.
            try snapshotDamage.check()
        }
        writer.withLock { $0.lastSnapshotSize = size }
        return version.lsn
    }

    /// Starts a background checkpoint when the log has grown past the automatic threshold.
    func checkpointIfDue() {
        guard let threshold = options.automaticCheckpointBytes, !isReadOnly else { return }
        let logged = engine.logBytesSinceCheckpoint
        let due = writer.withLock { state in
            !state.checkpointRunning && logged >= max(threshold, state.lastSnapshotSize)
        }
        guard due else { return }
        DispatchQueue.global(qos: .utility).async { [self] in _ = try? checkpoint() }
    }
}
