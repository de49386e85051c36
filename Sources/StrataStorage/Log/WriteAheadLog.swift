import Foundation

/// The append side of the log: assigns LSNs, batches concurrent commits into one write and
/// one sync (group commit), rotates segments by size, and turns read-only for good after
/// any write or sync error (a failed fsync is never retried and reported as success).
///
/// `@unchecked Sendable`: every mutable field is guarded by `condition`; file I/O happens
/// outside the lock only by the single thread that set `flushing`, on values it copied out.
final class WriteAheadLog: @unchecked Sendable {
    struct Segment {
        var name: String
        var handle: any FileHandle
        var end: Int64
        var firstLSN: UInt64
        /// The offset up to which the segment is known to be on stable storage.
        var durableEnd: Int64
        /// Bytes of header before the first frame.
        var headerLength: Int64
    }

    let fileSystem: any FileSystem
    let directory: String
    let durability: Durability
    let segmentSize: Int64
    let salt: UInt32
    /// For an encrypted store: this log generation's encryption header (a fresh 128-bit salt
    /// at every open) and the file cipher derived from it, which seals every frame written
    /// in this generation. LSNs never repeat within a generation (a failed write makes the
    /// log read-only until the store is reopened, and every open starts a new generation),
    /// so no nonce repeats under one file key. A key rotation (``rekey(to:)``) replaces it,
    /// under `condition`, together with the segment it starts.
    private(set) var encryption: (header: EncryptionHeader, cipher: any FileCipher)?

    private let condition = NSCondition()
    /// The segment frames are written to; for an encrypted store opened on a recovered tail,
    /// that tail until ``freshSegmentNeeded`` is served (nothing is written to it).
    private var segment: Segment
    /// Whether this generation's frames must go to a segment of their own that does not exist
    /// yet (an encrypted store opened on a recovered tail): the first flush, rotation or key
    /// rotation creates it, so that an open with no write adds no file and no sync beyond a
    /// plain open's.
    private var freshSegmentNeeded = false
    private var pending = PendingBatch()
    private var pendingLastLSN: UInt64
    private var nextLSN: UInt64
    private var writtenLSN: UInt64
    private var durableLSN: UInt64
    private var flushing = false
    private var failure: StorageError?
    private var closed = false
    private var lastSync = ContinuousClock.now
    private var bytesSinceCheckpoint: Int64 = 0
    private var ticker: (any DispatchSourceTimer)?
    /// The durable-LSN marker; written only by the thread that set `flushing` (or holds the
    /// lock with no flush running), after a sync succeeded.
    private let marker: DurableMarkerWriter

    /// Opens the log for appending after recovery. `tail` is the segment to continue in;
    /// without one, a new segment starting at `lastLSN + 1` is created with a new salt. An
    /// encrypted log never appends to `tail`: its first write creates a new segment instead.
    init(fileSystem: any FileSystem, directory: String, durability: Durability,
         segmentSize: Int64, lastLSN: UInt64, tail: (name: String, salt: UInt32, end: Int64)?,
         cipher: (any StoreCipher)? = nil) throws {
        self.fileSystem = fileSystem
        self.directory = directory
        self.durability = durability
        self.segmentSize = max(segmentSize, 4096)
        nextLSN = lastLSN + 1
        pendingLastLSN = lastLSN
        writtenLSN = lastLSN
        durableLSN = lastLSN
        encryption = cipher.map { EncryptionHeader.new($0, kind: .logSegment) }
        if let tail {
            // A plain log continues in the tail it recovered. An encrypted one never appends to
            // it: recovery may have cut a torn frame whose LSN the next save takes again, and
            // sealing other bytes under the same LSN (the nonce) and the same file key would
            // break AES-GCM. Its frames go to a new segment with this generation's salt and
            // encryption header, created by the first write that needs it
            // (``startFreshSegment(after:firstLSN:encryption:)``), not here: until then the
            // tail stays the newest segment, and the marker speaks for it.
            salt = encryption == nil ? tail.salt : UInt32.random(in: 1...UInt32.max)
            freshSegmentNeeded = encryption != nil
            let handle = try Self.wrap("Opening log segment \(tail.name)") {
                let file = try fileSystem.open("\(directory)/\(tail.name)", mode: .readWrite)
                // What recovery read may exist only in the OS cache (after a process crash
                // under .never or .everySecond); new frames will claim it is synced, so it must be.
                try file.sync()
                return file
            }
            segment = Segment(name: tail.name, handle: handle, end: tail.end,
                              firstLSN: StoreFileNames.segmentLSN(tail.name) ?? lastLSN + 1, durableEnd: tail.end,
                              headerLength: Int64(SegmentHeader.size))
        } else {
            salt = UInt32.random(in: 1...UInt32.max)
            segment = try Self.createSegment(fileSystem: fileSystem, directory: directory,
                                             firstLSN: lastLSN + 1, salt: salt, encryption: encryption?.header)
        }
        // The marker belongs to the newest segment's generation: the tail's while it has none.
        let generation = tail?.salt ?? salt
        marker = try Self.wrap("Writing the durable-LSN marker") {
            let marker = try DurableMarkerWriter(fileSystem: fileSystem, directory: directory, salt: generation, lsn: lastLSN)
            // The names must be durable too: the marker's, and the tail segment's — a crash
            // between a new segment's header sync and its directory sync leaves an entry that
            // a power loss can still take, with every frame appended to it from now on.
            try fileSystem.syncDirectory(directory)
            return marker
        }
        if durability == .everySecond { startTicker() }
    }

    deinit { ticker?.cancel() }

    /// The LSN of the last frame handed to the log.
    var lastAssignedLSN: UInt64 { condition.withLock { nextLSN - 1 } }

    /// The LSN up to which frames are known to be on stable storage.
    var syncedLSN: UInt64 { condition.withLock { durableLSN } }

    /// Bytes appended since the last checkpoint (or open).
    var appendedBytes: Int64 { condition.withLock { bytesSinceCheckpoint } }

    /// The error that made the log read-only, if any.
    var failureError: StorageError? { condition.withLock { failure } }

    /// Appends one transaction and waits as the durability mode says.
    ///
    /// - Returns: the transaction's LSN.
    /// - Throws: the write or sync error (`diskFull`, `io`) when this append's flush fails,
    ///   and the same error for every append after it: the log is then read-only for good.
    func append(kind: UInt8, payload: [UInt8], timestamp: Int64) throws -> UInt64 {
        let lsn = try submit(kind: kind, prepared: try FrameCodec.prepare(payload), timestamp: timestamp)
        try waitUntilDurable(lsn)
        return lsn
    }

    /// Queues one prepared transaction and returns its LSN at once, without waiting.
    func submit(kind: UInt8, prepared: PreparedPayload, timestamp: Int64) throws -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        try checkUsable()
        let lsn = nextLSN
        nextLSN += 1
        FrameCodec.seal(prepared, kind: kind, lsn: lsn, timestamp: timestamp,
                        syncedLSN: durableLSN, salt: salt, cipher: encryption?.cipher, into: &pending)
        pendingLastLSN = lsn
        return lsn
    }

    /// Waits until the transaction `lsn` is as durable as the durability mode promises,
    /// writing (and syncing) the pending batch itself when no other thread is doing it.
    func waitUntilDurable(_ lsn: UInt64) throws {
        condition.lock()
        defer { condition.unlock() }
        while true {
            // Durable first: a frame that reached stable storage before a later failure (a
            // failed rotation, another batch's sync) is a successful save, and must say so.
            if isDone(lsn) { return }
            if let failure { throw failure }
            if flushing {
                condition.wait()
            } else {
                flushLocked(forceSync: durability == .always || syncOverdue())
            }
        }
    }

    /// Writes and syncs everything pending, then starts a new segment for later frames.
    ///
    /// - Returns: the last LSN in the old segments (every frame up to it is durable).
    func rotate() throws -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        let last = try syncAllLocked()
        if segment.firstLSN == last + 1 && segment.end == segment.headerLength {
            // The current segment is new and empty (an automatic rotation just happened):
            // every frame up to `last` is already in older, synced segments.
            bytesSinceCheckpoint = 0
            return last
        }
        flushing = true
        let old = segment
        let header = encryption?.header
        condition.unlock()
        let result = syncAndStartSegment(after: old, firstLSN: last + 1, encryption: header)
        condition.lock()
        flushing = false
        condition.broadcast()
        switch result {
        case .success(let new):
            segment = new
            freshSegmentNeeded = false
            bytesSinceCheckpoint = 0
            return last
        case .failure(let error):
            failure = readOnlyError(after: error)
            throw failure!
        }
    }

    /// Writes and syncs everything pending, without starting a new segment.
    ///
    /// - Returns: the LSN of the last frame (every frame up to it is durable).
    func syncAll() throws -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return try syncAllLocked()
    }

    /// ``syncAll()`` with the lock held: waits for a flush under way, then writes and syncs
    /// what is pending.
    private func syncAllLocked() throws -> UInt64 {
        try checkUsable()
        while flushing { condition.wait() }
        try checkUsable()
        if !pending.isEmpty || durableLSN < writtenLSN { flushLocked(forceSync: true) }
        if let failure { throw failure }
        return writtenLSN
    }

    /// Starts the next segment under `cipher` (`nil`: plain), with a fresh encryption header,
    /// and seals every later frame with it: the log's side of a key rotation, called once
    /// the rotation's snapshot is durable and while no frame is submitted.
    ///
    /// The new segment starts after the last frame; when the current segment is empty and
    /// already has that name, it is replaced (written as `<name>.tmp`, then renamed over it).
    ///
    /// - Throws: the write or sync error; the log is then read-only, as after a failed append.
    func rekey(to cipher: (any StoreCipher)?) throws {
        condition.lock()
        defer { condition.unlock() }
        try checkUsable()
        while flushing { condition.wait() }
        try checkUsable()
        if !pending.isEmpty || durableLSN < writtenLSN { flushLocked(forceSync: true) }
        if let failure { throw failure }
        let first = writtenLSN + 1
        let next = cipher.map { EncryptionHeader.new($0, kind: .logSegment) }
        do {
            let new = try Self.createSegment(fileSystem: fileSystem, directory: directory, firstLSN: first, salt: salt,
                                             encryption: next?.0,
                                             replacing: segment.name == StoreFileNames.segment(firstLSN: first))
            try? segment.handle.close()
            segment = new
            freshSegmentNeeded = false
            marker.adopt(salt: salt)
            encryption = next.map { (header: $0.0, cipher: $0.1) }
        } catch let error as StorageError {
            failure = readOnlyError(after: error)
            throw failure!
        }
    }

    /// Makes the log read-only after a failure elsewhere in the store (a snapshot write).
    func markFailed(_ error: StorageError) {
        condition.withLock {
            if failure == nil { failure = readOnlyError(after: error) }
            condition.broadcast()
        }
    }

    /// Flushes and syncs what is pending, then stops the background syncer.
    func close() throws {
        condition.lock()
        defer { condition.unlock() }
        while flushing { condition.wait() }
        if failure == nil && (!pending.isEmpty || durableLSN < writtenLSN) { flushLocked(forceSync: true) }
        if failure == nil { try? marker.sync() }
        closed = true
        ticker?.cancel()
        ticker = nil
        if let failure { throw failure }
    }

    // MARK: - Internals (called with the lock held)

    private func checkUsable() throws {
        if closed { throw StorageError(.closed, "The store is closed; open it again to write.") }
        if let failure { throw failure }
    }

    private func isDone(_ lsn: UInt64) -> Bool {
        switch durability {
        case .always: return durableLSN >= lsn
        case .everySecond: return writtenLSN >= lsn && (durableLSN >= lsn || !syncOverdue(limit: .seconds(2)))
        case .never: return writtenLSN >= lsn
        }
    }

    private func syncOverdue(limit: Duration = .seconds(1)) -> Bool {
        durability == .everySecond && durableLSN < pendingLastLSN && ContinuousClock.now - lastSync >= limit
    }

    /// Becomes the flusher: writes the pending batch (and syncs it when asked) with the lock
    /// released, then publishes the new watermarks and wakes every waiter.
    private func flushLocked(forceSync: Bool) {
        flushing = true
        let batch = pending
        let last = pendingLastLSN
        pending = PendingBatch(reservingCapacity: batch.copiedCount)
        var target = segment
        let startFresh = freshSegmentNeeded
        let first = writtenLSN + 1
        let header = encryption?.header
        condition.unlock()
        var flushError: StorageError?
        var written = false, synced = false
        var fresh: Segment?
        do {
            if startFresh {
                let new = try startFreshSegment(after: target, firstLSN: first, encryption: header)
                fresh = new
                target = new
            }
            // The pieces back to back: usually one; a large payload is written from its own
            // buffer instead of being copied into the batch.
            var offset = target.end
            for piece in batch.allPieces {
                try Self.wrap("Writing to log segment \(target.name)") { try target.handle.writeAll(piece, at: offset) }
                offset += Int64(piece.count)
            }
            written = true
            if forceSync {
                try Self.wrap("Syncing log segment \(target.name)") { try target.handle.sync() }
                synced = true
                // A hint for recovery, not synced here: a lost or torn marker only knows less.
                try? marker.write(last)
            }
        } catch let caught as StorageError {
            flushError = caught
        } catch {
            flushError = StorageError(.io, "Writing the log failed: \(error)")
        }
        // (When an encrypted store's first segment could not be created, nothing was written,
        // and the recovered tail is left as it is.)
        if flushError != nil && (!startFresh || fresh != nil) {
            // A failed write leaves part of the batch in the file; a failed sync may have left
            // any unsynced page unwritten while the page cache still shows it (Linux marks such
            // pages clean). Cut the file back so that no frame of a failed save — nor, after a
            // failed sync, any frame whose durability is now unknown — can reappear at the next
            // open or be vouched for by the `syncedLSN` of frames written after it.
            cutBack(target, to: written ? target.durableEnd : target.end)
        }
        condition.lock()
        flushing = false
        defer { condition.broadcast() }
        if let fresh {
            segment = fresh
            freshSegmentNeeded = false
        }
        if let error = flushError {
            failure = readOnlyError(after: error)
            return
        }
        segment.end += Int64(batch.count)
        bytesSinceCheckpoint += Int64(batch.count)
        writtenLSN = last
        if synced {
            durableLSN = last
            segment.durableEnd = segment.end
            lastSync = .now
        }
        if segment.end >= segmentSize { rotateLocked() }
    }

    /// Syncs the segment `old` and creates the next one, starting at `firstLSN` (called
    /// without the lock, by the thread that set `flushing`). When the sync fails, `old` is cut
    /// back to what was last known durable, as after a failed flush.
    private func syncAndStartSegment(after old: Segment, firstLSN: UInt64,
                                     encryption: EncryptionHeader?) -> Result<Segment, StorageError> {
        do {
            do {
                try Self.wrap("Syncing log segment \(old.name)") { try old.handle.sync() }
            } catch {
                cutBack(old, to: old.durableEnd)
                throw error
            }
            try? marker.write(firstLSN - 1)
            try? marker.sync()
            let new = try Self.createSegment(fileSystem: fileSystem, directory: directory,
                                             firstLSN: firstLSN, salt: salt, encryption: encryption,
                                             replacing: old.name == StoreFileNames.segment(firstLSN: firstLSN))
            // From now on the marker speaks for this generation's segments (a no-op unless
            // `old` was an encrypted store's recovered tail).
            marker.adopt(salt: salt)
            return .success(new)
        } catch let error as StorageError {
            return .failure(error)
        } catch {
            return .failure(StorageError(.io, "Rotating the log failed: \(error)"))
        }
    }

    /// Creates this generation's first segment, starting at `firstLSN`, after `tail`, the
    /// recovered tail of an encrypted store, which is never appended to (called without the
    /// lock, by the thread that set `flushing`, before anything of this generation is written).
    ///
    /// `tail` is already synced (at open). When it holds no frame and has the new segment's
    /// name, the new segment replaces it (`<name>.tmp`, renamed over it). The marker speaks
    /// for the new generation from now on.
    private func startFreshSegment(after tail: Segment, firstLSN: UInt64,
                                   encryption: EncryptionHeader?) throws -> Segment {
        let new = try Self.createSegment(fileSystem: fileSystem, directory: directory, firstLSN: firstLSN,
                                         salt: salt, encryption: encryption,
                                         replacing: tail.name == StoreFileNames.segment(firstLSN: firstLSN))
        try? tail.handle.close()
        marker.adopt(salt: salt)
        return new
    }

    /// Truncates `target` back to `offset` and syncs the cut, after a failed write or sync
    /// (called without the lock, by the flusher). Best effort: when the cut fails too, the
    /// file cannot be repaired from here, and the engine is read-only anyway.
    private func cutBack(_ target: Segment, to offset: Int64) {
        try? target.handle.truncate(to: offset)
        try? target.handle.sync()
    }

    /// Starts a new segment after the current one grew past the size limit (lock held,
    /// called by the flusher right after a flush).
    private func rotateLocked() {
        flushing = true
        let old = segment
        let first = writtenLSN + 1
        let header = encryption?.header
        condition.unlock()
        let result = syncAndStartSegment(after: old, firstLSN: first, encryption: header)
        condition.lock()
        flushing = false
        switch result {
        case .success(let new):
            segment = new
            durableLSN = max(durableLSN, first - 1)
        case .failure(let error):
            failure = readOnlyError(after: error)
        }
    }

    private func readOnlyError(after error: StorageError) -> StorageError {
        var wrapped = error
        wrapped.message += " The store is now read-only; reopen it once the cause is fixed. Transactions whose save returned are safe."
        return wrapped
    }

    private func startTicker() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "strata.wal.sync"))
        timer.schedule(deadline: .now() + 1, repeating: 1.0)
        timer.setEventHandler { [weak self] in self?.backgroundSync() }
        ticker = timer
        timer.resume()
    }

    private func backgroundSync() {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, failure == nil, !flushing, durableLSN < pendingLastLSN else { return }
        flushLocked(forceSync: true)
    }

    // MARK: - Files

    /// Creates the segment starting at `firstLSN`, header synced and its name made durable.
    ///
    /// With `replacing`, a segment of that name exists and holds no frame: the new one is
    /// written as `<name>.tmp` and renamed over it, so a crash leaves one or the other.
    static func createSegment(fileSystem: any FileSystem, directory: String, firstLSN: UInt64,
                              salt: UInt32, encryption: EncryptionHeader? = nil,
                              replacing: Bool = false) throws -> Segment {
        let name = StoreFileNames.segment(firstLSN: firstLSN)
        let path = "\(directory)/\(name)"
        return try wrap("Creating log segment \(name)") {
            let created = replacing ? path + ".tmp" : path
            if replacing && fileSystem.exists(created) { try fileSystem.remove(created) }
            let handle = try fileSystem.open(created, mode: .createNew)
            let header = SegmentHeader(salt: salt, firstLSN: firstLSN, encryption: encryption).encoded()
            try handle.writeAll(header, at: 0)
            try handle.sync()
            if replacing { try fileSystem.rename(created, to: path) }
            try fileSystem.syncDirectory(directory)
            return Segment(name: name, handle: handle, end: Int64(header.count), firstLSN: firstLSN,
                           durableEnd: Int64(header.count), headerLength: Int64(header.count))
        }
    }

    static func wrap<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do { return try body() }
        catch let error as SystemError { throw error.asStorageError(what) }
    }
}
