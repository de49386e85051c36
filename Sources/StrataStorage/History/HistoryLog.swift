import Foundation

/// One transaction's history entry read back from a ``HistoryLog``.
public struct HistoryFrame: Sendable, Hashable {
    /// The transaction's LSN.
    public var lsn: UInt64
    /// Its commit time, microseconds since 1970-01-01 UTC (the log frame's time).
    public var timestamp: Int64
    /// The entry, as the layer above encoded it.
    public var payload: [UInt8]
    /// The history segment it is in (`(memory)` while not yet written out).
    public var segment: String
    /// Its byte offset in that segment.
    public var offset: Int64
    /// Bytes it takes on disk (frame header and stored payload).
    public var bytesOnDisk: Int
}

/// Persistent history: one small entry per committed transaction, kept across checkpoints
/// in `history-<firstLSN>.hist` segments next to the log, up to a ``HistoryRetention``.
///
/// History is derived from the log, so it costs the commit path no write and no sync:
/// entries collect in memory (written out every 64 KiB) and are made durable at each
/// checkpoint, *before* the checkpoint deletes the log segments that hold the same
/// transactions. The durability rules (see `docs/FORMAT.md`, "History"):
///
/// 1. On a writable open, entries past the recovered log's last LSN (written, but their
///    transaction lost) and everything after a torn or damaged frame are cut off, and the
///    cut is synced before anything is appended: history never claims a transaction the
///    store does not have.
/// 2. The layer above then appends entries for the log's transactions that history lacks
///    (``lastLSN`` says from where); the log after the snapshot always covers them, since
///    ``sync()`` runs before a checkpoint trims the log.
///
/// Entries are appended in LSN order by one writer (the store's commit lock). Reads and
/// appends are serialized by one lock.
public final class HistoryLog: Sendable {
    /// Frame kind of a transaction's entry.
    static let entryKind: UInt8 = 1
    /// Frame kind of a purge marker: its LSN is the new floor, its payload empty.
    static let purgeKind: UInt8 = 2
    /// `"HIS1"` read as a little-endian `UInt32`, then `u16` major, `u16` minor.
    static let magic: UInt32 = 0x3153_4948
    /// Bytes of a segment's header.
    static let headerSize = 8
    /// Pending entries are written out once they take this many bytes.
    static let flushThreshold = 64 * 1024

    struct Segment: Sendable {
        var name: String
        var firstLSN: UInt64
        /// The LSN of its last entry (0 while it has none).
        var lastLSN: UInt64 = 0
        /// Entries (purge markers not counted).
        var count = 0
        /// Bytes written (the file's valid length).
        var bytes: Int64 = Int64(HistoryLog.headerSize)
    }

    struct State: Sendable {
        var segments: [Segment] = []
        /// The last segment, open for appends (writable logs only, once it exists).
        var current: (any FileHandle)?
        var pending: [UInt8] = []
        /// Where each pending frame ends in `pending`, and its LSN.
        var pendingFrames: [(end: Int, lsn: UInt64)] = []
        var pendingCount: Int { pendingFrames.count }
        var lastLSN: UInt64 = 0
        var floor: UInt64 = 0
        var failure: StorageError?
        var closed = false
    }

    /// The store directory.
    public let directory: String
    /// What is kept.
    public let retention: HistoryRetention
    let fileSystem: any FileSystem
    let isReadOnly: Bool
    let state: Locked<State>

    private init(directory: String, retention: HistoryRetention, fileSystem: any FileSystem,
                 readOnly: Bool, state: State) {
        self.directory = directory
        self.retention = retention
        self.fileSystem = fileSystem
        self.isReadOnly = readOnly
        self.state = Locked(state)
    }

    /// The name of the segment whose first entry has `firstLSN`.
    public static func segmentName(firstLSN: UInt64) -> String { "history-\(StoreFileNames.padded(firstLSN)).hist" }

    /// The first LSN encoded in a segment name, or `nil` if `name` is not a history segment.
    public static func segmentLSN(_ name: String) -> UInt64? {
        guard name.hasPrefix("history-"), name.hasSuffix(".hist"), name.count == 8 + 20 + 5 else { return nil }
        return UInt64(name.dropFirst(8).dropLast(5))
    }

    /// Opens the history in `directory`.
    ///
    /// - Parameters:
    ///   - logLastLSN: the last LSN of the recovered log; history past it is cut off (rule 1).
    ///   - readOnly: change no file; a damaged or unfinished tail is skipped in memory.
    /// - Throws: ``StorageError`` (`io`, `diskFull`) when a segment cannot be read or cut.
    /// - Complexity: O(bytes of history).
    public static func open(fileSystem: any FileSystem, directory: String, retention: HistoryRetention,
                            readOnly: Bool, logLastLSN: UInt64) throws -> HistoryLog {
        try WriteAheadLog.wrap("Opening the history in \(directory)") {
            var s = State()
            let names = try fileSystem.contentsOfDirectory(directory)
                .compactMap { n in segmentLSN(n).map { (n, $0) } }.sorted { $0.1 < $1.1 }
            var cut = false
            var removed = false
            for (name, first) in names {
                let path = "\(directory)/\(name)"
                if cut || first > logLastLSN {
                    cut = true
                    if !readOnly { try fileSystem.remove(path); removed = true }
                    continue
                }
                let bytes: [UInt8]
                do {
                    let file = try fileSystem.open(path, mode: .readOnly)
                    defer { try? file.close() }
                    bytes = try file.read(count: Int(try file.size()), at: 0)
                } catch where readOnly {
                    // The writer's retention or purge deleted it after the listing: history
                    // now starts later, which the next segments show.
                    continue
                }
                var segment = Segment(name: name, firstLSN: first)
                let valid = scan(bytes, logLastLSN: logLastLSN, segment: &segment, state: &s)
                if valid < bytes.count {
                    cut = true
                    if !readOnly {
                        if valid == 0 {
                            try fileSystem.remove(path)
                            removed = true
                        } else {
                            let handle = try fileSystem.open(path, mode: .readWrite)
                            try handle.truncate(to: Int64(valid))
                            try handle.sync()
                            try handle.close()
                        }
                    }
                }
                if valid > 0 { s.segments.append(segment) }
            }
            if removed { try fileSystem.syncDirectory(directory) }
            if !readOnly, let last = s.segments.last {
                s.current = try fileSystem.open("\(directory)/\(last.name)", mode: .readWrite)
            }
            return HistoryLog(directory: directory, retention: retention, fileSystem: fileSystem,
                              readOnly: readOnly, state: s)
        }
    }

    /// Reads the frames of one segment into `segment` and `state`; returns the length of its
    /// valid prefix (0 when even the header is not valid).
    private static func scan(_ bytes: [UInt8], logLastLSN: UInt64, segment: inout Segment, state: inout State) -> Int {
        guard bytes.count >= headerSize else { return 0 }
        var r = ByteReader(Array(bytes[0..<headerSize]))
        guard (try? r.readUInt32()) == magic, let major = try? r.readUInt16(), major == FormatVersion.major else { return 0 }
        var offset = headerSize
        bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                guard case .success(let (header, _)) = FrameCodec.decode(raw, at: offset, end: raw.count, expectedSalt: 0),
                      header.lsn <= logLastLSN else { return }
                switch header.kind {
                case entryKind:
                    guard header.lsn > state.lastLSN else { return }
                    state.lastLSN = header.lsn
                    segment.lastLSN = header.lsn
                    segment.count += 1
                case purgeKind:
                    state.floor = max(state.floor, header.lsn)
                default:
                    return
                }
                offset += header.frameLength
            }
        }
        segment.bytes = Int64(offset)
        return offset
    }

    /// The LSN of the newest entry (or purge marker); the layer above appends from the next.
    public var lastLSN: UInt64 { state.withLock { $0.lastLSN } }

    /// Entries at or below this LSN were purged.
    public var floor: UInt64 { state.withLock { $0.floor } }

    /// The error that stopped history after a failed write, if any.
    public var failure: StorageError? { state.withLock { $0.failure } }

    /// What history holds now: segments, entries (purged ones included until their segment
    /// is deleted), and bytes on disk plus bytes waiting in memory.
    public var statistics: (segments: Int, entries: Int, bytes: Int64) {
        state.withLock { s in
            (s.segments.count, s.segments.reduce(s.pendingCount) { $0 + $1.count },
             s.segments.reduce(Int64(s.pending.count)) { $0 + $1.bytes })
        }
    }

    /// Adds the entry of transaction `lsn` (call in LSN order). It is kept in memory and
    /// written out with others; ``sync()`` makes it durable.
    ///
    /// It never throws: a commit must not fail after its log frame was queued. A write error
    /// stops history instead (``failure``; reads and ``sync()`` then throw it, so a
    /// checkpoint keeps the log that history would need).
    ///
    /// A read-only log keeps entries in memory only: a reader adds the log's tail this way.
    public func append(lsn: UInt64, timestamp: Int64, payload: [UInt8]) {
        state.withLock { s in
            guard s.failure == nil, !s.closed, lsn > s.lastLSN else { return }
            do {
                let frame = try FrameCodec.encode(payload, kind: Self.entryKind, lsn: lsn, timestamp: timestamp,
                                                  syncedLSN: 0, salt: 0)
                s.pending.append(contentsOf: frame)
                s.pendingFrames.append((s.pending.count, lsn))
                s.lastLSN = lsn
                if s.pending.count >= Self.flushThreshold && !isReadOnly { try flush(&s) }
            } catch let error as StorageError {
                s.failure = error
            } catch {
                s.failure = StorageError(.io, "History stopped: \(error). Reopen the store.")
            }
        }
    }

    /// Writes the pending entries to the current segment, starting a new one whenever it is
    /// full (the old one is synced, the new one's directory entry too).
    private func flush(_ s: inout State) throws {
        guard !isReadOnly else { return }
        var start = 0
        var frame = 0
        while frame < s.pendingFrames.count {
            try startSegmentIfFull(&s, firstLSN: s.pendingFrames[frame].lsn)
            let index = s.segments.count - 1
            // As many frames as the segment takes, at least one.
            var end = frame
            var bytes = s.segments[index].bytes
            var count = s.segments[index].count
            repeat {
                bytes += Int64(s.pendingFrames[end].end - (end == 0 ? 0 : s.pendingFrames[end - 1].end))
                count += 1
                end += 1
            } while end < s.pendingFrames.count && bytes < retention.segmentBytes && count < retention.segmentTransactions
            let stop = s.pendingFrames[end - 1].end
            try WriteAheadLog.wrap("Writing the history in \(directory)") {
                try s.pending.withUnsafeBytes { raw in
                    try s.current!.writeAll(UnsafeRawBufferPointer(rebasing: raw[start..<stop]), at: s.segments[index].bytes)
                }
            }
            s.segments[index].bytes = bytes
            s.segments[index].count = count
            s.segments[index].lastLSN = s.pendingFrames[end - 1].lsn
            start = stop
            frame = end
        }
        s.pending.removeAll(keepingCapacity: s.pending.count <= 2 * Self.flushThreshold)
        s.pendingFrames.removeAll(keepingCapacity: true)
    }

    /// Closes the current segment when it is full (syncing it) and starts the next, named
    /// for `firstLSN`, then applies the retention policy.
    private func startSegmentIfFull(_ s: inout State, firstLSN: UInt64) throws {
        try WriteAheadLog.wrap("Starting a history segment in \(directory)") {
            if let last = s.segments.last, let current = s.current,
               last.bytes >= retention.segmentBytes || last.count >= retention.segmentTransactions {
                try current.sync()
                try current.close()
                s.current = nil
            }
            if s.current == nil {
                let name = Self.segmentName(firstLSN: firstLSN)
                let file = try fileSystem.open("\(directory)/\(name)", mode: .createNew)
                var header = ByteWriter(capacity: Self.headerSize)
                header.write(Self.magic)
                header.write(FormatVersion.major)
                header.write(FormatVersion.minor)
                try file.writeAll(header.bytes, at: 0)
                try fileSystem.syncDirectory(directory)
                s.current = file
                s.segments.append(Segment(name: name, firstLSN: firstLSN))
                try applyRetention(&s)
            }
        }
    }

    /// Deletes the oldest closed segments while the rest still hold what the policy keeps.
    private func applyRetention(_ s: inout State) throws {
        func total(_ value: (Segment) -> Int64) -> Int64 { s.segments.reduce(0) { $0 + value($1) } }
        while s.segments.count > 1 {
            let oldest = s.segments[0]
            let keep: Bool
            switch retention {
            case .untilPurged: keep = true
            case .transactions(let limit): keep = total { Int64($0.count) } - Int64(oldest.count) < Int64(limit)
            case .bytes(let limit): keep = total(\.bytes) - oldest.bytes < limit
            }
            if keep { return }
            try fileSystem.remove("\(directory)/\(oldest.name)")
            s.segments.removeFirst()
        }
    }

    /// Writes out and syncs every entry appended so far. A checkpoint calls it before it
    /// deletes log segments (rule 2).
    ///
    /// - Throws: the write or sync error, or the one that stopped history earlier.
    public func sync() throws {
        guard !isReadOnly else { return }
        try state.withLock { s in
            if let failure = s.failure { throw failure }
            do {
                try flush(&s)
                try WriteAheadLog.wrap("Syncing the history in \(directory)") { try s.current?.sync() }
            } catch let error as StorageError {
                s.failure = error
                throw error
            }
        }
    }

    /// Purges every entry at or below `lsn`: a purge marker is written and synced, then the
    /// segments that hold nothing newer are deleted.
    ///
    /// - Throws: ``StorageError`` (`readOnly`, `io`, `diskFull`).
    public func purge(through lsn: UInt64) throws {
        guard !isReadOnly else {
            throw StorageError(.readOnly, "The store at \(directory) was opened read-only; its history cannot be purged.")
        }
        try state.withLock { s in
            if let failure = s.failure { throw failure }
            let floor = min(lsn, s.lastLSN)
            guard floor > s.floor else { return }
            do {
                try flush(&s)
                try WriteAheadLog.wrap("Purging the history in \(directory)") {
                    if let current = s.current {
                        let marker = try FrameCodec.encode([], kind: Self.purgeKind, lsn: floor,
                                                           timestamp: Int64(Date().timeIntervalSince1970 * 1_000_000),
                                                           syncedLSN: 0, salt: 0)
                        let index = s.segments.count - 1
                        try current.writeAll(marker, at: s.segments[index].bytes)
                        s.segments[index].bytes += Int64(marker.count)
                        try current.sync()
                    }
                    s.floor = floor
                    while s.segments.count > 1, s.segments[0].lastLSN <= floor {
                        try fileSystem.remove("\(directory)/\(s.segments[0].name)")
                        s.segments.removeFirst()
                    }
                }
            } catch let error as StorageError {
                s.failure = error
                throw error
            }
        }
    }

    /// The entries after `after` up to `through`, oldest first; purged ones are skipped.
    ///
    /// - Throws: ``StorageError`` when a segment cannot be read, or history stopped after a
    ///   write error.
    /// - Complexity: O(bytes of the segments that hold the entries read).
    public func read(after: UInt64, through: UInt64 = .max) throws -> [HistoryFrame] {
        try state.withLock { s in
            if let failure = s.failure { throw failure }
            let start = max(after, s.floor)
            var frames: [HistoryFrame] = []
            func collect(_ bytes: [UInt8], from offset: Int, file: String) throws {
                try bytes.withUnsafeBytes { raw in
                    var offset = offset
                    while offset < raw.count {
                        switch FrameCodec.decode(raw, at: offset, end: raw.count, expectedSalt: 0) {
                        case .failure(let defect):
                            throw StorageError(.corrupted, "History segment \(file) is damaged at byte \(offset) (\(defect)); delete the history-*.hist files to start history afresh.", file: "\(directory)/\(file)", offset: Int64(offset))
                        case .success(let (header, payload)):
                            if header.kind == Self.entryKind, header.lsn > start, header.lsn <= through {
                                frames.append(HistoryFrame(lsn: header.lsn, timestamp: header.timestamp, payload: payload,
                                                           segment: file, offset: Int64(offset), bytesOnDisk: header.frameLength))
                            }
                            offset += header.frameLength
                        }
                    }
                }
            }
            for segment in s.segments where segment.count > 0 && segment.lastLSN > start && segment.firstLSN <= through {
                let bytes = try WriteAheadLog.wrap("Reading the history in \(directory)") {
                    let file = try fileSystem.open("\(directory)/\(segment.name)", mode: .readOnly)
                    defer { try? file.close() }
                    return try file.read(count: Int(segment.bytes), at: 0)
                }
                try collect(bytes, from: Self.headerSize, file: segment.name)
            }
            if s.pendingCount > 0, s.lastLSN > start { try collect(s.pending, from: 0, file: "(memory)") }
            return frames
        }
    }

    /// Writes out and syncs what is pending and closes the current segment.
    public func close() throws {
        guard !isReadOnly else { return }
        try sync()
        try state.withLock { s in
            s.closed = true
            try WriteAheadLog.wrap("Closing the history in \(directory)") { try s.current?.close() }
            s.current = nil
        }
    }
}
