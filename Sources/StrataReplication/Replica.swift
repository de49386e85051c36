import Foundation
import Logging
public import Strata
import StrataStorage

/// A read replica of a store that a ``Replicator`` ships to PostgreSQL: a local, read-only
/// copy that applies each new frame as PostgreSQL announces it (`LISTEN`/`NOTIFY`), and that
/// can be promoted to primary with fencing (docs/REPLICATION.md, "Read replicas").
///
/// Open one with ``Strata/PersistentStore/openReplica(at:from:storeID:options:)``. Its
/// ``store`` is an ordinary read-only store: contexts on it fetch as on the primary, and
/// contexts that merge automatically, fetched-results controllers and live queries update as
/// frames arrive, exactly as a read-only store following a local writer does.
///
/// Guarantees:
/// 1. The replica's state is always an exact prefix of the primary's history: frames are
///    applied whole, checksummed, in LSN order, with no gap (a gap stops the replica with
///    ``ReplicationError/Code/gap``; open it again to rebuild it from the newest snapshot).
/// 2. The directory is a cache of PostgreSQL: opening a replica rebuilds it from the newest
///    shipped snapshot and the frames after it.
/// 3. ``promote(schema:options:)`` fences the old primary first (its frames are refused from
///    then on), applies every frame PostgreSQL committed before the fence, and only then
///    opens the directory for writing.
///
/// For example:
///
/// ```swift
/// let replica = try PersistentStore.openReplica(at: "/var/lib/app/replica.strata",
///                                               from: "postgres://strata@db.internal/strata",
///                                               storeID: "3f2a…")
/// let context = ObjectContext(store: replica.store)
/// context.automaticallyMergesChangesFromStore = true
/// // … reads; later, if the primary's host is lost:
/// let primary = try replica.promote()
/// try Replicator(store: primary, url: "postgres://strata@db.internal/strata").start()
/// ```
///
/// `@unchecked Sendable`: every field of `state` is read and written only while `condition`
/// is held. `importer` is used only by the applying thread while it runs, and after it has
/// stopped (``close()``, ``promote(schema:options:)`` wait for `state.running` to turn false
/// under `condition`, which orders the thread's last use before theirs).
public final class Replica: @unchecked Sendable {
    /// How a replica runs.
    public struct Options: Sendable {
        /// How often PostgreSQL is asked for new frames when no notification arrives (a
        /// notification is lost when the connection drops). Default 1 s.
        public var pollInterval: Duration = .seconds(1)
        /// How long to wait before trying again after a failure. Default 1 s.
        public var retryInterval: Duration = .seconds(1)
        /// How long a connection attempt or a statement may go unanswered before the
        /// connection is dropped and tried again after ``retryInterval`` (a cut network link
        /// otherwise hangs until TCP gives up, about 15 minutes). Longer than the time a
        /// snapshot takes to upload. Default 30 s.
        public var timeout: Duration = PostgresSession.defaultTimeout
        /// Frames fetched per query, at most. Default 5,000.
        public var fetchLimit = 5_000
        /// The options the replica's store opens with; it is always opened read-only,
        /// whatever ``PersistentStore/Options/isReadOnly`` says here. For the replica of an
        /// encrypted store, set its key here (`storeOptions.encryptionKey`, from the
        /// `StrataEncryption` product): frames travel through PostgreSQL still encrypted, and
        /// only the replica decrypts them.
        public var storeOptions: PersistentStore.Options = .readOnly
        /// The defaults.
        public init() {}
    }

    private struct State {
        var running = false
        var stopRequested = false
        var wakeups = 0
        var appliedLSN: UInt64 = 0
        var primaryLSN: UInt64 = 0
        var lastAppliedAt: Date?
        var lastError: ReplicationError?
        var consecutiveFailures = 0
        /// Set by a promotion: apply through this LSN, then stop.
        var catchUpThrough: UInt64?
        /// The epoch a promotion raised the store to.
        var promotedEpoch: UInt64?
        var closed = false
    }

    /// The marker file that says a directory holds a replica of a store ID (and may be rebuilt).
    static let markerName = "replica-of"

    /// The store ID this replica follows.
    public let storeID: String
    /// The PostgreSQL server and database it follows.
    public let location: PostgresLocation
    /// The local directory of the replica.
    public let directory: String
    /// The replica's read-only store; it moves forward as frames are applied.
    public let store: PersistentStore
    /// How it runs.
    public let options: Options
    private var importer: LogImporter
    private let condition = NSCondition()
    private var state = State()
    private let logger = Logger(label: "strata.replica")

    private init(storeID: String, location: PostgresLocation, directory: String, store: PersistentStore,
                 importer: LogImporter, options: Options) {
        self.storeID = storeID
        self.location = location
        self.directory = directory
        self.store = store
        self.importer = importer
        self.options = options
        state.appliedLSN = importer.lastLSN
        state.primaryLSN = importer.lastLSN
    }

    deinit { stopApplying() }

    /// Builds the replica in `directory` from PostgreSQL and starts following.
    static func open(at directory: String, from url: String, storeID: String, options: Options) throws(ReplicationError) -> Replica {
        let location = try PostgresLocation(url)
        try clearForRebuild(directory, storeID: storeID)
        let report = try StoreRestore.restore(from: url, storeID: storeID, into: directory)
        do {
            try Data("\(storeID)\n".utf8).write(to: URL(fileURLWithPath: "\(directory)/\(markerName)"))
        } catch {
            throw ReplicationError(.storage, "Could not mark \(directory) as a replica of store \(storeID): \(error.localizedDescription)")
        }
        let store: PersistentStore
        var storeOptions = options.storeOptions
        storeOptions.isReadOnly = true
        do { store = try PersistentStore.open(at: directory, options: storeOptions) } catch {
            throw ReplicationError(.storage, "The replica of store \(storeID) built in \(directory) could not be opened: \(error)", cause: SendableCause(error))
        }
        let replica = Replica(storeID: storeID, location: location, directory: directory, store: store,
                              importer: LogImporter(directory: directory, after: report.lsn), options: options)
        replica.startApplying()
        return replica
    }

    /// Makes `directory` ready for a rebuild: missing, empty, or a replica of `storeID` (emptied).
    private static func clearForRebuild(_ directory: String, storeID: String) throws(ReplicationError) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory), !names.isEmpty else { return }
        let marker = manager.contents(atPath: "\(directory)/\(markerName)").map { String(decoding: $0, as: UTF8.self) }
        guard marker?.trimmingCharacters(in: .whitespacesAndNewlines) == storeID else {
            throw ReplicationError(.invalidArgument, "\(directory) holds files and is not a replica of store \(storeID) (a promoted replica, another store, or something else); open the replica in a new or empty directory, so that no store is overwritten.")
        }
        for name in names { try? manager.removeItem(atPath: "\(directory)/\(name)") }
    }

    /// Where the replica stands now.
    public var status: ReplicaStatus {
        condition.withLock {
            ReplicaStatus(storeID: storeID, isRunning: state.running, appliedLSN: state.appliedLSN,
                          primaryLSN: max(state.primaryLSN, state.appliedLSN), lastAppliedAt: state.lastAppliedAt,
                          lastError: state.lastError, consecutiveFailures: state.consecutiveFailures)
        }
    }

    /// The epoch this replica was promoted under (``promote(schema:options:timeout:)``), or
    /// `nil` before a promotion. Frames of an older epoch are refused from then on.
    public var promotedEpoch: UInt64? { condition.withLock { state.promotedEpoch } }

    /// Waits until the replica's store has applied every frame up to `lsn`, or `timeout`
    /// passes, or the replica stops.
    ///
    /// - Returns: whether `lsn` was applied.
    @discardableResult
    public func waitUntilApplied(_ lsn: UInt64, timeout: Duration = .seconds(30)) -> Bool {
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        return condition.withLock {
            state.wakeups += 1
            condition.broadcast()
            while state.appliedLSN < lsn && state.running {
                if !condition.wait(until: deadline) { break }
            }
            return state.appliedLSN >= lsn
        }
    }

    /// Stops following and closes the replica's store. The directory stays a replica: opening
    /// it again rebuilds it. Safe to call more than once.
    ///
    /// - Throws: ``ReplicationError`` `storage` when the last frames cannot be synced or the
    ///   store cannot be closed.
    public func close() throws(ReplicationError) {
        stopApplying()
        let first = condition.withLock { () -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        do {
            try importer.finish()
            try store.close()
        } catch {
            throw ReplicationError(.storage, "Closing the replica of store \(storeID) at \(directory) failed: \(error)", cause: SendableCause(error))
        }
    }

    /// Makes this replica the store's primary and returns it, open for writing.
    ///
    /// In order: the store's epoch in PostgreSQL is raised, which fences the old primary (every
    /// frame it ships from then on is refused with ``ReplicationError/Code/fenced``, and its
    /// replicator stops); every frame PostgreSQL committed before that moment is applied here;
    /// the new epoch is recorded durably in the directory; the replica's read-only store is
    /// closed and the directory opened for writing. Start a ``Replicator`` on the result to
    /// ship its writes: it ships under the new epoch, after the old primary's last frame.
    ///
    /// What the old primary committed but had not shipped when it was fenced is not in the
    /// promoted store (in asynchronous mode, at most the lag its status reported; nothing in
    /// synchronous mode, where no such save returned).
    ///
    /// - Parameters:
    ///   - schema: the schema to open with, as in `PersistentStore.open(at:schema:options:)`
    ///     (`nil`: the stored one).
    ///   - options: the writable store's options.
    ///   - timeout: how long to wait for the frames before the fence.
    /// - Throws: ``ReplicationError`` `unreachable`/`server` (PostgreSQL could not raise the
    ///   epoch or send the frames: nothing changed locally; promote again), `gap`, `storage`
    ///   (the directory could not be opened for writing), `invalidArgument` (closed already).
    public func promote(schema: Schema? = nil, options storeOptions: PersistentStore.Options = PersistentStore.Options(),
                        timeout: Duration = .seconds(60)) throws(ReplicationError) -> PersistentStore {
        guard !condition.withLock({ state.closed }) else {
            throw ReplicationError(.invalidArgument, "The replica of store \(storeID) at \(directory) is closed; open it again to promote it.")
        }
        let session = try PostgresSession.connect(location, timeout: options.timeout)
        let fence: (epoch: UInt64, shipped: UInt64)
        do { fence = try RemoteLog(session: session, storeID: storeID).fence() } catch {
            session.close()
            throw error
        }
        session.close()
        condition.withLock { state.promotedEpoch = fence.epoch }
        logger.notice("Store \(storeID): epoch raised to \(fence.epoch); the old primary is fenced at LSN \(fence.shipped).")
        condition.withLock {
            state.catchUpThrough = fence.shipped
            state.wakeups += 1
            condition.broadcast()
        }
        let caughtUp = waitUntilApplied(fence.shipped, timeout: timeout)
        stopApplying()
        guard caughtUp else {
            let reason = condition.withLock { state.lastError.map { " (\($0.message))" } ?? "" }
            throw ReplicationError(.unreachable, "The replica of store \(storeID) could not apply the frames up to LSN \(fence.shipped) within \(timeout)\(reason). The old primary is fenced already (epoch \(fence.epoch)); open the replica again and promote it once PostgreSQL is reachable.")
        }
        try close()
        try? FileManager.default.removeItem(atPath: "\(directory)/\(Self.markerName)")
        try EpochFile.write(fence.epoch, in: directory)
        do {
            return try PersistentStore.open(at: directory, schema: schema, options: storeOptions)
        } catch {
            throw ReplicationError(.storage, "The promoted replica of store \(storeID) at \(directory) could not be opened for writing: \(error)", cause: SendableCause(error))
        }
    }

    // MARK: - Applying thread

    private func startApplying() {
        condition.withLock { state.running = true }
        let worker = Thread { [self] in self.run() }
        worker.name = "strata.replica"
        worker.start()
    }

    private func stopApplying() {
        condition.withLock {
            state.stopRequested = true
            condition.broadcast()
            while state.running { condition.wait() }
        }
    }

    private func run() {
        var session: PostgresSession?
        while true {
            let (stopping, seen, through, applied) = condition.withLock {
                (state.stopRequested, state.wakeups, state.catchUpThrough, state.appliedLSN)
            }
            if stopping { break }
            if let through, applied >= through { break }
            do throws(ReplicationError) {
                let current: PostgresSession
                if let session, !session.isClosed { current = session } else {
                    session?.close()
                    current = try PostgresSession.connect(location, timeout: options.timeout)
                    session = current
                    try current.listen(ReplicationSchema.frameChannel) { [weak self] in self?.wake() }
                }
                let applied = try applyOnce(RemoteLog(session: current, storeID: storeID), through: through)
                condition.withLock {
                    state.lastError = nil
                    state.consecutiveFailures = 0
                }
                if applied > 0 { continue }
            } catch {
                session?.close()
                session = nil
                let permanent = [ReplicationError.Code.gap, .corrupted, .storage, .notFound].contains(error.code)
                let failures = condition.withLock {
                    state.lastError = error
                    state.consecutiveFailures += 1
                    return state.consecutiveFailures
                }
                if failures == 1 || permanent {
                    logger.error("Replica of store \(storeID) from \(location) failed\(permanent ? " and stopped" : ", retrying"): \(error)")
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

    /// Fetches the frames after the last applied one (up to `through`), writes them into the
    /// local log and moves the store forward over them.
    ///
    /// - Returns: how many frames it applied.
    private func applyOnce(_ remote: RemoteLog, through: UInt64?) throws(ReplicationError) -> Int {
        guard let remoteState = try remote.state() else {
            throw ReplicationError(.notFound, "PostgreSQL (\(location)) no longer holds store \(storeID); the replica stopped at LSN \(importer.lastLSN).")
        }
        condition.withLock { state.primaryLSN = remoteState.shipped }
        let after = importer.lastLSN
        let frames = try remote.frames(after: after, through: through ?? UInt64(Int64.max), limit: options.fetchLimit)
        guard let first = frames.first else { return 0 }
        guard first.lsn == after + 1 else {
            throw ReplicationError(.gap, "PostgreSQL (\(location)) lacks frame \(after + 1) of store \(storeID) (the next it holds is \(first.lsn)): the primary replaced frames with a snapshot. The replica stopped at LSN \(after), an exact prefix; open it again to rebuild it from the newest snapshot.")
        }
        for frame in frames {
            do { try importer.append(frame: frame.bytes, encryption: frame.encryption) }
            catch let error as StorageError where error.code == .corrupted {
                throw ReplicationError(.corrupted, "Frame \(frame.lsn) of store \(storeID) in \(location) is damaged: \(error.message) The replica stopped at LSN \(importer.lastLSN).", cause: error)
            } catch {
                throw ReplicationError(.storage, "Could not write frame \(frame.lsn) into the replica at \(directory): \(error)", cause: SendableCause(error))
            }
        }
        do { _ = try store.refresh() } catch {
            throw ReplicationError(.storage, "The replica's store at \(directory) could not apply frames \(after + 1)...\(importer.lastLSN): \(error)", cause: SendableCause(error))
        }
        let lsn = importer.lastLSN
        condition.withLock {
            state.appliedLSN = lsn
            state.lastAppliedAt = Date()
            condition.broadcast()
        }
        return frames.count
    }

    /// Sleeps up to `interval`, or until a notification, a waiter or a stop wakes it (a
    /// wakeup counted after `seen` returns at once; `nil`: only a stop cuts it short).
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

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

extension PersistentStore {
    /// Opens a read replica of the store shipped to PostgreSQL under `storeID`, in
    /// `directory`, and starts following it (see ``Replica``).
    ///
    /// The directory must be missing, empty, or a replica of the same store ID (it is rebuilt:
    /// a replica is a cache of PostgreSQL). It is built from the newest shipped snapshot and
    /// the frames after it, opened read-only, and moved forward as PostgreSQL announces new
    /// frames.
    ///
    /// - Throws: ``ReplicationError`` `notFound` (nothing shipped under `storeID`),
    ///   `invalidArgument` (the directory holds something else), `invalidURL`, `unreachable`,
    ///   `server`, `gap`, `corrupted`, `storage`.
    public static func openReplica(at directory: String, from url: String, storeID: String,
                                   options: Replica.Options = Replica.Options()) throws(ReplicationError) -> Replica {
        try Replica.open(at: directory, from: url, storeID: storeID, options: options)
    }
}
