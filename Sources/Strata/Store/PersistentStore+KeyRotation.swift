import Foundation
package import StrataStorage

extension PersistentStore {
    /// Rewrites the store's files under `cipher` (`nil`: plain) as one crash-safe step; the
    /// seam under `rotateKey(to:)` of the `StrataEncryption` product, which most code calls.
    ///
    /// Commits wait while it runs (a snapshot of the whole store is written); reads go on.
    /// After a crash the store opens with the old key or the new one, never both, and holds
    /// every committed transaction (`docs/FORMAT.md`, "Key rotation").
    ///
    /// - Returns: the LSN the rotation's snapshot captured.
    /// - Throws: `StorageError` `invalidArgument` when the store keeps persistent history and
    ///   `cipher` is not `nil` (history is not encrypted yet), or plain history files are
    ///   left in the directory; `readOnly`, `io`, `diskFull` (after an I/O error the store is
    ///   read-only until reopened); `StrataError` `.corrupted` when a chunk of the store's
    ///   snapshot fails its first decode (nothing changed then).
    /// - Complexity: O(size of the store).
    @discardableResult
    package func rotateCipher(to cipher: (any StoreCipher)?) throws -> UInt64 {
        if cipher != nil {
            let names = (try? options.storage.fileSystem.contentsOfDirectory(directory)) ?? []
            if historyLog != nil || names.contains(where: { HistoryLog.segmentLSN($0) != nil }) {
                throw StorageError(.invalidArgument, "The store at \(directory) keeps persistent history (history-*.hist files), which is not encrypted yet: encrypting the store would leave those files readable. Purge the history and remove its files (with the store closed), then encrypt. Nothing was changed.", file: directory)
            }
        }
        guard !isReadOnly else {
            throw StorageError(.readOnly, "The store at \(directory) is read-only" + (engine.failure.map { " after a write error (\($0.message))" } ?? " (opened read-only)") + "; its key cannot change. Nothing was changed.")
        }
        return try writer.withLock { state throws -> UInt64 in
            try snapshotDamage.check()
            // Commits are held off by this lock: the head is the state at the last LSN, and
            // its frames are made durable by the rotation before the snapshot is written.
            let version = state.head
            var metadata = StoreMetadata(storeID: storeID, schema: schema, nextPrimaryKeys: state.nextPrimaryKeys)
            metadata.history = schemaHistory
            let lsn = try engine.rotateKey(to: cipher, tables: layouts.map(\.table),
                                           metadata: metadata.encoded(includingKeys: true)) { writer in
                // As for a checkpoint: history must hold every transaction before the log goes.
                try historyLog?.sync()
                for table in version.tables {
                    for chunk in table.chunks { try writer.append(table: table.layout.index, columns: chunk.columns) }
                }
                // Before the rotation's commit point (the snapshot's rename): a chunk that
                // failed its first decode here wrote placeholder columns, and the file is
                // abandoned; the store stays under its old key.
                try snapshotDamage.check()
            }
            precondition(lsn == version.lsn, "the rotation's snapshot must be the head version")
            return lsn
        }
    }
}
