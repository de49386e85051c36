import Foundation
import Logging
public import Strata
import StrataStorage

/// Ships every committed transaction of a store to PostgreSQL as it happens: the log's frames,
/// byte for byte, and each new snapshot after a checkpoint (docs/REPLICATION.md).
///
/// Guarantees:
/// 1. PostgreSQL holds an exact prefix of the store's history: frames in LSN order with no
///    holes after the first snapshot shipped, each the writer's own bytes and checksum.
/// 2. Asynchronous mode (the default) never slows a commit; what a loss of this machine can
///    lose is ``ReplicationStatus/lagFrames``.
/// 3. Synchronous mode: a save under `.always` durability returns only once PostgreSQL has
///    committed its frame (it waits while PostgreSQL is unreachable, until the replicator
///    stops).
/// 4. While it runs, a checkpoint deletes no log segment that holds an unshipped frame.
///
/// For example:
///
/// ```swift
/// let replicator = try Replicator(store: store, url: "postgres://strata@db.internal/strata")
/// try replicator.start()
/// // … saves …
/// print(replicator.status.lagFrames)
/// replicator.stop()
/// ```
///
/// `@unchecked Sendable`: every mutable field (`state`, `thread`, `observation`) is read and
/// written only while `condition` is held, except `lastHoldWritten`, whose uses are ordered
/// (see there); the shipping thread owns its session and reader.
public final class Replicator: @unchecked Sendable {
    /// When a save returns relative to its frame reaching PostgreSQL.
    public enum Mode: Sendable, Hashable {
        /// Saves do not wait; frames follow within about ``Options/pollInterval``.
        case asynchronous
        /// A save under `.always` durability returns once PostgreSQL has committed its frame.
        case synchronous
    }

    /// How a replicator runs.
    public struct Options: Sendable {
        /// Asynchronous (default) or synchronous.
        public var mode: Mode = .asynchronous
        /// The ID the store is shipped under; default: the store's own ``Strata/PersistentStore/storeID``
        /// in lower case. `strata restore --store` takes the same ID.
        public var storeID: String?
        /// How often the log is checked when no commit wakes the replicator. Default 50 ms.
        public var pollInterval: Duration = .milliseconds(50)
        /// How long to wait before trying again after a failure. Default 1 s.
        public var retryInterval: Duration = .seconds(1)
        /// Bytes of frames shipped per PostgreSQL transaction, at most (at least one frame). Default 4 MiB.
        public var batchBytes = 4 << 20
        /// How long a connection attempt or a statement may go unanswered before the
        /// connection is dropped and tried again after ``retryInterval`` (a cut network link
        /// otherwise hangs until TCP gives up, about 15 minutes). Longer than the time a
        /// snapshot takes to upload. Default 30 s.
        public var timeout: Duration = PostgresSession.defaultTimeout
        /// The unshipped backlog, in frames, past which the status says so and a warning is
        /// logged. Default 100,000.
        public var backlogLimit: UInt64 = 100_000
        /// The defaults.
        public init() {}
    }

    private struct State {
        var running = false
        var stopRequested = false
        var wakeups = 0
        var shippedLSN: UInt64 = 0
        var snapshotLSN: UInt64 = 0
        var lastShippedAt: Date?
        var lastError: ReplicationError?
        var consecutiveFailures = 0
        var warnedBacklog = false
        /// The fencing epoch this primary ships under (docs/REPLICATION.md, "Promotion and fencing").
        var epoch: UInt64 = 0
    }

    /// The store ID frames are shipped under.
    public let storeID: String
    /// The PostgreSQL server and database.
    public let location: PostgresLocation
    /// How it runs.
    public let options: Options
    private let store: PersistentStore
    private let engine: StorageEngine
    private let condition = NSCondition()
    private var state = State()
    private var thread: Thread?
    private var observation: ObservationToken?
    /// When the sidecar's hold file was last written. Used by `start()` before the shipping
    /// thread starts, by that thread, and by `stop()` after it has ended (ordered by
    /// `condition`), so never by two threads at once.
    private var lastHoldWritten = Date.distantPast
    private let logger = Logger(label: "strata.replication")

    /// A replicator for `store` to the database at `url`; nothing connects until ``start()``.
    ///
    /// - Throws: ``ReplicationError`` `invalidURL`.
    public init(store: PersistentStore, url: String, options: Options = Options()) throws(ReplicationError) {
        self.location = try PostgresLocation(url)
        self.store = store
        self.engine = store.storageEngine
        self.options = options
        self.storeID = options.storeID ?? store.storeID.uuidString.lowercased()
    }

    deinit { stop() }

    /// Connects, creates the replication tables when missing, checks that what PostgreSQL
    /// holds for the store ID continues this store's log, and starts shipping on a thread of
    /// its own. From here on the log is kept until shipped.
    ///
    /// - Throws: ``ReplicationError`` `unreachable`, `server`, `unsupportedSchema`,
    ///   `diverged` (PostgreSQL holds a different history under this store ID), `fenced` (a
    ///   replica of this store was promoted since: this store is no longer the primary), and
    ///   `invalidArgument` when it already runs.
    public func start() throws(ReplicationError) {
        let alreadyRunning = condition.withLock { state.running }
        if alreadyRunning {
            throw ReplicationError(.invalidArgument, "The replicator of store \(storeID) is already running; call stop() first.")
        }
        let session = try PostgresSession.connect(location, timeout: options.timeout)
        let shipped: UInt64
        let snapshotLSN: UInt64
        let epoch: UInt64
        do throws(ReplicationError) {
            try ReplicationSchema.prepare(session)
            let remote = RemoteLog(session: session, storeID: storeID)
            let registered = try remote.registration()
            shipped = registered.shipped
            epoch = try EpochFile.read(store.directory)
            if registered.epoch > epoch {
                throw RemoteLog.fenced(storeID, epoch: epoch, now: registered.epoch, location: location)
            }
            if registered.epoch < epoch {
                throw ReplicationError(.diverged, "This store was promoted at epoch \(epoch), but PostgreSQL (\(location)) records epoch \(registered.epoch) for store \(storeID): it is another database, or one restored from before the promotion. Point the replicator at the database the store was promoted in.")
            }
            // Hold the log from here on, before anything else can checkpoint it away: in this
            // process, and for a writer in another process (the sidecar) with a hold file.
            engine.replication.retainLog(from: shipped + 1)
            holdForWriter(from: shipped + 1)
            try checkContinuity(remote, shipped: shipped)
            snapshotLSN = try remote.snapshotLSNs().last ?? 0
        } catch {
            engine.replication.retainLog(from: nil)
            session.close()
            throw error
        }
        condition.withLock {
            state = State(running: true, shippedLSN: shipped, snapshotLSN: snapshotLSN, epoch: epoch)
        }
        if options.mode == .synchronous {
            engine.replication.setShipWaiter { [weak self] lsn in self?.waitForShipping(lsn) }
        }
        let token = store.observeChanges { [weak self] _ in self?.wake() }
        let worker = Thread { [self] in self.run(session: session, shipped: shipped) }
        worker.name = "strata.replication"
        condition.withLock {
            observation = token
            thread = worker
        }
        worker.start()
    }

    /// Stops shipping: the thread finishes its current statement and exits, waiting saves
    /// are released, and the log is no longer held. Safe to call more than once.
    public func stop() {
        let (token, worker) = condition.withLock { () -> (ObservationToken?, Thread?) in
            state.stopRequested = true
            condition.broadcast()
            defer { observation = nil }
            return (observation, thread)
        }
        // Never started (or already stopped): the hooks may belong to another replicator.
        guard worker != nil else { return }
        token?.cancel()
        engine.replication.setShipWaiter(nil)
        let shipped = condition.withLock { () -> UInt64 in
            while state.running { condition.wait() }
            thread = nil
            return state.shippedLSN
        }
        engine.replication.retainLog(from: nil)
        holdForWriter(from: shipped + 1)
    }

    /// In a sidecar (the store is open read-only and another process writes it), records in
    /// the store directory that the log is needed from `lsn` on, so that the writer's
    /// checkpoints keep it (``StrataStorage/LogHoldFile``). The hold stays after ``stop()``, so
    /// that a sidecar started again ships every frame; delete `replication-hold` to release
    /// it. A hold that cannot be written is logged: the writer's checkpoints may then remove
    /// unshipped frames, and the snapshot that replaced them is shipped instead.
    private func holdForWriter(from lsn: UInt64) {
        guard engine.isReadOnly else { return }
        lastHoldWritten = Date()
        do { try LogHoldFile.write(lsn, in: store.directory, fileSystem: PosixFileSystem()) } catch {
            logger.warning("Store \(storeID): could not hold the log for the writing process in \(store.directory) (\(error)); its checkpoints may remove frames before they are shipped.")
        }
    }

    /// The replicator's state now.
    public var status: ReplicationStatus {
        let local = store.lastLSN
        return condition.withLock {
            ReplicationStatus(storeID: storeID, isRunning: state.running, shippedLSN: state.shippedLSN,
                              localLSN: max(local, state.shippedLSN), snapshotLSN: state.snapshotLSN,
                              lastShippedAt: state.lastShippedAt, lastError: state.lastError,
                              consecutiveFailures: state.consecutiveFailures, backlogLimit: options.backlogLimit)
        }
    }

    /// Waits until PostgreSQL has committed every frame up to `lsn`, or `timeout` passes, or
    /// the replicator stops.
    ///
    /// - Returns: whether `lsn` was shipped.
    @discardableResult
    public func waitUntilShipped(_ lsn: UInt64, timeout: Duration = .seconds(30)) -> Bool {
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        return condition.withLock {
            state.wakeups += 1
            condition.broadcast()
            while state.shippedLSN < lsn && state.running {
                if !condition.wait(until: deadline) { break }
            }
            return state.shippedLSN >= lsn
        }
    }

    // MARK: - Shipping thread

    /// What PostgreSQL holds must continue this store: it may not be ahead of the local log,
    /// and its last frame, when the local log still has it, must be the same bytes.
    private func checkContinuity(_ remote: RemoteLog, shipped: UInt64) throws(ReplicationError) {
        let local = store.lastLSN
        guard shipped <= local else {
            throw ReplicationError(.diverged, "PostgreSQL (\(location)) holds store \(storeID) up to LSN \(shipped), but this store ends at LSN \(local): it is another store under the same ID, or an older copy of it. Ship it under another store ID (Options.storeID), or restore it from PostgreSQL first.")
        }
        guard shipped > 0 else { return }
        var reader = LocalLogReader(directory: store.directory, after: shipped - 1, engine: engine)
        guard case .frames(let frames) = try reader.read(), let local = frames.first, local.lsn == shipped,
              let theirs = try remote.frame(at: shipped) else { return }
        guard theirs == local.bytes else {
            throw ReplicationError(.diverged, "Frame \(shipped) of store \(storeID) in PostgreSQL (\(location)) differs from this store's frame \(shipped): the histories diverged. Ship this store under another store ID (Options.storeID).")
        }
    }

    private func run(session initial: PostgresSession, shipped: UInt64) {
        var session: PostgresSession? = initial
        var reader = LocalLogReader(directory: store.directory, after: shipped, engine: engine)
        while true {
            // Wakeups counted from here on make the pause below return at once.
            let (stopping, seen) = condition.withLock { (state.stopRequested, state.wakeups) }
            if stopping { break }
            do throws(ReplicationError) {
                let current: PostgresSession
                if let session, !session.isClosed { current = session } else {
                    session?.close()
                    current = try PostgresSession.connect(location, timeout: options.timeout)
                    session = current
                    let remote = RemoteLog(session: current, storeID: storeID)
                    let registered = try remote.registration()
                    let found = registered.shipped
                    let (known, epoch) = condition.withLock { (state.shippedLSN, state.epoch) }
                    if registered.epoch != epoch {
                        throw RemoteLog.fenced(storeID, epoch: epoch, now: registered.epoch, location: location)
                    }
                    guard found == known else {
                        throw ReplicationError(.diverged, "After reconnecting, PostgreSQL (\(location)) holds store \(storeID) up to LSN \(found), not \(known) as shipped: another replicator ships the same store ID, or the tables were changed. Stop the other replicator.")
                    }
                    reader = LocalLogReader(directory: store.directory, after: known, engine: engine)
                }
                try shipOnce(RemoteLog(session: current, storeID: storeID), reader: &reader)
                condition.withLock {
                    state.lastError = nil
                    state.consecutiveFailures = 0
                }
            } catch {
                session?.close()
                session = nil
                let permanent = [ReplicationError.Code.diverged, .unsupportedSchema, .fenced].contains(error.code)
                let failures = condition.withLock {
                    state.lastError = error
                    state.consecutiveFailures += 1
                    return state.consecutiveFailures
                }
                if failures == 1 || permanent {
                    logger.error("Replication of store \(storeID) to \(location) failed\(permanent ? " and stopped" : ", retrying"): \(error)")
                }
                if permanent { break }
                pause(options.retryInterval, since: nil)
                continue
            }
            pause(options.pollInterval, since: seen)
        }
        session?.close()
        condition.withLock {
            state.running = false
            condition.broadcast()
        }
    }

    /// Ships a new snapshot, if any, then every frame appended since the last call.
    private func shipOnce(_ remote: RemoteLog, reader: inout LocalLogReader) throws(ReplicationError) {
        try shipNewSnapshot(remote)
        let epoch = condition.withLock { state.epoch }
        var shipped = condition.withLock { state.shippedLSN }
        switch try reader.read() {
        case .logTrimmed:
            try bootstrapFromSnapshot(remote, shipped: shipped)
            let now = condition.withLock { state.shippedLSN }
            reader = LocalLogReader(directory: store.directory, after: now, engine: engine)
        case .frames(let frames):
            var start = 0
            while start < frames.count {
                var end = start, bytes = 0
                while end < frames.count && (end == start || bytes + frames[end].bytes.count <= options.batchBytes) {
                    bytes += frames[end].bytes.count
                    end += 1
                }
                let batch = Array(frames[start..<end])
                do throws(ReplicationError) { try remote.append(batch, after: shipped, epoch: epoch) }
                catch {
                    // Read these frames again after reconnecting.
                    reader = LocalLogReader(directory: store.directory, after: shipped, engine: engine)
                    throw error
                }
                shipped = batch[batch.count - 1].lsn
                record(shipped: shipped)
                start = end
            }
        }
        warnIfBacklogged()
    }

    private func record(shipped lsn: UInt64) {
        engine.replication.retainLog(from: lsn + 1)
        if Date().timeIntervalSince(lastHoldWritten) >= 1 { holdForWriter(from: lsn + 1) }
        condition.withLock {
            state.shippedLSN = lsn
            state.lastShippedAt = Date()
            condition.broadcast()
        }
    }

    /// Ships the newest local snapshot when it is newer than the last one shipped.
    private func shipNewSnapshot(_ remote: RemoteLog) throws(ReplicationError) {
        let known = condition.withLock { state.snapshotLSN }
        guard let (name, lsn) = newestLocalSnapshot(), lsn > known else { return }
        guard let bytes = readSnapshot(name) else { return }
        try remote.putSnapshot(bytes, lsn: lsn)
        condition.withLock { state.snapshotLSN = lsn }
    }

    /// The local log no longer holds the frame after the last shipped one (a checkpoint
    /// removed it before this replicator held the log): ship the newest snapshot, which covers
    /// it, and continue after that snapshot.
    private func bootstrapFromSnapshot(_ remote: RemoteLog, shipped: UInt64) throws(ReplicationError) {
        guard let (name, lsn) = newestLocalSnapshot(), lsn > shipped, let bytes = readSnapshot(name) else {
            throw ReplicationError(.storage, "The log of the store at \(store.directory) no longer holds frame \(shipped + 1), and no snapshot after LSN \(shipped) covers it. Restart the replicator; if it persists, ship the store under a new store ID.")
        }
        try remote.putSnapshot(bytes, lsn: lsn)
        try remote.advance(from: shipped, to: lsn, epoch: condition.withLock { state.epoch })
        condition.withLock { state.snapshotLSN = max(state.snapshotLSN, lsn) }
        record(shipped: lsn)
        logger.notice("Store \(storeID): frames \(shipped + 1)...\(lsn) were checkpointed away before they were shipped; shipped snapshot \(lsn) in their place.")
    }

    private func newestLocalSnapshot() -> (String, UInt64)? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.directory)) ?? []
        return names.compactMap { name in StoreFileNames.snapshotLSN(name).map { (name, $0) } }.max { $0.1 < $1.1 }
    }

    /// The snapshot file's bytes, or `nil` when a later checkpoint removed it meanwhile.
    private func readSnapshot(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: "\(store.directory)/\(name)").map { Array($0) }
    }

    private func warnIfBacklogged() {
        let status = self.status
        let warn = condition.withLock { () -> Bool in
            let over = status.isOverBacklogLimit
            defer { state.warnedBacklog = over }
            return over && !state.warnedBacklog
        }
        if warn {
            logger.warning("Store \(storeID): \(status.lagFrames) frames are not yet in PostgreSQL (limit \(options.backlogLimit)); the local log is kept until they are. Check the connection to \(location).")
        }
    }

    /// Sleeps up to `interval`, or until a commit, a synchronous save or ``stop()`` wakes it
    /// (a wakeup counted after `seen` returns at once; `nil`: only ``stop()`` cuts it short).
    private func pause(_ interval: Duration, since seen: Int?) {
        let deadline = Date().addingTimeInterval(Self.seconds(interval))
        condition.withLock {
            while !state.stopRequested && (seen == nil || state.wakeups == seen) {
                if !condition.wait(until: deadline) { break }
            }
        }
    }

    private func wake() {
        condition.withLock {
            state.wakeups += 1
            condition.broadcast()
        }
    }

    /// The synchronous mode's wait, called by a commit after its frame is durable locally.
    private func waitForShipping(_ lsn: UInt64) {
        condition.withLock {
            state.wakeups += 1
            condition.broadcast()
            while state.shippedLSN < lsn && state.running && !state.stopRequested { condition.wait() }
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
