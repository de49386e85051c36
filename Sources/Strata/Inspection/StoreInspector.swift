public import StrataStorage

/// A read-only view of a store directory for tools such as the `strata` inspector: the
/// store's state (optionally as of an earlier LSN), the log as transactions, the files,
/// statistics and verification.
///
/// Opening never takes the writer lock and never changes a file, so it works while an
/// application has the store open; it sees a consistent prefix of the committed history.
///
/// For example:
/// ```swift
/// let inspector = try StoreInspector.open(at: "/var/lib/todo.strata")
/// print(inspector.store.rowCounts)          // ["TodoItem": 1000000]
/// for entry in inspector.log() { print(entry.lsn, entry.kind) }
/// ```
public final class StoreInspector: Sendable {
    /// The store directory.
    public let directory: String
    /// The store as of ``lsn``, opened read-only.
    public let store: PersistentStore
    /// The snapshot the state was loaded from, if any.
    public let snapshot: SnapshotReader?
    /// What the read-only open found (a torn tail is reported here, not cut).
    public let recoveryReport: RecoveryReport
    /// The LSN the state shows: the newest one, or the one asked for with `asOf`.
    public var lsn: UInt64 { store.lastLSN }
    /// The newest LSN in the log, whatever `asOf` was.
    public let newestLSN: UInt64
    /// The oldest LSN a store can be opened `asOf`: the snapshot's, or 1 without one.
    public let oldestReachableLSN: UInt64
    /// Every transaction recovery read from the log (those after the snapshot), in order,
    /// including any after `asOf`.
    let records: [LogRecord]

    private init(directory: String, store: PersistentStore, recovered: RecoveredState, newestLSN: UInt64) {
        self.directory = directory
        self.store = store
        snapshot = recovered.snapshot
        recoveryReport = recovered.report
        records = recovered.records
        self.newestLSN = newestLSN
        oldestReachableLSN = max(recovered.snapshot?.lsn ?? 1, 1)
    }

    /// Opens the store in `directory` read-only, as it is now or right after transaction
    /// `asOf` (the snapshot plus the log replayed up to that LSN). The store's counts keep
    /// none of the columns they decode (``PersistentStore/Options/countsKeepDecodedColumns``
    /// is off): each command reads once.
    ///
    /// - Parameters:
    ///   - directory: the store directory.
    ///   - asOf: an LSN between ``oldestReachableLSN`` and ``newestLSN``; `nil` for the newest.
    ///   - cipher: the cipher of an encrypted store (`StrataEncryption`'s `AESGCMStoreCipher`);
    ///     `nil` for a plain one.
    /// - Throws: `StorageError` (`notAStore`, `corrupted` with file and offset,
    ///   `unsupportedFormat`, `io`; `wrongKey`, `encryptionKeyRequired`, `notEncrypted` when
    ///   `cipher` does not fit the store); `StrataError` ``StrataError/Code/lsnOutOfReach`` when the
    ///   log no longer reaches `asOf` (a checkpoint replaced it with a snapshot) or it lies in
    ///   the future.
    /// - Complexity: O(size of the snapshot + log replayed).
    public static func open(at directory: String, asOf: UInt64? = nil,
                            cipher: (any StoreCipher)? = nil) throws -> StoreInspector {
        var options = PersistentStore.Options.readOnly
        options.automaticCheckpointBytes = nil
        options.storage.cipher = cipher
        // One command per open: a count has no later read to keep its decoded columns for.
        options.countsKeepDecodedColumns = false
        let (engine, recovered) = try StorageEngine.open(at: directory, options: options.storage)
        do {
            let newest = recovered.records.last?.lsn ?? recovered.snapshot?.lsn ?? 0
            var view = recovered
            if let asOf {
                let oldest = max(recovered.snapshot?.lsn ?? 1, 1)
                guard asOf >= oldest, asOf <= newest else {
                    throw StrataError(.lsnOutOfReach, asOf > newest
                        ? "LSN \(asOf) is past the end of the log; the newest transaction is \(newest)."
                        : "The log no longer reaches LSN \(asOf): a checkpoint folded transactions up to \(oldest) into a snapshot. Choose an LSN from \(oldest) to \(newest).")
                }
                view.records = recovered.records.filter { $0.lsn <= asOf }
            }
            let store = try PersistentStore.load(directory: directory, schema: nil, options: options,
                                                 engine: engine, recovered: view)
            return StoreInspector(directory: directory, store: store, recovered: recovered, newestLSN: newest)
        } catch {
            try? engine.close()
            throw error
        }
    }
}

extension StrataError.Code {
    /// An LSN that the log no longer reaches (a checkpoint replaced it with a snapshot) or
    /// that lies past its end, given to ``StoreInspector/open(at:asOf:)``.
    public static let lsnOutOfReach = Self(rawValue: "lsnOutOfReach")
}
