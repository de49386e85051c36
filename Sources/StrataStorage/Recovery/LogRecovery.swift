/// The log as recovered: every transaction after the snapshot, and where appends resume.
struct RecoveredLog: Sendable {
    /// Transactions with an LSN above the snapshot's, in order.
    var records: [LogRecord]
    /// The LSN of the last whole transaction (the snapshot's when the log adds none).
    var lastLSN: UInt64
    /// The segment appends continue in, with its salt and the offset after its last frame
    /// (an encrypted store's first write starts a new segment after it instead); `nil` when a
    /// new segment must be started at open.
    var tail: (name: String, salt: UInt32, end: Int64)?
}

/// Reads every log segment of a store directory and applies the recovery rules of
/// `docs/FORMAT.md`: whole transactions only, a torn tail is cut, damage in the middle fails
/// (or, in point-in-time mode, is moved aside).
struct LogRecovery {
    let fileSystem: any FileSystem
    let directory: String
    let mode: RecoveryMode
    let readOnly: Bool
    /// The store's cipher, for an encrypted store.
    var cipher: (any StoreCipher)? = nil

    func path(_ name: String) -> String { "\(directory)/\(name)" }

    /// Recovers the log on top of a snapshot taken at `snapshotLSN` (0 for none).
    func recover(segments names: [String], snapshotLSN: UInt64,
                 report: inout RecoveryReport) throws -> RecoveredLog {
        let ordered = names.compactMap { n in StoreFileNames.segmentLSN(n).map { (n, $0) } }
            .sorted { $0.1 < $1.1 }
        // Segments wholly covered by the snapshot are left alone (a checkpoint deletes them).
        var relevant: [(String, UInt64)] = []
        for (index, entry) in ordered.enumerated() {
            if index + 1 < ordered.count, ordered[index + 1].1 <= snapshotLSN + 1 { continue }
            relevant.append(entry)
        }
        // Read before any segment: whatever it claims was synced before these reads began.
        let marker = DurableMarker.read(fileSystem: fileSystem, directory: directory)
        var records: [LogRecord] = []
        var lastLSN = snapshotLSN
        var tail: (String, UInt32, Int64)?
        if let first = relevant.first, first.1 > snapshotLSN + 1 {
            throw StorageError(.corrupted, "The log starts at LSN \(first.1) but the newest usable snapshot ends at LSN \(snapshotLSN): transactions \(snapshotLSN + 1)…\(first.1 - 1) are missing. Restore the missing files from a backup.", file: path(first.0), offset: 0, lastGoodLSN: snapshotLSN)
        }
        for (index, (name, firstLSN)) in relevant.enumerated() {
            let isNewest = index == relevant.count - 1
            let handle = try openForRecovery(name)
            let bytes = try WriteAheadLog.wrap("Reading log segment \(name)") {
                try handle.read(count: Int(try handle.size()), at: 0)
            }
            let scan = SegmentScanner.scan(name: name, bytes: bytes, cipher: cipher)
            if case .newerMajorVersion(let major)? = scan.headerDefect {
                throw StorageError(.unsupportedFormat, "\(name) was written in format version \(major); this build of Strata reads version \(FormatVersion.newestReadableMajor) and older. Open the store with a newer Strata.", file: path(name))
            }
            if let header = scan.header, header.firstLSN != firstLSN {
                throw StorageError.corrupted(file: path(name), offset: 0, lastGoodLSN: lastLSN,
                                             reason: "segment header says first LSN \(header.firstLSN) but its name says \(firstLSN)")
            }
            if firstLSN > lastLSN + 1 {
                throw StorageError.corrupted(file: path(name), offset: 0, lastGoodLSN: lastLSN,
                                             reason: "transactions \(lastLSN + 1)…\(firstLSN - 1) are missing before this segment")
            }
            for record in scan.records where record.lsn > lastLSN {
                records.append(record)
                lastLSN = record.lsn
            }
            // A segment without a readable header cannot say its salt; the marker on disk is
            // always the current generation's once an open has synced it.
            let durableLSN = marker.flatMap { scan.header == nil || $0.salt == scan.header?.salt ? $0.lsn : nil }
            let verdict = SegmentVerdict(scan, isNewest: isNewest, durableLSN: durableLSN,
                                         hasAnyFrame: { containsAnyFrame(bytes) })
            switch verdict {
            case .clean:
                if isNewest, let header = scan.header { tail = (name, header.salt, Int64(scan.validEnd)) }
                continue
            case .tornCreation:
                if !readOnly {
                    try WriteAheadLog.wrap("Removing torn segment \(name)") {
                        try fileSystem.remove(path(name))
                        try fileSystem.syncDirectory(directory)
                    }
                }
                report.removedFiles.append(name)
                continue
            case .tornTail(let offset):
                report.tornTail = .init(file: name, offset: Int64(offset),
                                        bytesDiscarded: Int64(scan.fileSize - offset), lastGoodLSN: lastLSN)
                if !readOnly {
                    try WriteAheadLog.wrap("Truncating the torn tail of \(name)") {
                        if scan.anyValidFrameAfterDefect || scan.defectFrameIsWhole {
                            // Whole frames follow the damage (unsynced writes that landed out
                            // of order), or the bad frame itself is whole (more likely a
                            // damaged frame than a torn one): keep the cut bytes aside rather
                            // than delete them.
                            let aside = "\(name).\(offset).\(report.openedAt).quarantine"
                            let file = try fileSystem.open(path(aside), mode: .createNew)
                            try file.writeAll(Array(bytes[offset...]), at: 0)
                            try file.sync()
                            try fileSystem.syncDirectory(directory)
                            report.quarantinedFiles.append(aside)
                        }
                        try handle.truncate(to: Int64(offset))
                        try handle.sync()
                    }
                }
                tail = (name, scan.header!.salt, Int64(offset))
                continue
            case .corrupted(let offset, let reason):
                guard mode == .pointInTime, !readOnly else {
                    throw StorageError.corrupted(file: path(name), offset: Int64(offset), lastGoodLSN: lastLSN, reason: reason)
                }
                // The log now ends before what the marker may say was synced; the marker is
                // rewritten (synced) by the log's opening, before anything is appended, so a
                // later torn tail is judged against the new end.
                try WriteAheadLog.wrap("Moving damaged log data aside") {
                    try quarantine(name: name, handle: handle, bytes: bytes, from: offset,
                                   later: relevant[(index + 1)...].map(\.0), report: &report)
                }
                report.corruption = "\(reason) in \(name) at byte \(offset); recovered up to LSN \(lastLSN)"
                tail = scan.header.map { (name, $0.salt, Int64(offset)) }
            }
            break
        }
        report.lastLSN = lastLSN
        report.replayedTransactions = records.count
        return RecoveredLog(records: records, lastLSN: lastLSN, tail: tail.map { ($0.0, $0.1, $0.2) })
    }

    private func openForRecovery(_ name: String) throws -> any FileHandle {
        do { return try fileSystem.open(path(name), mode: readOnly ? .readOnly : .readWrite) }
        catch let error as SystemError { throw error.asStorageError("Opening log segment \(name)") }
    }

    /// Whether a valid frame may appear in `bytes` after where a header would be (also when
    /// the bounded search cannot rule one out).
    private func containsAnyFrame(_ bytes: [UInt8]) -> Bool {
        var checksummed = 0
        return SegmentScanner.mayContainFrame(bytes, checksummedBytes: &checksummed)
    }

    /// Moves the bytes from `offset` on, and every later segment, aside; then cuts the file.
    ///
    /// Order matters at every step, because a power loss may keep any subset of unsynced
    /// directory changes: the copy is synced, then the renames (newest segment first, so that
    /// a process crash leaves the remaining segments contiguous) and the copy's name are made
    /// durable by a directory sync, and only then is the damaged segment cut. A crash at any
    /// point leaves the bytes in the segment, in the copy, or both, and a store that the next
    /// point-in-time open recovers to the same prefix.
    private func quarantine(name: String, handle: any FileHandle, bytes: [UInt8], from offset: Int,
                            later: [String], report: inout RecoveryReport) throws {
        let aside = "\(name).\(offset).\(report.openedAt).quarantine"
        let file = try fileSystem.open(path(aside), mode: .createNew)
        try file.writeAll(Array(bytes[offset...]), at: 0)
        try file.sync()
        report.quarantinedFiles.append(aside)
        for segment in later.reversed() {
            try fileSystem.rename(path(segment), to: path(segment + ".quarantine"))
            report.quarantinedFiles.append(segment + ".quarantine")
        }
        try fileSystem.syncDirectory(directory)
        if offset < SegmentHeader.size {
            // Nothing usable is left in this segment, not even its header.
            try fileSystem.remove(path(name))
            try fileSystem.syncDirectory(directory)
        } else {
            try handle.truncate(to: Int64(offset))
            try handle.sync()
        }
    }
}
