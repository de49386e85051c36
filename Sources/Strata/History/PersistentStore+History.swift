import Foundation
import StrataStorage

extension PersistentStore {
    /// Whether the store keeps persistent history (``Options/persistentHistory``, or a
    /// read-only open of a store that has some).
    public var keepsHistory: Bool { historyLog != nil }

    /// The token right after the newest committed transaction: where a reader that has seen
    /// everything up to now continues from (Core Data's `currentPersistentHistoryToken`).
    public var currentHistoryToken: PersistentHistoryToken { PersistentHistoryToken(lsn: lastLSN) }

    /// The transactions committed after `token`, oldest first, across checkpoints, as far
    /// back as the retention policy and ``deleteHistory(before:)`` left them.
    ///
    /// For example, the changes another process made since this one last looked:
    /// ```swift
    /// for transaction in try store.history(after: lastToken) where transaction.author != "app" {
    ///     print(transaction.author ?? "-", transaction.updatedObjectIDs.count)
    ///     lastToken = transaction.token
    /// }
    /// ```
    ///
    /// - Parameter token: where to start (`nil`: the oldest transaction kept).
    /// - Throws: ``StrataError/Code/misuse`` when the store keeps no history; `StorageError`
    ///   when a history file cannot be read, or history stopped after a write error.
    /// - Complexity: O(bytes of history from `token` on); no per-row work (rows stay key
    ///   ranges until iterated).
    public func history(after token: PersistentHistoryToken? = nil) throws -> [PersistentHistoryTransaction] {
        let frames = try requireHistory().read(after: token?.lsn ?? 0, through: lastLSN)
        return try frames.map { frame in
            let entry: HistoryEntry
            do { entry = try HistoryEntry(decoding: frame.payload) } catch {
                throw StorageError(.corrupted, "The history entry of transaction \(frame.lsn) in \(directory) does not decode (\(error)); delete the history-*.hist files to start history afresh.", file: directory)
            }
            return PersistentHistoryTransaction(lsn: frame.lsn, timestamp: frame.timestamp, entry: entry, storeID: storeID)
        }
    }

    /// Purges the history up to `token`: every transaction at or before it (Core Data's
    /// `deleteHistory(before:)`). The purge is durable when this returns; the files that
    /// hold only purged transactions are deleted.
    ///
    /// - Throws: ``StrataError/Code/misuse`` when the store keeps no history; `StorageError`
    ///   (`readOnly`, `io`, `diskFull`).
    public func deleteHistory(before token: PersistentHistoryToken) throws {
        try requireHistory().purge(through: min(token.lsn, lastLSN))
    }

    /// Persistent history's size now: files, transactions kept, and bytes (on disk plus
    /// waiting in memory for the next checkpoint).
    public var historyStatistics: (files: Int, transactions: Int, bytes: Int64) {
        guard let s = historyLog?.statistics else { return (0, 0, 0) }
        return (s.segments, s.entries, s.bytes)
    }

    private func requireHistory() throws -> HistoryLog {
        guard let historyLog else {
            throw StrataError(.misuse, "The store at \(directory) keeps no persistent history; open it with options.persistentHistory set (for example .transactions(100_000)) to record it from then on.")
        }
        return historyLog
    }

    /// The encoded history entry of a transaction about to commit, or `nil` when the store
    /// keeps no history (then `groups` is not called).
    func historyRecord(kind: TransactionKind, author: String?, groups: () -> [HistoryEntry.Group]) -> [UInt8]? {
        guard historyLog != nil else { return nil }
        return HistoryEntry(kind: kind, author: author, groups: groups()).encoded()
    }

    /// Now, in microseconds since 1970 (the log's frame time).
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    /// Opens the history of a store being loaded: when the options ask for it, or, read-only,
    /// when the directory has some.
    static func openHistory(directory: String, options: Options, engine: StorageEngine) throws -> HistoryLog? {
        let fs = options.storage.fileSystem
        var retention = options.persistentHistory
        if retention == nil, options.storage.readOnly,
           (try? fs.contentsOfDirectory(directory))?.contains(where: { HistoryLog.segmentLSN($0) != nil }) == true {
            retention = .untilPurged
        }
        guard let retention else { return nil }
        return try HistoryLog.open(fileSystem: fs, directory: directory, retention: retention,
                                   readOnly: options.storage.readOnly, logLastLSN: engine.lastLSN)
    }
}
