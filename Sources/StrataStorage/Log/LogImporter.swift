/// Builds a store directory from frames and a snapshot that were copied elsewhere (a restore
/// from PostgreSQL, `StrataReplication`), byte for byte as the writer made them.
///
/// The frames are checked as recovery would check them (header, checksum, consecutive LSNs)
/// before anything is written; they keep their salt, so a new segment starts wherever the
/// salt changes (a log generation began there) and wherever a segment has passed
/// `segmentSize`. Every file is written, `fdatasync`ed and the directory synced in
/// ``finish()``: a crash before then leaves an incomplete directory that the caller deletes.
package struct LogImporter {
    private let fileSystem: any FileSystem
    private let directory: String
    private let segmentSize: Int64
    private var segment: (handle: any FileHandle, salt: UInt32, size: Int64)?
    /// The LSN of the last frame written (the snapshot's LSN before the first frame).
    package private(set) var lastLSN: UInt64
    /// The segment files written, in order.
    package private(set) var segments: [String] = []

    /// An importer into `directory`, which must exist and be empty; the first frame must
    /// have LSN `after + 1` (`after` is the snapshot's LSN, or 0 without one).
    package init(fileSystem: any FileSystem = PosixFileSystem(), directory: String, after: UInt64,
                 segmentSize: Int64 = 64 << 20) {
        self.fileSystem = fileSystem
        self.directory = directory
        self.lastLSN = after
        self.segmentSize = max(4096, segmentSize)
    }

    /// Writes `bytes`, the whole snapshot file of the state at `lsn`, after checking that
    /// it reads back as that snapshot with every chunk's checksum valid.
    ///
    /// - Throws: ``StorageError`` `corrupted` when the bytes are not a valid snapshot at `lsn`;
    ///   `io` or `diskFull` when writing fails.
    package func writeSnapshot(_ bytes: [UInt8], lsn: UInt64) throws {
        let name = StoreFileNames.snapshot(lsn: lsn)
        let temporary = "\(directory)/\(name).tmp"
        try WriteAheadLog.wrap("Writing the restored snapshot \(name)") {
            let file = try fileSystem.open(temporary, mode: .createNew)
            try file.writeAll(bytes, at: 0)
            try file.sync()
            try file.close()
        }
        let reader = try SnapshotReader(fileSystem: fileSystem, directory: directory, name: "\(name).tmp")
        guard reader.lsn == lsn else {
            throw StorageError(.corrupted, "The snapshot copied for LSN \(lsn) holds the state at LSN \(reader.lsn); nothing was restored from it.", file: temporary, offset: 0)
        }
        try reader.verifyChecksums()
        try WriteAheadLog.wrap("Naming the restored snapshot \(name)") {
            try fileSystem.rename(temporary, to: "\(directory)/\(name)")
        }
    }

    /// Appends one frame, exactly as `bytes` (header and stored payload).
    ///
    /// - Throws: ``StorageError`` `corrupted` when the bytes are not one whole, valid frame
    ///   with the next LSN; `io` or `diskFull` when writing fails.
    package mutating func append(frame bytes: [UInt8]) throws {
        let expected = lastLSN + 1
        let header = try bytes.withUnsafeBytes { raw throws -> FrameHeader in
            let header: FrameHeader
            switch FrameCodec.decodeHeader(raw, at: 0, end: raw.count) {
            case .success(let decoded): header = decoded
            case .failure(let defect):
                throw StorageError(.corrupted, "The frame copied for LSN \(expected) is not a valid frame (\(defect)); restore stopped before it.", lastGoodLSN: lastLSN)
            }
            guard header.frameLength == raw.count, FrameCodec.verifyChecksum(raw, at: 0, header: header) else {
                throw StorageError(.corrupted, "The frame copied for LSN \(expected) fails its checksum or length check; restore stopped before it.", lastGoodLSN: lastLSN)
            }
            return header
        }
        guard header.lsn == expected else {
            throw StorageError(.corrupted, "The frame copied for LSN \(expected) carries LSN \(header.lsn); restore stopped before it.", lastGoodLSN: lastLSN)
        }
        if let current = segment, current.salt != header.salt || current.size >= segmentSize {
            try closeSegment()
        }
        if segment == nil { try openSegment(firstLSN: header.lsn, salt: header.salt) }
        guard var current = segment else { return }
        let offset = current.size
        try WriteAheadLog.wrap("Writing the restored frame \(header.lsn)") { try current.handle.writeAll(bytes, at: offset) }
        current.size += Int64(bytes.count)
        segment = current
        lastLSN = header.lsn
    }

    /// Syncs and closes the last segment and syncs the directory.
    package mutating func finish() throws {
        try closeSegment()
        try WriteAheadLog.wrap("Syncing the restored store directory") { try fileSystem.syncDirectory(directory) }
    }

    private mutating func openSegment(firstLSN: UInt64, salt: UInt32) throws {
        let name = StoreFileNames.segment(firstLSN: firstLSN)
        let handle = try WriteAheadLog.wrap("Creating the restored log segment \(name)") {
            let handle = try fileSystem.open("\(directory)/\(name)", mode: .createNew)
            try handle.writeAll(SegmentHeader(salt: salt, firstLSN: firstLSN).encoded(), at: 0)
            return handle
        }
        segment = (handle, salt, Int64(SegmentHeader.size))
        segments.append(name)
    }

    private mutating func closeSegment() throws {
        guard let current = segment else { return }
        segment = nil
        try WriteAheadLog.wrap("Syncing the restored log segment") {
            try current.handle.sync()
            try current.handle.close()
        }
    }
}
