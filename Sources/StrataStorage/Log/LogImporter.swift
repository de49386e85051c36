/// Builds a store directory from frames and a snapshot that were copied elsewhere (a restore
/// from PostgreSQL, `StrataReplication`), byte for byte as the writer made them.
///
/// The frames are checked as recovery would check them (header, checksum, consecutive LSNs)
/// before anything is written; they keep their salt, so a new segment starts wherever the
/// salt changes (a log generation began there) and wherever a segment has passed
/// `segmentSize`. A frame of an encrypted store comes with its segment's encryption header
/// (salt and key check, `docs/FORMAT.md` section 14), which the new segment gets in turn: the
/// frames are never decrypted here, and the copy opens with the store's key. Every file is written, `fdatasync`ed and the directory synced in
/// ``finish()``: a crash before then leaves an incomplete directory that the caller deletes.
package struct LogImporter {
    private let fileSystem: any FileSystem
    private let directory: String
    private let segmentSize: Int64
    private var segment: (handle: any FileHandle, salt: UInt32, encryption: [UInt8]?, size: Int64)?
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
    /// An encrypted snapshot's index of chunks is itself encrypted, so without the key only
    /// its header, encryption header, trailer and index checksum are checked here (the caller
    /// has checked the checksum of the whole file it copied); its chunks are authenticated
    /// when the store opens with its key.
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
        if Self.isEncryptedSnapshot(bytes) {
            try Self.checkEncryptedSnapshot(bytes, lsn: lsn, path: temporary)
        } else {
            try checkPlainSnapshot(name: name, lsn: lsn, path: temporary)
        }
        try WriteAheadLog.wrap("Naming the restored snapshot \(name)") {
            try fileSystem.rename(temporary, to: "\(directory)/\(name)")
        }
    }

    private func checkPlainSnapshot(name: String, lsn: UInt64, path temporary: String) throws {
        let reader = try SnapshotReader(fileSystem: fileSystem, directory: directory, name: "\(name).tmp")
        guard reader.lsn == lsn else {
            throw StorageError(.corrupted, "The snapshot copied for LSN \(lsn) holds the state at LSN \(reader.lsn); nothing was restored from it.", file: temporary, offset: 0)
        }
        try reader.verifyChecksums()
    }

    private static func isEncryptedSnapshot(_ bytes: [UInt8]) -> Bool {
        bytes.count >= SnapshotLayout.headerSize && bytes[12] & UInt8(SnapshotLayout.encryptedFileFlag) != 0
    }

    /// The checks an encrypted snapshot allows without its key (`docs/FORMAT.md` sections 5
    /// and 14): header, encryption header, trailer, and the index's checksum.
    private static func checkEncryptedSnapshot(_ bytes: [UInt8], lsn: UInt64, path: String) throws {
        func damaged(_ reason: String, at offset: Int) -> StorageError {
            StorageError(.corrupted, "The encrypted snapshot copied for LSN \(lsn) is damaged (\(reason)); nothing was restored from it.", file: path, offset: Int64(offset))
        }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) } }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        let dataStart = SnapshotLayout.headerSize + EncryptionHeader.size
        guard bytes.count >= dataStart + SnapshotLayout.trailerSize else { throw damaged("too short", at: 0) }
        guard Array(bytes[0..<8]) == SnapshotLayout.headerMagic, CRC32C.checksum(Array(bytes[0..<36])) == u32(36) else {
            throw damaged("bad header", at: 0)
        }
        let major = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
        guard major <= FormatVersion.newestReadableSnapshotMajor else {
            throw StorageError(.unsupportedFormat, "The snapshot copied for LSN \(lsn) was written in format version \(major); this build of Strata reads version \(FormatVersion.newestReadableSnapshotMajor) and older. Restore with a newer Strata.", file: path)
        }
        guard u64(16) == lsn else {
            throw StorageError(.corrupted, "The snapshot copied for LSN \(lsn) holds the state at LSN \(u64(16)); nothing was restored from it.", file: path, offset: 0)
        }
        guard EncryptionHeader.decode(bytes[SnapshotLayout.headerSize...]) != nil else {
            throw damaged("bad encryption header", at: SnapshotLayout.headerSize)
        }
        let trailer = bytes.count - SnapshotLayout.trailerSize
        let indexOffset = Int(truncatingIfNeeded: u64(trailer)), indexLength = Int(u32(trailer + 8))
        guard Array(bytes[trailer + 16..<trailer + 24]) == SnapshotLayout.trailerMagic,
              indexOffset >= dataStart, indexLength >= 0, indexOffset + indexLength == trailer else {
            throw damaged("bad trailer", at: trailer)
        }
        guard CRC32C.checksum(Array(bytes[indexOffset..<trailer])) == u32(trailer + 12) else {
            throw damaged("index checksum mismatch", at: indexOffset)
        }
    }

    /// Appends one frame, exactly as `bytes` (header and stored payload).
    ///
    /// - Parameter encryption: for an encrypted frame, the 32-byte encryption header of the
    ///   segment it was written in (``SegmentEncryption/header(of:path:)``); `nil` for a plain one.
    /// - Throws: ``StorageError`` `corrupted` when the bytes are not one whole, valid frame
    ///   with the next LSN, or an encrypted frame comes without a valid encryption header (or
    ///   a plain one with one); `io` or `diskFull` when writing fails.
    package mutating func append(frame bytes: [UInt8], encryption: [UInt8]? = nil) throws {
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
        guard header.isEncrypted == (encryption != nil), encryption.map(SegmentEncryption.isValid) ?? true else {
            throw StorageError(.corrupted, "The frame copied for LSN \(expected) is \(header.isEncrypted ? "encrypted but came without a valid encryption header" : "plain but came with an encryption header"); restore stopped before it.", lastGoodLSN: lastLSN)
        }
        if let current = segment,
           current.salt != header.salt || current.encryption != encryption || current.size >= segmentSize {
            try closeSegment()
        }
        if segment == nil { try openSegment(firstLSN: header.lsn, salt: header.salt, encryption: encryption) }
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

    private mutating func openSegment(firstLSN: UInt64, salt: UInt32, encryption: [UInt8]?) throws {
        let name = StoreFileNames.segment(firstLSN: firstLSN)
        let header = SegmentHeader(salt: salt, firstLSN: firstLSN, encryption: encryption.flatMap { EncryptionHeader.decode($0[...]) })
        let handle = try WriteAheadLog.wrap("Creating the restored log segment \(name)") {
            let handle = try fileSystem.open("\(directory)/\(name)", mode: .createNew)
            try handle.writeAll(header.encoded(), at: 0)
            return handle
        }
        segment = (handle, salt, encryption, Int64(header.frameStart))
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
