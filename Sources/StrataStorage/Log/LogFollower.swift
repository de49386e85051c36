import Foundation

/// Reads, from a read-only process, the transactions that the writer process appends to a
/// store's log after the point this process has reached.
///
/// Guarantees (the follower rules of `docs/FORMAT.md`):
/// 1. It returns whole transactions only, in LSN order, with no holes: each frame must carry
///    the segment's salt, the next LSN and a valid checksum.
/// 2. The first frame of the live segment that fails a check is *not yet written* (the writer
///    may be in the middle of writing it): reading stops there and the next ``poll()``
///    resumes at the same offset. It is never reported as damage.
/// 3. It takes no lock and changes no file, so the writer never waits for it.
/// 4. When the log it needs is gone — a checkpoint deleted the segment it was reading, or the
///    segment was cut below what it has read — ``Poll/needsReopen`` says so: the caller opens
///    the store again from its newest snapshot, which applies the full recovery rules.
///
/// A follower is a value; the caller serializes the calls (a store keeps it under a lock).
public struct LogFollower: Sendable {
    /// What one ``poll()`` found.
    public struct Poll: Sendable {
        /// The transactions appended since the last poll, in LSN order.
        public var records: [LogRecord] = []
        /// Whether the log after ``records`` can no longer be followed from here, so the
        /// store must be opened again from its newest snapshot.
        public var needsReopen = false
    }

    /// Where the follower reads next: a segment, its salt, and the offset after the last
    /// frame read (`nil` until the segment's header has been read).
    private struct Position: Sendable {
        var segment: String
        var firstLSN: UInt64
        var salt: UInt32?
        var offset: Int64
        /// Where the segment's first frame starts (known once its header was read).
        var frameStart = Int64(SegmentHeader.size)
        /// An encrypted segment's file cipher.
        var fileCipher: (any FileCipher)?
    }

    private let fileSystem: any FileSystem
    private let cipher: (any StoreCipher)?
    /// The store directory.
    public let directory: String
    /// The LSN of the last transaction returned (or recovered by the open it follows on from).
    public private(set) var lastLSN: UInt64
    private var position: Position?

    /// A follower that continues after `lastLSN`, the last transaction the open that made
    /// the caller's state recovered.
    /// `cipher` is the store's, for an encrypted store.
    public init(fileSystem: any FileSystem = PosixFileSystem(), directory: String, lastLSN: UInt64,
                cipher: (any StoreCipher)? = nil) {
        self.cipher = cipher
        self.fileSystem = fileSystem
        self.directory = directory
        self.lastLSN = lastLSN
    }

    /// Reads every whole transaction appended since the last call.
    ///
    /// - Throws: ``StorageError`` `io` when the directory or a segment cannot be read (a
    ///   missing segment is not an error: it sets ``Poll/needsReopen``), `unsupportedFormat`
    ///   for a segment of a newer major format version; `wrongKey`, `encryptionKeyRequired`
    ///   or `notEncrypted` when a segment's encryption does not match the follower's cipher.
    /// - Complexity: O(bytes appended since the last call) plus one directory listing per
    ///   segment crossed.
    public mutating func poll() throws -> Poll {
        var result = Poll()
        // Each pass reads one segment; a pass that does not move to a newer segment returns.
        while true {
            // List before reading: a segment in this listing that starts right after the
            // frames read proves those frames were complete (the writer syncs a segment before
            // it creates the next one), so the read below cannot have raced with them.
            let names = try WriteAheadLog.wrap("Listing the store to follow its log") {
                try fileSystem.contentsOfDirectory(directory)
            }
            let segments = names.compactMap { n in StoreFileNames.segmentLSN(n).map { (name: n, first: $0) } }
                .sorted { $0.first < $1.first }
            let next = lastLSN + 1
            guard let current = segments.last(where: { $0.first <= next }) else {
                // No segment holds the next transaction: a checkpoint deleted the log up to a
                // snapshot newer than this state, or nothing was ever logged past it.
                let newestSnapshot = names.compactMap(StoreFileNames.snapshotLSN).max() ?? 0
                result.needsReopen = newestSnapshot > lastLSN || segments.contains { $0.first > next }
                return result
            }
            if position?.segment != current.name {
                position = Position(segment: current.name, firstLSN: current.first, salt: nil,
                                    offset: Int64(SegmentHeader.size))
            }
            switch try read(into: &result.records) {
            case .missing, .shrunk:
                result.needsReopen = true
                return result
            case .newerFormat(let major):
                throw StorageError(.unsupportedFormat, "\(current.name) was written in format version \(major); this build of Strata reads version \(FormatVersion.newestReadableMajor) and older. Open the store with a newer Strata.", file: "\(directory)/\(current.name)")
            case .readAll:
                break
            }
            let after = lastLSN + 1
            if segments.contains(where: { $0.first == after && $0.name != current.name }) { continue }
            // A later segment that starts past the next transaction, when this one stops
            // short of it: the frames in between are damaged or missing. A fresh open judges
            // that with the full recovery rules (and reports `corrupted` if it is damage).
            if segments.contains(where: { $0.first > after }) { result.needsReopen = true }
            return result
        }
    }

    private enum ReadOutcome {
        case readAll, missing, shrunk, newerFormat(UInt16)
    }

    /// Reads the whole frames after the position in its segment, appending those after
    /// ``lastLSN`` to `records` (a segment entered from its start may begin with frames that
    /// the caller's state already holds).
    private mutating func read(into records: inout [LogRecord]) throws -> ReadOutcome {
        guard var position else { return .readAll }
        let path = "\(directory)/\(position.segment)"
        let handle: any FileHandle
        do { handle = try fileSystem.open(path, mode: .readOnly) }
        catch let error as SystemError where error.errno == ENOENT { return .missing }
        catch let error as SystemError { throw error.asStorageError("Opening log segment \(position.segment) to follow it") }
        defer { try? handle.close() }
        let bytes: [UInt8]
        do {
            let size = try handle.size()
            if size < position.offset { return .shrunk }
            // A segment that holds no frame yet may be replaced by one of the same name under
            // another salt: an encrypted store's writer replaces the empty tail it recovered
            // (a checkpoint's) at its first write. Until a frame has been read from it, its
            // header is read again at every poll.
            if position.offset == position.frameStart { position.salt = nil }
            if position.salt == nil {
                // The writer creates a segment and then writes its header: until the header
                // is whole, there is nothing to read yet.
                guard size >= Int64(SegmentHeader.size) else { return .readAll }
                switch SegmentHeader.decode(try handle.read(count: SegmentHeader.size + EncryptionHeader.size, at: 0)) {
                case .success(let header):
                    guard header.firstLSN == position.firstLSN else { return .shrunk }
                    switch (header.encryption, cipher) {
                    case (nil, nil): break
                    case (nil, _?): throw StorageError.notEncrypted(file: path)
                    case (_?, nil): throw StorageError.keyRequired(file: path)
                    case (let encryption?, let cipher?):
                        position.fileCipher = try encryption.fileCipher(cipher, kind: .logSegment, path: path)
                    }
                    position.salt = header.salt
                    position.frameStart = Int64(header.frameStart)
                    position.offset = max(position.offset, position.frameStart)
                case .failure(.newerMajorVersion(let major)):
                    return .newerFormat(major)
                case .failure:
                    return .readAll
                }
            }
            bytes = try handle.read(count: Int(size - position.offset), at: position.offset)
        } catch let error as SystemError {
            throw error.asStorageError("Reading log segment \(position.segment) to follow it")
        }
        var offset = 0
        // Frames are consecutive from the segment's first LSN; a mid-segment position was
        // left right after the last frame returned.
        var expected = position.offset == position.frameStart ? position.firstLSN : lastLSN + 1
        bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                guard case .success(let (frame, payload)) = FrameCodec.decode(raw, at: offset, end: raw.count,
                                                                              expectedSalt: position.salt,
                                                                              cipher: position.fileCipher) else { break }
                // Anything else is not a frame of this log generation yet.
                if frame.lsn != expected || frame.lsn > lastLSN + 1 { break }
                if frame.lsn == lastLSN + 1 {
                    records.append(LogRecord(lsn: frame.lsn, kind: frame.kind, timestamp: frame.timestamp,
                                             payload: payload, segment: position.segment,
                                             offset: position.offset + Int64(offset), bytesOnDisk: frame.frameLength))
                    lastLSN = frame.lsn
                }
                expected = frame.lsn + 1
                offset += frame.frameLength
            }
        }
        position.offset += Int64(offset)
        self.position = position
        return .readAll
    }
}
