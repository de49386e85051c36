/// The result of reading one log segment from its start to the first bad frame.
struct SegmentScan: Sendable {
    /// The segment's file name.
    var name: String
    /// Its header, or `nil` when the header itself is unusable (see ``headerDefect``).
    var header: SegmentHeader?
    var headerDefect: SegmentHeader.Defect?
    /// Every valid frame, in order.
    var records: [LogRecord] = []
    /// The byte offset just past the last valid frame.
    var validEnd: Int
    /// The file's size.
    var fileSize: Int
    /// The first bad frame: its offset and what is wrong with it.
    var defect: (offset: Int, reason: String)?
    /// A valid frame found after the defect whose `syncedLSN` shows that the bad frame had
    /// already been synced when it was written: proof of damage to durable data.
    var durableFrameAfterDefect: Int?
    /// Whether any valid frame (whatever its `syncedLSN`) follows the defect.
    var anyValidFrameAfterDefect: Bool = false
    /// Whether the bad frame is whole: its header decodes, carries the segment's salt and the
    /// expected LSN, and all its declared bytes are in the file — only the checksum fails. A
    /// half-written frame rarely looks like that; a damaged complete one does.
    var defectFrameIsWhole: Bool = false
    /// Whether the search after the defect stopped at its work budget (``FrameSearchBudget``)
    /// before it could rule out a frame with `syncedLSN` at or past the damaged one.
    var searchCutShort: Bool = false
    /// Bytes checksummed by the search after the defect (for tests).
    var searchChecksummedBytes: Int = 0
    /// Whether the defect is a whole frame whose checksum matches but whose encryption does
    /// not verify (or does not match the segment's): never a torn write, always damage.
    var defectFailsAuthentication: Bool = false

    /// The LSN of the last valid frame, or `nil` when there is none.
    var lastLSN: UInt64? { records.last?.lsn }
}

/// Reads a segment file into records, stopping at the first frame that fails a check.
enum SegmentScanner {
    /// Scans `bytes`, the whole content of the segment called `name`.
    ///
    /// Frames must carry the header's salt and consecutive LSNs starting at the header's
    /// first LSN. After a defect, the rest of the file is searched for valid frames so that
    /// the caller can tell a torn tail from corruption in the middle.
    /// - Complexity: O(n) in the segment's size.
    /// `start` and `startLSN` resume a scan at a known frame boundary (the frames before it
    /// were already read); by default the scan starts after the header.
    ///
    /// `cipher` is the store's: an encrypted segment's frames are decrypted with the file
    /// cipher it derives from the segment's salt (a segment whose encryption does not match
    /// the store's is reported as a defect at offset 0; `StoreKeyCheck` has already refused
    /// a wrong key or a missing one before any scan).
    static func scan(name: String, bytes: [UInt8], start: Int? = nil, startLSN: UInt64? = nil,
                     cipher: (any StoreCipher)? = nil) -> SegmentScan {
        var scan = SegmentScan(name: name, header: nil, validEnd: 0, fileSize: bytes.count)
        switch SegmentHeader.decode(bytes) {
        case .failure(let defect):
            scan.headerDefect = defect
            scan.defect = (0, "unusable segment header (\(defect))")
            return scan
        case .success(let header):
            scan.header = header
        }
        let header = scan.header!
        var fileCipher: (any FileCipher)?
        switch (header.encryption, cipher) {
        case (nil, nil): break
        case (let encryption?, let cipher?):
            let file = cipher.fileCipher(salt: encryption.salt, kind: .logSegment)
            guard file.keyCheck == encryption.keyCheck else {
                scan.defect = (0, "segment encrypted with another key")
                scan.defectFailsAuthentication = true
                return scan
            }
            fileCipher = file
        default:
            scan.defect = (0, header.encryption == nil ? "plain segment in an encrypted store" : "encrypted segment in a plain store")
            scan.defectFailsAuthentication = true
            return scan
        }
        var offset = start ?? header.frameStart
        var expected = startLSN ?? header.firstLSN
        bytes.withUnsafeBytes { raw in
            while offset < bytes.count {
                switch FrameCodec.decode(raw, at: offset, end: bytes.count, expectedSalt: header.salt, cipher: fileCipher) {
                case .failure(let defect):
                    scan.defect = (offset, defect.description)
                    scan.defectFailsAuthentication = defect == .authenticationFailed || defect == .encryptionMismatch
                case .success(let (frame, payload)):
                    if frame.lsn != expected {
                        scan.defect = (offset, "LSN \(frame.lsn) where \(expected) was expected")
                    } else {
                        scan.records.append(LogRecord(lsn: frame.lsn, kind: frame.kind,
                                                      timestamp: frame.timestamp, payload: payload,
                                                      segment: name, offset: Int64(offset),
                                                      bytesOnDisk: frame.frameLength))
                        offset += frame.frameLength
                        expected += 1
                        continue
                    }
                }
                break
            }
            scan.validEnd = offset
            if scan.defect != nil, case .success(let bad) = FrameCodec.decodeHeader(raw, at: offset, end: bytes.count),
               bad.salt == header.salt, bad.lsn == expected {
                scan.defectFrameIsWhole = true
            }
            if let defect = scan.defect {
                searchAfterDefect(raw, from: defect.offset, badLSN: expected, salt: header.salt, scan: &scan)
            }
        }
        return scan
    }

    /// Looks for valid frames after a defect at `from`, where the frame with `badLSN` should
    /// have been.
    ///
    /// - Complexity: O(n): at most ``FrameSearchBudget`` bytes are checksummed (a candidate's
    ///   declared length can reach the end of the file from every byte); when that runs out,
    ///   `searchCutShort` is set and the verdict is corruption, never a torn tail.
    private static func searchAfterDefect(_ raw: UnsafeRawBufferPointer, from: Int, badLSN: UInt64,
                                          salt: UInt32, scan: inout SegmentScan) {
        var position = from + 1
        let end = raw.count
        var budget = FrameSearchBudget(searching: end - position)
        defer { scan.searchChecksummedBytes = budget.checksummedBytes }
        while position + FrameHeader.size <= end {
            if raw.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian == FrameHeader.magic,
               case .success(let header) = FrameCodec.decodeHeader(raw, at: position, end: end),
               header.salt == salt, header.lsn >= badLSN {
                guard budget.spend(header) else { scan.searchCutShort = true; return }
                guard FrameCodec.verifyChecksum(raw, at: position, header: header) else { position += 1; continue }
                scan.anyValidFrameAfterDefect = true
                if header.syncedLSN >= badLSN {
                    scan.durableFrameAfterDefect = position
                    return
                }
            }
            position += 1
        }
    }

    /// The LSN of the last frame of the segment `bytes` (its first LSN − 1 when it holds
    /// none), read from the plain frame headers and checked against their checksums, without
    /// decrypting anything; `nil` unless the header decodes and every byte after it is whole
    /// frames of its salt with consecutive LSNs.
    ///
    /// - Complexity: O(n).
    static func lastFrameLSNWithoutKey(_ bytes: [UInt8]) -> UInt64? {
        guard case .success(let header) = SegmentHeader.decode(bytes) else { return nil }
        var offset = header.frameStart
        var last = header.firstLSN - 1
        return bytes.withUnsafeBytes { raw -> UInt64? in
            while offset < raw.count {
                guard case .success(let frame) = FrameCodec.decodeHeader(raw, at: offset, end: raw.count),
                      frame.salt == header.salt, frame.lsn == last + 1,
                      FrameCodec.verifyChecksum(raw, at: offset, header: frame) else { return nil }
                last = frame.lsn
                offset += frame.frameLength
            }
            return last
        }
    }

    /// Whether a valid frame (any salt, any LSN) may be in `bytes` after where a segment
    /// header would be: `true` when one is found, and also when the search runs out of its
    /// budget first, since then one cannot be ruled out.
    ///
    /// - Complexity: O(n), as ``FrameSearchBudget`` bounds the bytes checksummed.
    static func mayContainFrame(_ bytes: [UInt8], checksummedBytes: inout Int) -> Bool {
        guard bytes.count >= SegmentHeader.size + FrameHeader.size else { return false }
        var budget = FrameSearchBudget(searching: bytes.count - SegmentHeader.size)
        defer { checksummedBytes = budget.checksummedBytes }
        return bytes.withUnsafeBytes { raw in
            for position in SegmentHeader.size...(raw.count - FrameHeader.size)
            where raw.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian == FrameHeader.magic {
                if case .success(let header) = FrameCodec.decodeHeader(raw, at: position, end: raw.count) {
                    guard budget.spend(header) else { return true }
                    if FrameCodec.verifyChecksum(raw, at: position, header: header) { return true }
                }
            }
            return false
        }
    }
}

/// The work a search for frames in damaged bytes may do: checksumming at most
/// `4 × n + 64 KiB` bytes when searching `n` bytes.
///
/// Every byte can start a candidate frame whose declared length reaches the end of the
/// file, so checking each candidate's checksum would take O(n²) on crafted input. Real
/// candidates rarely overlap (a valid frame is checksummed once, a stray magic number in
/// user data seldom has a plausible header), so honest logs stay far below the budget.
struct FrameSearchBudget {
    /// Bytes that may still be checksummed.
    private var remaining: Int
    /// Bytes checksummed so far.
    private(set) var checksummedBytes = 0

    /// A budget for searching `count` bytes.
    init(searching count: Int) {
        remaining = 4 * max(count, 0) + 64 * 1024
    }

    /// Takes the cost of verifying the checksum of the frame with `header` (its stored
    /// payload and 44 header bytes); `false`, taking nothing, when that is more than is left.
    mutating func spend(_ header: FrameHeader) -> Bool {
        let cost = header.storedLength + 44
        guard cost <= remaining else { return false }
        remaining -= cost
        checksummedBytes += cost
        return true
    }
}

/// What recovery makes of one scanned segment.
enum SegmentVerdict: Equatable {
    /// Every byte is whole frames.
    case clean
    /// The newest segment's header was torn while it was being created: no frame in it was
    /// ever acknowledged, so the file is removed.
    case tornCreation
    /// The newest segment ends in a torn write: cut it at `offset`.
    case tornTail(offset: Int)
    /// Damage that cannot be a torn write: in an older segment, or followed by a frame that
    /// proves the damaged one had been synced.
    case corrupted(offset: Int, reason: String)

    /// Applies the recovery rules of `docs/FORMAT.md` to a scan. `durableLSN` is what the
    /// durable-LSN marker says was on stable storage in this log generation, if it says anything.
    init(_ scan: SegmentScan, isNewest: Bool, durableLSN: UInt64? = nil, hasAnyFrame: () -> Bool) {
        guard let defect = scan.defect else { self = .clean; return }
        if scan.defectFailsAuthentication {
            // Its checksum matched: not a torn write but bytes rewritten by something that
            // fixed the checksum too (or a frame moved or replayed from elsewhere).
            self = .corrupted(offset: defect.offset, reason: defect.reason)
        } else if isNewest && scan.header == nil {
            if let durableLSN, let first = StoreFileNames.segmentLSN(scan.name), durableLSN >= first {
                // Not a segment whose creation was cut short: frames in it had been synced.
                self = .corrupted(offset: 0, reason: defect.reason + ", in a segment whose transactions the durable-LSN marker shows had been synced (up to LSN \(durableLSN))")
            } else {
                self = hasAnyFrame() ? .corrupted(offset: 0, reason: defect.reason) : .tornCreation
            }
        } else if isNewest, let header = scan.header, let durableLSN,
                  durableLSN >= (scan.records.last?.lsn ?? header.firstLSN - 1) + 1 {
            let bad = (scan.records.last?.lsn ?? header.firstLSN - 1) + 1
            self = .corrupted(offset: defect.offset, reason: defect.reason + ", in transaction \(bad), which the durable-LSN marker shows had been synced (up to LSN \(durableLSN))")
        } else if isNewest && scan.durableFrameAfterDefect == nil && !scan.searchCutShort {
            self = .tornTail(offset: defect.offset)
        } else if isNewest && scan.durableFrameAfterDefect == nil {
            self = .corrupted(offset: defect.offset, reason: defect.reason + ", followed by more candidate frames than the search after it checks, so frames written after it was synced cannot be ruled out")
        } else if isNewest {
            self = .corrupted(offset: defect.offset, reason: defect.reason + ", followed by frames written after it was synced")
        } else {
            self = .corrupted(offset: defect.offset, reason: defect.reason + " in a segment that is not the newest")
        }
    }
}
