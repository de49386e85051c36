public import Foundation
import StrataStorage

/// What a restore built.
public struct RestoreReport: Sendable {
    /// The store ID that was restored.
    public var storeID: String
    /// The directory that now holds the store.
    public var directory: String
    /// The LSN the restored store ends at.
    public var lsn: UInt64
    /// The LSN of the snapshot it starts from (0: it replays the log from the first frame).
    public var snapshotLSN: UInt64
    /// How many frames were copied after the snapshot.
    public var frames: Int
    /// The log segment files written.
    public var segments: [String]
}

/// Builds a store directory from what a ``Replicator`` shipped to PostgreSQL.
public enum StoreRestore {
    /// Frames fetched per query.
    static let fetchLimit = 5_000

    /// Restores store `storeID` as of `lsn` (default: the last LSN shipped) into `directory`:
    /// the newest shipped snapshot at or before `lsn`, then every frame after it up to `lsn`,
    /// each checked (checksum, consecutive LSNs) before it is written, byte for byte.
    ///
    /// The result is an ordinary store: open it with `PersistentStore.open(at:)`, check it
    /// with `strata verify`. It equals the replicated store as of `lsn`.
    ///
    /// - Parameters:
    ///   - url: the `postgres://` URL the replicator shipped to.
    ///   - storeID: the store ID it shipped under (``Replicator/storeID``).
    ///   - lsn: the LSN to restore to; `nil`: the newest shipped.
    ///   - directory: where to build the store; must be missing or empty. On failure it is
    ///     removed again (when this call created it) or emptied.
    /// - Throws: ``ReplicationError`` `notFound` (no such store, or nothing at or before
    ///   `lsn`), `gap` (frames missing between the snapshot and `lsn`), `corrupted` (a shipped
    ///   frame or snapshot fails its checks), `storage` (the directory cannot be written),
    ///   `invalidURL`, `unreachable`, `server`.
    /// - Complexity: O(snapshot size + bytes of the frames after it).
    @discardableResult
    public static func restore(from url: String, storeID: String, at lsn: UInt64? = nil,
                               into directory: String) throws(ReplicationError) -> RestoreReport {
        try restore(from: url, storeID: storeID, into: directory) { _, _ in lsn }
    }

    /// Restores store `storeID` as it was at `time` into `directory`: to the last LSN of the
    /// longest shipped history whose frames were all committed at or before `time` (each
    /// frame carries the time of its commit on the primary, from the primary's clock), then
    /// as ``restore(from:storeID:at:into:)`` does.
    ///
    /// - Throws: as ``restore(from:storeID:at:into:)``; `notFound` as well when nothing was
    ///   committed at or before `time`.
    @discardableResult
    public static func restore(from url: String, storeID: String, asOf time: Date,
                               into directory: String) throws(ReplicationError) -> RestoreReport {
        let micros = Int64((time.timeIntervalSince1970 * 1e6).rounded(.down))
        return try restore(from: url, storeID: storeID, into: directory) { remote, shipped throws(ReplicationError) in
            let lsn = try remote.lastLSN(committedAtOrBefore: micros, shipped: shipped)
            guard lsn > 0 else {
                throw ReplicationError(.notFound, "Store \(storeID) has nothing committed at or before \(time) in PostgreSQL (\(remote.session.location)); its first shipped frame is later. Restore to a later time.")
            }
            return lsn
        }
    }

    /// Connects, resolves the target LSN (`nil`: the newest shipped) and builds the store.
    private static func restore(from url: String, storeID: String, into directory: String,
                                target: (RemoteLog, _ shipped: UInt64) throws(ReplicationError) -> UInt64?) throws(ReplicationError) -> RestoreReport {
        let location = try PostgresLocation(url)
        let created = try prepare(directory)
        do throws(ReplicationError) {
            let session = try PostgresSession.connect(location)
            defer { session.close() }
            let remote = RemoteLog(session: session, storeID: storeID)
            let shipped = try shippedLSN(of: remote)
            return try build(remote, shipped: shipped, at: target(remote, shipped), into: directory)
        } catch {
            clean(directory, remove: created)
            throw error
        }
    }

    /// The store's shipped LSN; `notFound` when PostgreSQL holds no such store.
    private static func shippedLSN(of remote: RemoteLog) throws(ReplicationError) -> UInt64 {
        let storeID = remote.storeID, location = remote.session.location
        let tables = try remote.session.run("SELECT to_regclass('strata_stores') IS NOT NULL", "Looking for the replication tables")
        let exists = try tables.first.map { row throws(ReplicationError) in try ReplicationSchema.decoding("a table check") { try row.decode(Bool.self) } } ?? false
        guard exists, let shipped = try remote.shippedLSN() else {
            throw ReplicationError(.notFound, "PostgreSQL (\(location)) holds no store \(storeID). Check the store ID (the replicator's storeID, by default the store's UUID in lower case) and the database.")
        }
        return shipped
    }

    private static func build(_ remote: RemoteLog, shipped: UInt64, at lsn: UInt64?, into directory: String) throws(ReplicationError) -> RestoreReport {
        let storeID = remote.storeID, location = remote.session.location
        let target = lsn ?? shipped
        guard target <= shipped else {
            throw ReplicationError(.notFound, "Store \(storeID) is shipped up to LSN \(shipped) only; LSN \(target) is not in PostgreSQL (\(location)). Restore to LSN \(shipped) or earlier.")
        }
        let base = try remote.snapshotLSNs().last { $0 <= target } ?? 0
        guard target > 0 else {
            throw ReplicationError(.notFound, "Store \(storeID) has nothing shipped at or before LSN 0.")
        }
        var importer = LogImporter(directory: directory, after: base)
        if base > 0 {
            let bytes = try remote.snapshot(lsn: base)
            do { try importer.writeSnapshot(bytes, lsn: base) }
            catch let error as StorageError where error.code == .corrupted {
                throw ReplicationError(.corrupted, "Snapshot \(base) of store \(storeID) in \(location) is not a valid snapshot: \(error.message) Restore to an LSN before it.", cause: error)
            } catch {
                throw ReplicationError(.storage, "Could not write the restored snapshot into \(directory): \(error)", cause: error)
            }
        }
        var copied = 0
        while importer.lastLSN < target {
            let frames = try remote.frames(after: importer.lastLSN, through: target, limit: fetchLimit)
            guard let first = frames.first, first.lsn == importer.lastLSN + 1 else {
                let from = importer.lastLSN + 1
                throw ReplicationError(.gap, "PostgreSQL (\(location)) lacks frame \(from) of store \(storeID), which restoring to LSN \(target) from snapshot \(base) needs\(frames.first.map { " (the next it holds is \($0.lsn))" } ?? ""). Restore to an LSN at or after a later snapshot, or to LSN \(from - 1).")
            }
            for frame in frames {
                do { try importer.append(frame: frame.bytes, encryption: frame.encryption) }
                catch let error as StorageError where error.code == .corrupted {
                    throw ReplicationError(.corrupted, "Frame \(frame.lsn) of store \(storeID) in \(location) is damaged: \(error.message) Restore to LSN \(importer.lastLSN) or earlier.", cause: error)
                } catch {
                    throw ReplicationError(.storage, "Could not write the restored store at \(directory): \(error)", cause: error)
                }
                copied += 1
            }
        }
        do { try importer.finish() } catch {
            throw ReplicationError(.storage, "Could not sync the restored store at \(directory): \(error)", cause: error)
        }
        return RestoreReport(storeID: storeID, directory: directory, lsn: importer.lastLSN, snapshotLSN: base,
                             frames: copied, segments: importer.segments)
    }

    /// Makes sure `directory` is missing (then creates it, `0700`) or empty.
    ///
    /// - Returns: whether it was created.
    private static func prepare(_ directory: String) throws(ReplicationError) -> Bool {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ReplicationError(.invalidArgument, "\(directory) is a file; restore into a new or empty directory.")
            }
            let contents = (try? manager.contentsOfDirectory(atPath: directory)) ?? []
            guard contents.isEmpty else {
                throw ReplicationError(.invalidArgument, "\(directory) is not empty; restore into a new or empty directory, so that no store is overwritten.")
            }
            return false
        }
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ReplicationError(.storage, "Could not create \(directory) for the restored store: \(error.localizedDescription)")
        }
        return true
    }

    private static func clean(_ directory: String, remove: Bool) {
        let manager = FileManager.default
        if remove { try? manager.removeItem(atPath: directory); return }
        for name in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] {
            try? manager.removeItem(atPath: "\(directory)/\(name)")
        }
    }
}
