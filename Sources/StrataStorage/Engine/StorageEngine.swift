import Foundation

/// A store directory: the writer lock, the log, the snapshots and recovery.
///
/// Guarantees (see `docs/FORMAT.md` for the full rules):
/// 1. After any crash, the recovered state is an exact prefix of the commit history:
///    whole transactions, no holes. Under ``Durability/always`` it includes every
///    transaction whose ``append(kind:payload:)`` returned.
/// 2. A torn or zero-filled final frame is truncated, synced and reported.
/// 3. Damage followed by data that was already synced is reported as
///    ``StorageError/Code/corrupted`` (file, offset, last good LSN) and nothing is changed,
///    unless ``RecoveryMode/pointInTime`` is chosen.
/// 4. An unreadable newest snapshot falls back to an older one plus the log when one is kept.
/// 5. After any write or sync error the engine is read-only until reopened.
/// 6. A newer major format version is refused.
///
/// `@unchecked Sendable`: `log` and `writerLock` are set in `init` and never change; every
/// other mutable field (the checkpoint flags, `closed`, the current cipher) is read and
/// written only under `stateLock`; the write-ahead log synchronizes itself.
public final class StorageEngine: @unchecked Sendable {
    /// The store directory.
    public let directory: String
    /// The options it was opened with.
    public let options: StorageOptions
    /// Whether appends are refused because the store was opened read-only.
    public let isReadOnly: Bool
    let fileSystem: any FileSystem
    let log: WriteAheadLog?
    private let writerLock: (any FileLock)?
    let stateLock = NSCondition()
    var checkpointRunning = false
    /// Whether a checkpoint's snapshot is being written (``completeCheckpoint``): ``close()``
    /// waits for it, so the writer lock is never released under a running checkpoint.
    var snapshotInProgress = false
    var closed = false
    /// The cipher the store's files are written with now: the options' until a key rotation
    /// (``rotateKey(to:tables:metadata:fill:)``) replaces it. Guarded by `stateLock`.
    var currentCipher: (any StoreCipher)?
    private let recoveredLSN: UInt64
    /// What a replicator (`StrataReplication`) asks of this engine: the log it still needs.
    package let replication = ReplicationHooks()

    /// The file that holds the report of the last writable open.
    public static let recoveryReportFile = "last-recovery.json"

    private init(directory: String, options: StorageOptions, log: WriteAheadLog?,
                 writerLock: (any FileLock)?, recoveredLSN: UInt64) {
        self.directory = directory
        self.options = options
        self.isReadOnly = options.readOnly
        self.fileSystem = options.fileSystem
        self.log = log
        self.writerLock = writerLock
        self.recoveredLSN = recoveredLSN
        self.currentCipher = options.cipher
    }

    /// The cipher the store's files are written with: the options' at open, or the one a
    /// key rotation switched to since (`nil`: plain).
    public var cipher: (any StoreCipher)? { stateLock.withLock { currentCipher } }

    deinit { writerLock?.unlock() }

    /// Opens (or creates) the store in `directory` and recovers its state.
    ///
    /// - Returns: the engine, ready for appends unless read-only, and the recovered state
    ///   for the layer above to load.
    /// - Throws: ``StorageError`` with `locked` (another process writes this store),
    ///   `notAStore`, `corrupted`, `unsupportedFormat`, `io` or `diskFull`.
    public static func open(at directory: String,
                            options: StorageOptions = StorageOptions()) throws -> (StorageEngine, RecoveredState) {
        let fs = options.fileSystem
        try options.cipher?.checkUsable()
        try prepareDirectory(directory, options: options)
        var writerLock: (any FileLock)?
        if !options.readOnly {
            guard let lock = try WriteAheadLog.wrap("Locking the store", { try fs.tryLock("\(directory)/\(StoreFileNames.lock)") }) else {
                throw StorageError(.locked, "The store at \(directory) is open for writing in another process. Close that process, or open this one read-only.", file: "\(directory)/\(StoreFileNames.lock)")
            }
            writerLock = lock
        }
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try recover(directory: directory, options: options, writerLock: writerLock)
            } catch let error as StorageError where options.readOnly && attempt < 5 && error.isMissingFile {
                // A writer's checkpoint deleted a file between our listing and our read:
                // list again (read-only opens must see a consistent prefix, not fail).
                continue
            } catch {
                writerLock?.unlock()
                throw error
            }
        }
    }

    private static func recover(directory: String, options: StorageOptions,
                                writerLock: (any FileLock)?) throws -> (StorageEngine, RecoveredState) {
        let fs = options.fileSystem
        do {
            var report = RecoveryReport()
            report.readOnly = options.readOnly
            report.openedAt = Int64(Date().timeIntervalSince1970 * 1_000_000)
            let listed = try WriteAheadLog.wrap("Listing the store") { try fs.contentsOfDirectory(directory) }
            // Before anything is changed: a wrong key, or a key for a plain store (or none
            // for an encrypted one), fails here and leaves every file as it was. Files under
            // another key that a completed key rotation left behind are set aside (and, by a
            // writable open, removed): the rotation's snapshot covers them.
            let leftovers = try StoreKeyCheck.verify(names: listed, directory: directory, fileSystem: fs, cipher: options.cipher)
            let names = listed.filter { !leftovers.contains($0) }
            if !options.readOnly && !leftovers.isEmpty {
                try WriteAheadLog.wrap("Removing the files of an interrupted key rotation") {
                    for name in leftovers { try fs.remove("\(directory)/\(name)") }
                    try fs.syncDirectory(directory)
                }
                report.removedFiles += leftovers
            }
            if !options.readOnly {
                for name in names where name.hasSuffix(".snap.tmp") || name.hasSuffix(".log.tmp") {
                    try WriteAheadLog.wrap("Removing unfinished snapshot \(name)") { try fs.remove("\(directory)/\(name)") }
                    report.removedFiles.append(name)
                }
            }
            let snapshot = try newestUsableSnapshot(names: names, directory: directory, options: options, report: &report)
            report.snapshotFile = snapshot?.name
            report.snapshotLSN = snapshot?.lsn ?? 0
            let recovery = LogRecovery(fileSystem: fs, directory: directory, mode: options.recoveryMode,
                                       readOnly: options.readOnly, cipher: options.cipher)
            let recovered = try recovery.recover(segments: names.filter { StoreFileNames.segmentLSN($0) != nil },
                                                 snapshotLSN: snapshot?.lsn ?? 0, report: &report)
            var log: WriteAheadLog?
            if !options.readOnly {
                log = try WriteAheadLog(fileSystem: fs, directory: directory, durability: options.durability,
                                        segmentSize: options.segmentSize, lastLSN: recovered.lastLSN,
                                        tail: recovered.tail, cipher: options.cipher)
                try? writeReport(report, directory: directory, fileSystem: fs)
            }
            let engine = StorageEngine(directory: directory, options: options, log: log,
                                       writerLock: writerLock, recoveredLSN: recovered.lastLSN)
            return (engine, RecoveredState(snapshot: snapshot, records: recovered.records, report: report))
        }
    }

    /// Appends one transaction to the log and waits as the durability mode says.
    ///
    /// - Parameters:
    ///   - kind: what the payload is, for the layer above (stored in the frame header).
    ///   - payload: the transaction's bytes; compressed when that makes them smaller.
    /// - Returns: the transaction's LSN.
    /// - Throws: ``StorageError/Code/readOnly`` when opened read-only; `diskFull` or `io`
    ///   when this append's write or sync fails — and that same error for every later append,
    ///   since the engine is then read-only until reopened.
    public func append(kind: UInt8, payload: [UInt8]) throws -> UInt64 {
        guard let log else {
            throw StorageError(.readOnly, "The store at \(directory) was opened read-only; open it without readOnly to write.")
        }
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        return try log.append(kind: kind, payload: payload, timestamp: now)
    }

    /// Queues one transaction and returns its LSN without waiting for it to be durable.
    ///
    /// Use it with ``waitUntilDurable(_:)`` when the caller must hold its own lock while
    /// LSNs are assigned but should not hold it while the log syncs (so that concurrent
    /// commits share one sync). Transactions are durable in LSN order.
    public func submit(kind: UInt8, payload: [UInt8]) throws -> UInt64 {
        guard let log else {
            throw StorageError(.readOnly, "The store at \(directory) was opened read-only; open it without readOnly to write.")
        }
        let prepared = try FrameCodec.prepare(payload)
        return try log.submit(kind: kind, prepared: prepared, timestamp: Int64(Date().timeIntervalSince1970 * 1_000_000))
    }

    /// Queues one transaction whose payload ``FrameCodec/prepare(_:)`` already compressed and
    /// checksummed, and returns its LSN without waiting for it to be durable.
    ///
    /// Preparing is the costly part of a frame (LZ4 and CRC-32C over the payload) and needs
    /// no lock, so a caller that assigns LSNs under a lock of its own prepares before taking
    /// it and holds it only for this call, which writes the 48-byte header.
    ///
    /// - Throws: ``StorageError/Code/readOnly`` when opened read-only; the earlier write
    ///   or sync error once the engine has failed.
    /// - Parameter timestamp: the commit time for the frame (microseconds since 1970), so
    ///   that a record kept elsewhere (persistent history) can carry the same; `nil`: now.
    public func submit(kind: UInt8, prepared: PreparedPayload, timestamp: Int64? = nil) throws -> UInt64 {
        guard let log else {
            throw StorageError(.readOnly, "The store at \(directory) was opened read-only; open it without readOnly to write.")
        }
        return try log.submit(kind: kind, prepared: prepared, timestamp: timestamp ?? Int64(Date().timeIntervalSince1970 * 1_000_000))
    }

    /// Waits until the transaction `lsn` from ``submit(kind:payload:)`` is as durable as
    /// the durability mode promises.
    ///
    /// - Throws: the write or sync error (the engine is then read-only).
    public func waitUntilDurable(_ lsn: UInt64) throws {
        guard let log else { return }
        try log.waitUntilDurable(lsn)
    }

    /// The LSN of the last transaction appended (or recovered).
    public var lastLSN: UInt64 { log?.lastAssignedLSN ?? recoveredLSN }

    /// Bytes appended to the log since the last checkpoint (or open).
    public var logBytesSinceCheckpoint: Int64 { log?.appendedBytes ?? 0 }

    /// The error that made the engine read-only after a failed write, if any.
    public var failure: StorageError? { log?.failureError }

    /// First step of a checkpoint: closes the current segment (flushing and syncing it)
    /// and starts a new one. Call it while no commit is in progress, so that the state to
    /// snapshot is exactly the state at the returned LSN; commits may continue right after.
    ///
    /// - Returns: the LSN the snapshot must capture.
    /// - Throws: ``StorageError/Code/invalidArgument`` while another checkpoint runs.
    public func beginCheckpoint() throws -> UInt64 {
        guard let log else { throw StorageError(.readOnly, "A read-only store cannot be checkpointed; open it for writing.") }
        try stateLock.withLock {
            if checkpointRunning { throw StorageError(.invalidArgument, "A checkpoint is already running.") }
            checkpointRunning = true
        }
        do { return try log.rotate() }
        catch { stateLock.withLock { checkpointRunning = false; stateLock.broadcast() }; throw error }
    }

    /// Second step: writes the snapshot of the state at `lsn` (from ``beginCheckpoint()``)
    /// with `fill`, then deletes the log segments and older snapshots it makes unnecessary.
    /// Safe to run on a background thread while commits continue.
    ///
    /// - Returns: the snapshot's size in bytes.
    @discardableResult
    public func completeCheckpoint(lsn: UInt64, tables: [TableDescriptor], metadata: [UInt8],
                                   fill: (SnapshotWriter) throws -> Void) throws -> Int64 {
        let cipher = try stateLock.withLock { () throws -> (any StoreCipher)? in
            if closed {
                checkpointRunning = false
                stateLock.broadcast()
                throw StorageError(.closed, "The store was closed before its checkpoint could write the snapshot; nothing was changed.")
            }
            snapshotInProgress = true
            return currentCipher
        }
        defer { endSnapshotStep() }
        do {
            let size = try writeVerifiedSnapshot(lsn: lsn, tables: tables, metadata: metadata, cipher: cipher, fill: fill).size
            // Trim only relative to the snapshot just written, and only once it reads back whole.
            try removeCoveredFiles(by: lsn)
            return size
        } catch let error as StorageError where [.io, .diskFull].contains(error.code) {
            // Rule 5: after any write or sync error the store is read-only until reopened.
            log?.markFailed(error)
            throw error
        }
    }

    /// Clears the flags a checkpoint or a key rotation set for its snapshot, and wakes the
    /// threads waiting for them.
    func endSnapshotStep() {
        stateLock.withLock {
            checkpointRunning = false
            snapshotInProgress = false
            stateLock.broadcast()
        }
    }

    /// Writes the snapshot of the state at `lsn` under `cipher` with `fill` and makes it
    /// durable (`SnapshotWriter.finish`: the file synced, renamed into place, the directory
    /// synced), then reads it back whole. A failed write leaves no file behind.
    ///
    /// - Returns: the snapshot's file name and size in bytes.
    func writeVerifiedSnapshot(lsn: UInt64, tables: [TableDescriptor], metadata: [UInt8], cipher: (any StoreCipher)?,
                               fill: (SnapshotWriter) throws -> Void) throws -> (name: String, size: Int64) {
        let writer = try SnapshotWriter(fileSystem: fileSystem, directory: directory, lsn: lsn,
                                        tables: tables, metadata: metadata,
                                        createdAt: Int64(Date().timeIntervalSince1970 * 1_000_000),
                                        cipher: cipher)
        let size: Int64
        do {
            try fill(writer)
            size = try writer.finish()
        } catch {
            writer.abandon()
            throw error
        }
        try verifyWrittenSnapshot(writer.finalName, lsn: lsn, cipher: cipher)
        return (writer.finalName, size)
    }

    /// Reads back the snapshot a checkpoint just made durable: its header, footer and every
    /// chunk's checksum. Nothing is trimmed on the strength of a snapshot that does not verify.
    func verifyWrittenSnapshot(_ name: String, lsn: UInt64, cipher: (any StoreCipher)?) throws {
        let reader = try SnapshotReader(fileSystem: fileSystem, directory: directory, name: name, cipher: cipher)
        guard reader.lsn == lsn else {
            throw StorageError(.corrupted, "The snapshot \(name) just written reads back as LSN \(reader.lsn), not \(lsn); the log was not trimmed.", file: "\(directory)/\(name)", offset: 0)
        }
        try reader.verifyChecksums()
    }

    /// Deletes what the snapshot at `lsn`, just written and verified, makes unnecessary:
    /// older snapshots beyond the retention count, and the log segments that neither it nor
    /// a kept older snapshot needs, nor a replicator that has not shipped them yet (one in
    /// this process, ``ReplicationHooks``, or a sidecar's ``LogHoldFile``).
    ///
    /// Only snapshots at or below `lsn` are considered. A snapshot named with a higher LSN is
    /// not part of this log's history (a stray copy, or a damaged snapshot left above the head
    /// by point-in-time recovery); it decides nothing and is left where it is (recovery reports
    /// it). The snapshot at `lsn` is never deleted.
    private func removeCoveredFiles(by lsn: UInt64) throws {
        try WriteAheadLog.wrap("Trimming the store after a checkpoint") {
            let names = try fileSystem.contentsOfDirectory(directory)
            let older = names.compactMap { n in StoreFileNames.snapshotLSN(n).map { (n, $0) } }
                .filter { $0.1 < lsn }.sorted { $0.1 > $1.1 }
            let keptOlder = older.prefix(max(1, options.snapshotsRetained) - 1)
            let oldestKept = keptOlder.last?.1 ?? lsn
            for (name, _) in older.dropFirst(keptOlder.count) { try fileSystem.remove("\(directory)/\(name)") }
            // A replicator's hold, in this process or in a sidecar's hold file: a segment with
            // a frame at or after it is not shipped yet.
            let retainedFrom = min(replication.retainedFrom ?? .max,
                                   LogHoldFile.read(in: directory, fileSystem: fileSystem) ?? .max)
            let segments = names.compactMap { n in StoreFileNames.segmentLSN(n).map { (n, $0) } }.sorted { $0.1 < $1.1 }
            for (index, (name, _)) in segments.enumerated() where index + 1 < segments.count {
                let successor = segments[index + 1].1
                if successor <= oldestKept + 1 && successor <= retainedFrom { try fileSystem.remove("\(directory)/\(name)") }
            }
            try fileSystem.syncDirectory(directory)
        }
    }

    /// Waits for a checkpoint that is writing its snapshot, flushes and syncs the log, and
    /// releases the writer lock.
    ///
    /// A checkpoint that has not started writing its snapshot yet fails with `closed` instead
    /// (and changes nothing), so the lock is never released while a checkpoint can still
    /// create or delete files: another writer could otherwise open and remove its `.snap.tmp`.
    public func close() throws {
        defer { writerLock?.unlock() }
        stateLock.withLock {
            closed = true
            while snapshotInProgress { stateLock.wait() }
        }
        try log?.close()
    }

    // MARK: - Opening

    private static func prepareDirectory(_ directory: String, options: StorageOptions) throws {
        let fs = options.fileSystem
        if !fs.exists(directory) {
            guard options.createIfMissing && !options.readOnly else {
                throw StorageError(.notAStore, "There is no store at \(directory). Check the path, or create the store first.", file: directory)
            }
            try WriteAheadLog.wrap("Creating the store directory") {
                try fs.createDirectory(directory)
                // The new directory's entry lives in its parent: until the parent is synced, a
                // power loss can take the whole store, acknowledged saves included.
                try fs.syncDirectory(StoreFileNames.parent(of: directory))
            }
            return
        }
        guard fs.isDirectory(directory) else {
            throw StorageError(.notAStore, "\(directory) is a file, not a store directory.", file: directory)
        }
        if !options.readOnly {
            // A process that crashed right after creating the directory never synced it into
            // its parent; what this open appends must not depend on that entry surviving a
            // power loss. Best effort: a parent that cannot be opened for reading is left as is.
            try? fs.syncDirectory(StoreFileNames.parent(of: directory))
        }
        let names = try WriteAheadLog.wrap("Listing the store") { try fs.contentsOfDirectory(directory) }
        let isStore = names.contains { StoreFileNames.segmentLSN($0) != nil || StoreFileNames.snapshotLSN($0) != nil || $0 == StoreFileNames.lock }
        if !isStore && !names.isEmpty {
            throw StorageError(.notAStore, "\(directory) is not a Strata store (it has other files and no log or snapshot). Point at a store directory, or at an empty or missing directory to create one.", file: directory)
        }
        if !isStore && options.readOnly {
            throw StorageError(.notAStore, "\(directory) is an empty directory, not a store.", file: directory)
        }
    }

    /// The newest snapshot that verifies and belongs to this log.
    ///
    /// Every chunk of a snapshot is verified here when recovery could fall back from it (an
    /// older snapshot, or a log from LSN 1) or ``StorageOptions/verifiesSnapshotAtOpen`` asks
    /// for it; otherwise only its header, trailer and footer are, and its chunks are verified
    /// by their first decodes (``SnapshotReader/deferChunkVerification()``).
    ///
    /// A snapshot whose LSN is beyond the start of the newest log segment cannot come from
    /// this log's history: a checkpoint at *L* always creates `wal-<L+1>` (synced) before it
    /// writes `snapshot-<L>`, and later segments only start higher. Such a snapshot is
    /// either a stray (a copy from elsewhere, or one left above the head by point-in-time
    /// recovery) or the segments after it are missing. A damaged one is skipped like any
    /// damaged snapshot; a valid one fails a strict open with `corrupted` (guessing could
    /// lose data either way), and point-in-time recovery moves it aside.
    private static func newestUsableSnapshot(names: [String], directory: String, options: StorageOptions,
                                             report: inout RecoveryReport) throws -> SnapshotReader? {
        let fileSystem = options.fileSystem
        let snapshots = names.compactMap { n in StoreFileNames.snapshotLSN(n).map { (n, $0) } }.sorted { $0.1 > $1.1 }
        let newestSegment = names.compactMap(StoreFileNames.segmentLSN).max()
        var firstError: StorageError?
        // Where recovery can go when the snapshot at `lsn` is damaged: an older snapshot, or a
        // log that starts at the first transaction (rule 4 of docs/FORMAT.md, 10.1).
        let logStartsAtOne = names.contains { StoreFileNames.segmentLSN($0) == 1 }
        func hasFallback(below lsn: UInt64) -> Bool {
            logStartsAtOne || snapshots.contains { $0.1 < lsn }
        }
        for (name, nameLSN) in snapshots {
            let reader: SnapshotReader
            do {
                reader = try SnapshotReader(fileSystem: fileSystem, directory: directory, name: name, cipher: options.cipher)
                guard reader.lsn == nameLSN else {
                    throw StorageError(.corrupted, "Snapshot \(name) holds the state at LSN \(reader.lsn), not at the LSN its name says.", file: "\(directory)/\(name)", offset: 0)
                }
                if options.verifiesSnapshotAtOpen || hasFallback(below: nameLSN) {
                    // Encrypted chunks are authenticated at their first decode, not here: the
                    // checksums catch every accidental change now, and a chunk rewritten together
                    // with its checksum fails the first read of it (docs/FORMAT.md, 14.3). No image
                    // is kept: each chunk is read from the file again, and verified again, when
                    // first decoded, so the snapshot never needs to be resident whole.
                    try reader.verifyChecksums(deferringAuthentication: true, keepingImage: false)
                } else {
                    // Nothing could replace this snapshot, so damage found now would only fail
                    // the open: each chunk is checked by its first decode instead, and the open
                    // reads no chunk (docs/FORMAT.md, 10.2).
                    reader.deferChunkVerification()
                }
            } catch let error as StorageError where error.code == .corrupted {
                report.unusableSnapshots[name] = error.message
                firstError = firstError ?? error
                continue
            }
            guard let newestSegment, nameLSN >= newestSegment else { return reader }
            let reason = "it holds LSN \(nameLSN) but the newest log segment starts at LSN \(newestSegment)"
            guard options.recoveryMode == .pointInTime, !options.readOnly else {
                throw StorageError(.corrupted, "Snapshot \(name) is ahead of the log: \(reason). Either it does not belong to this store (move it out of the directory) or the log segments after it are missing (restore them from a backup); opening with point-in-time recovery moves it aside.", file: "\(directory)/\(name)", offset: 0, lastGoodLSN: newestSegment - 1)
            }
            let aside = "\(name).\(report.openedAt).quarantine"
            try WriteAheadLog.wrap("Moving snapshot \(name) aside") {
                try fileSystem.rename("\(directory)/\(name)", to: "\(directory)/\(aside)")
                try fileSystem.syncDirectory(directory)
            }
            report.unusableSnapshots[name] = "ahead of the log: " + reason
            report.quarantinedFiles.append(aside)
        }
        if let firstError {
            // No usable snapshot: the log alone must reach back to LSN 1, which recovery checks.
            let segments = names.compactMap(StoreFileNames.segmentLSN).sorted()
            if segments.first != 1 { throw firstError }
        }
        return nil
    }

    private static func writeReport(_ report: RecoveryReport, directory: String, fileSystem: any FileSystem) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let bytes = Array(try encoder.encode(report))
        let temporary = "\(directory)/\(recoveryReportFile).tmp"
        if fileSystem.exists(temporary) { try fileSystem.remove(temporary) }
        let file = try fileSystem.open(temporary, mode: .createNew)
        try file.writeAll(bytes, at: 0)
        try file.close()
        try fileSystem.rename(temporary, to: "\(directory)/\(recoveryReportFile)")
    }
}
