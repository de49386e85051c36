import NIOCore
import PostgresNIO
import StrataStorage

/// One frame as shipped: its LSN, commit time and the exact bytes of the log (header and
/// stored payload, checksum included), and for an encrypted store the encryption header of
/// the segment it was written in (salt and key check, never the key).
struct ShippedFrame: Sendable {
    var lsn: UInt64
    var timestamp: Int64
    var bytes: [UInt8]
    var encryption: [UInt8]? = nil
}

/// The replication tables of one store in PostgreSQL (docs/REPLICATION.md, section 2).
///
/// LSNs are stored as `bigint` by bit pattern (an LSN never reaches 2^63 in practice).
struct RemoteLog {
    let session: PostgresSession
    /// The store's ID, the key of every row.
    let storeID: String

    /// Bytes of a snapshot per row of `strata_snapshot_chunks`.
    static let snapshotChunkSize = 1 << 20

    private static func sql(_ lsn: UInt64) -> Int64 { Int64(bitPattern: lsn) }
    private static func lsn(_ value: Int64) -> UInt64 { UInt64(bitPattern: value) }

    /// The last LSN shipped for the store, or `nil` when nothing was ever shipped for it.
    func shippedLSN() throws(ReplicationError) -> UInt64? {
        let rows = try session.run("SELECT shipped_lsn FROM strata_stores WHERE store_id = \(storeID)", "Reading the shipped LSN of store \(storeID)")
        return try rows.first.map { row throws(ReplicationError) in
            Self.lsn(try ReplicationSchema.decoding("the shipped LSN") { try row.decode(Int64.self) })
        }
    }

    /// Registers the store (no change when it is known) and returns its shipped LSN.
    func register() throws(ReplicationError) -> UInt64 {
        try registration().shipped
    }

    /// Registers the store (no change when it is known) and returns its shipped LSN and its
    /// fencing epoch.
    func registration() throws(ReplicationError) -> (shipped: UInt64, epoch: UInt64) {
        try session.run("INSERT INTO strata_stores (store_id) VALUES (\(storeID)) ON CONFLICT (store_id) DO NOTHING", "Registering store \(storeID)")
        return try state() ?? (0, 0)
    }

    /// The store's shipped LSN and fencing epoch, or `nil` when it was never registered.
    func state() throws(ReplicationError) -> (shipped: UInt64, epoch: UInt64)? {
        let rows = try session.run("SELECT shipped_lsn, epoch FROM strata_stores WHERE store_id = \(storeID)", "Reading the state of store \(storeID)")
        return try rows.first.map { row throws(ReplicationError) in
            let (shipped, epoch) = try ReplicationSchema.decoding("the shipped LSN and epoch") { try row.decode((Int64, Int64).self) }
            return (Self.lsn(shipped), UInt64(max(0, epoch)))
        }
    }

    /// Fences the store's current primary: raises its epoch by one, so that every shipping
    /// transaction of a primary holding the old epoch fails from now on, and returns the new
    /// epoch and the shipped LSN at that moment (which no old primary can move any more).
    ///
    /// - Throws: ``ReplicationError`` `notFound` when the store was never shipped.
    func fence() throws(ReplicationError) -> (epoch: UInt64, shipped: UInt64) {
        let rows = try session.run("""
            UPDATE strata_stores SET epoch = epoch + 1, updated_at = now() WHERE store_id = \(storeID)
            RETURNING epoch, shipped_lsn
            """, "Raising the epoch of store \(storeID)")
        guard let row = rows.first else {
            throw ReplicationError(.notFound, "PostgreSQL (\(session.location)) holds no store \(storeID) to promote a replica of.")
        }
        let (epoch, shipped) = try ReplicationSchema.decoding("the new epoch") { try row.decode((Int64, Int64).self) }
        return (UInt64(max(0, epoch)), Self.lsn(shipped))
    }

    /// The bytes of the shipped frame `lsn`, if PostgreSQL holds it.
    func frame(at lsn: UInt64) throws(ReplicationError) -> [UInt8]? {
        let rows = try session.run("SELECT frame FROM strata_frames WHERE store_id = \(storeID) AND lsn = \(Self.sql(lsn))", "Reading frame \(lsn) of store \(storeID)")
        return try rows.first.map { row throws(ReplicationError) in
            Array(try ReplicationSchema.decoding("a frame") { try row.decode(ByteBuffer.self) }.readableBytesView)
        }
    }

    /// Moves the store's shipped LSN from `previous` to the last of `frames` (consecutive, the
    /// first right after `previous`) and inserts them, in one transaction.
    ///
    /// The transaction also notifies ``ReplicationSchema/frameChannel`` with the store ID, so
    /// that replicas listening there fetch the frames at once.
    ///
    /// It is one statement, so one round trip (a synchronous save waits for it): the store's
    /// row is updated first — only if its epoch is still `epoch` and its shipped LSN still
    /// `previous`, which locks the row until the commit — and the frames are inserted and the
    /// notification sent only when that update happened. Otherwise nothing changes, and a
    /// second query tells a fenced shipper from a concurrent one.
    ///
    /// - Throws: ``ReplicationError`` `fenced` when the store's epoch is no longer `epoch` (a
    ///   replica was promoted), `diverged` when the shipped LSN is no longer `previous`
    ///   (another replicator ships the same store ID), `server`, `unreachable`.
    func append(_ frames: [ShippedFrame], after previous: UInt64, epoch: UInt64) throws(ReplicationError) {
        guard let last = frames.last else { return }
        let lsns = frames.map { Self.sql($0.lsn) }
        let times = frames.map(\.timestamp)
        let bytes = frames.map { ByteBuffer(bytes: $0.bytes) }
        // A plain frame's empty header is stored as NULL.
        let headers = frames.map { ByteBuffer(bytes: $0.encryption ?? []) }
        let rows = try session.run("""
            WITH moved AS (
                UPDATE strata_stores SET shipped_lsn = \(Self.sql(last.lsn)), updated_at = now()
                WHERE store_id = \(storeID) AND shipped_lsn = \(Self.sql(previous)) AND epoch = \(Int64(epoch))
                RETURNING 1
            ), inserted AS (
                INSERT INTO strata_frames (store_id, lsn, committed_at, frame, encryption)
                SELECT \(storeID), l, t, f, NULLIF(e, ''::bytea)
                FROM unnest(\(lsns)::bigint[], \(times)::bigint[], \(bytes)::bytea[], \(headers)::bytea[]) AS x(l, t, f, e)
                WHERE EXISTS (SELECT 1 FROM moved)
                RETURNING 1
            ), notified AS (
                SELECT pg_notify(\(ReplicationSchema.frameChannel), \(storeID)) FROM moved
            )
            SELECT (SELECT count(*) FROM moved), (SELECT count(*) FROM inserted), (SELECT count(*) FROM notified)
            """, "Shipping frames \(previous + 1)...\(last.lsn) of store \(storeID)")
        var moved: Int64 = 0, inserted: Int64 = 0
        if let row = rows.first {
            let counts = try ReplicationSchema.decoding("the shipping counts") { try row.decode((Int64, Int64, Int64).self) }
            (moved, inserted) = (counts.0, counts.1)
        }
        guard moved == 1 else { throw try refusal(previous: previous, epoch: epoch) }
        guard inserted == Int64(frames.count) else {
            throw ReplicationError(.server, "PostgreSQL (\(session.location)) recorded \(inserted) of the \(frames.count) frames \(previous + 1)...\(last.lsn) of store \(storeID) in one statement; the tables may have been changed by hand.")
        }
    }

    /// Moves the shipped LSN from `previous` to `lsn` (inside the caller's transaction, or
    /// alone), provided the store's epoch is still `epoch`.
    func advance(from previous: UInt64, to lsn: UInt64, epoch: UInt64) throws(ReplicationError) {
        let rows = try session.run("""
            UPDATE strata_stores SET shipped_lsn = \(Self.sql(lsn)), updated_at = now()
            WHERE store_id = \(storeID) AND shipped_lsn = \(Self.sql(previous)) AND epoch = \(Int64(epoch)) RETURNING 1
            """, "Recording shipped LSN \(lsn) of store \(storeID)")
        guard rows.count == 1 else { throw try refusal(previous: previous, epoch: epoch) }
    }

    /// Why the store's row refused to move from `previous` under `epoch`: `fenced` when the
    /// epoch moved on, `diverged` otherwise.
    private func refusal(previous: UInt64, epoch: UInt64) throws(ReplicationError) -> ReplicationError {
        if let now = try state(), now.epoch != epoch {
            return Self.fenced(storeID, epoch: epoch, now: now.epoch, location: session.location)
        }
        return ReplicationError(.diverged, "The shipped LSN of store \(storeID) in \(session.location) is no longer \(previous): another replicator is shipping the same store ID. Stop one of them; each store needs exactly one replicator.")
    }

    /// The error of a primary whose epoch `epoch` was superseded by `now`.
    static func fenced(_ storeID: String, epoch: UInt64, now: UInt64, location: PostgresLocation) -> ReplicationError {
        ReplicationError(.fenced, "Store \(storeID) was taken over by a promoted replica (epoch \(now) in \(location); this store holds epoch \(epoch)): PostgreSQL refuses its frames from now on. Stop writing to this store; its writes since the promotion are not replicated. To serve it again, restore it from PostgreSQL or open it as a replica.")
    }

    /// The LSNs of the complete snapshots shipped for the store, ascending.
    func snapshotLSNs() throws(ReplicationError) -> [UInt64] {
        let rows = try session.run("SELECT lsn FROM strata_snapshots WHERE store_id = \(storeID) ORDER BY lsn", "Listing the snapshots of store \(storeID)")
        return try rows.map { row throws(ReplicationError) in
            Self.lsn(try ReplicationSchema.decoding("a snapshot LSN") { try row.decode(Int64.self) })
        }
    }

    /// Ships the whole snapshot file `bytes` of the state at `lsn`: its chunks first, in
    /// transactions of a few MiB, then the row in `strata_snapshots` that makes it visible.
    /// A snapshot interrupted half way is invisible and is replaced by the next attempt.
    func putSnapshot(_ bytes: [UInt8], lsn: UInt64) throws(ReplicationError) {
        let key = Self.sql(lsn)
        try session.run("DELETE FROM strata_snapshot_chunks WHERE store_id = \(storeID) AND lsn = \(key)", "Clearing an unfinished snapshot \(lsn) of store \(storeID)")
        let chunkCount = (bytes.count + Self.snapshotChunkSize - 1) / Self.snapshotChunkSize
        var chunk = 0
        while chunk < chunkCount {
            let batchEnd = min(chunkCount, chunk + 8)
            let indexes = (chunk..<batchEnd).map { Int32($0) }
            let pieces = (chunk..<batchEnd).map { index in
                ByteBuffer(bytes: bytes[(index * Self.snapshotChunkSize)..<min(bytes.count, (index + 1) * Self.snapshotChunkSize)])
            }
            try session.run("""
                INSERT INTO strata_snapshot_chunks (store_id, lsn, chunk, bytes)
                SELECT \(storeID), \(key), c, b FROM unnest(\(indexes)::integer[], \(pieces)::bytea[]) AS x(c, b)
                """, "Shipping snapshot \(lsn) of store \(storeID)")
            chunk = batchEnd
        }
        let checksum = Int64(CRC32C.checksum(bytes))
        try session.run("""
            INSERT INTO strata_snapshots (store_id, lsn, size, chunks, checksum)
            VALUES (\(storeID), \(key), \(Int64(bytes.count)), \(Int32(chunkCount)), \(checksum))
            ON CONFLICT (store_id, lsn) DO NOTHING
            """, "Recording snapshot \(lsn) of store \(storeID)")
    }

    /// The bytes of the shipped snapshot at `lsn`, checked against its recorded size and CRC-32C.
    ///
    /// - Throws: ``ReplicationError`` `notFound`, `corrupted`, `server`, `unreachable`.
    func snapshot(lsn: UInt64) throws(ReplicationError) -> [UInt8] {
        let key = Self.sql(lsn)
        let rows = try session.run("SELECT size, chunks, checksum FROM strata_snapshots WHERE store_id = \(storeID) AND lsn = \(key)", "Reading snapshot \(lsn) of store \(storeID)")
        guard let row = rows.first else {
            throw ReplicationError(.notFound, "PostgreSQL holds no snapshot at LSN \(lsn) for store \(storeID).")
        }
        let (size, chunks, checksum) = try ReplicationSchema.decoding("a snapshot's size") { try row.decode((Int64, Int32, Int64).self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(size))
        var next: Int32 = 0
        while next < chunks {
            let part = try session.run("""
                SELECT chunk, bytes FROM strata_snapshot_chunks
                WHERE store_id = \(storeID) AND lsn = \(key) AND chunk >= \(next) ORDER BY chunk LIMIT 16
                """, "Reading snapshot \(lsn) of store \(storeID)")
            if part.isEmpty { break }
            for chunkRow in part {
                let (index, buffer) = try ReplicationSchema.decoding("a snapshot chunk") { try chunkRow.decode((Int32, ByteBuffer).self) }
                guard index == next else { break }
                bytes.append(contentsOf: buffer.readableBytesView)
                next += 1
            }
        }
        guard next == chunks, bytes.count == Int(size), Int64(CRC32C.checksum(bytes)) == checksum else {
            throw ReplicationError(.corrupted, "Snapshot \(lsn) of store \(storeID) in \(session.location) is damaged (\(next) of \(chunks) chunks, \(bytes.count) of \(size) bytes, or a wrong checksum). Restore to an LSN before it so that an older snapshot is used, or after the next one.")
        }
        return bytes
    }

    /// Up to `limit` shipped frames with LSNs in `(after, through]`, ascending.
    func frames(after: UInt64, through: UInt64, limit: Int) throws(ReplicationError) -> [ShippedFrame] {
        let rows = try session.run("""
            SELECT lsn, committed_at, frame, encryption FROM strata_frames
            WHERE store_id = \(storeID) AND lsn > \(Self.sql(after)) AND lsn <= \(Self.sql(min(through, UInt64(Int64.max))))
            ORDER BY lsn LIMIT \(Int64(limit))
            """, "Reading frames after \(after) of store \(storeID)")
        return try rows.map { row throws(ReplicationError) in
            let (lsn, time, frame, encryption) = try ReplicationSchema.decoding("a frame") { try row.decode((Int64, Int64, ByteBuffer, ByteBuffer?).self) }
            return ShippedFrame(lsn: Self.lsn(lsn), timestamp: time, bytes: Array(frame.readableBytesView),
                                encryption: encryption.map { Array($0.readableBytesView) })
        }
    }

    /// The last LSN of the longest shipped history whose frames were all committed at or
    /// before `micros` (µs since 1970, the frames' own timestamps): the LSN before the first
    /// frame committed later, or `shipped` when there is none.
    func lastLSN(committedAtOrBefore micros: Int64, shipped: UInt64) throws(ReplicationError) -> UInt64 {
        let rows = try session.run("""
            SELECT min(lsn) FROM strata_frames
            WHERE store_id = \(storeID) AND committed_at > \(micros) AND lsn <= \(Self.sql(min(shipped, UInt64(Int64.max))))
            """, "Finding the frames of store \(storeID) committed after a time")
        let first = try rows.first.flatMap { row throws(ReplicationError) in
            try ReplicationSchema.decoding("an LSN") { try row.decode(Int64?.self) }
        }
        guard let first else { return shipped }
        return Self.lsn(first) - 1
    }
}
