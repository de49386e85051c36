import Dispatch
import Foundation

/// Reads a snapshot: its header and footer index at open, then any chunk on demand.
///
/// Every length is bounded before allocation, and the memory that decoding every chunk takes
/// is bounded by the file's size (`docs/FORMAT.md`, section 5.6), checked from the footer
/// before any chunk is decoded. A chunk read from the file is verified (magic,
/// table, row count, checksum) before it is decompressed, and its decompressed size and
/// column layout are checked each time it is decoded.
public final class SnapshotReader: Sendable {
    /// The snapshot's file name.
    public let name: String
    /// The LSN whose state it holds.
    public let lsn: UInt64
    /// When it was written, microseconds since 1970-01-01 UTC.
    public let createdAt: Int64
    /// Format version it was written in.
    public let formatVersion: (major: UInt16, minor: UInt16)
    /// The layer above's opaque metadata.
    public let metadata: [UInt8]
    /// Its tables.
    public let tables: [TableDescriptor]
    /// Its chunks, in file order.
    public let chunks: [SnapshotChunkInfo]
    /// Its size in bytes.
    public let fileSize: Int64
    private let handle: any FileHandle
    private let path: String
    /// Set by ``verifyChecksums()``; ``readChunk(_:)`` decodes from it instead of the file.
    private let verifiedImage = Locked<VerifiedImage?>(nil)
    /// Set by ``verifyChecksums(deferringAuthentication:keepingImage:)`` when it verified every
    /// chunk without keeping the image, or by ``deferChunkVerification()``;
    /// ``takeVerifiedChunks()`` then hands over the file.
    private let handsOverFile = Locked(false)
    /// For an encrypted snapshot, its file cipher (the key already checked).
    private let fileCipher: (any FileCipher)?

    /// Whether the snapshot is encrypted.
    public var isEncrypted: Bool { fileCipher != nil }

    /// Opens `directory/name` and reads its header and footer.
    ///
    /// - Throws: ``StorageError/Code/corrupted`` naming the offset of the first bad byte range
    ///   (or of the first chunk past the memory budget of `docs/FORMAT.md` section 5.6);
    ///   ``StorageError/Code/unsupportedFormat`` for a newer major version.
    ///   An encrypted snapshot needs the store's `cipher`: without it the error is
    ///   ``StorageError/Code/encryptionKeyRequired``, with another key
    ///   ``StorageError/Code/wrongKey``; a plain one opened with a cipher is
    ///   ``StorageError/Code/notEncrypted``.
    public convenience init(fileSystem: any FileSystem, directory: String, name: String,
                            cipher: (any StoreCipher)? = nil) throws {
        try self.init(fileSystem: fileSystem, directory: directory, name: name, budget: .standard, cipher: cipher)
    }

    /// Opens `directory/name` with the memory budget `budget` (tests use a small one).
    init(fileSystem: any FileSystem, directory: String, name: String, budget: SnapshotDecodeBudget,
         cipher: (any StoreCipher)? = nil) throws {
        let path = "\(directory)/\(name)"
        func corrupt(_ offset: Int64, _ reason: String) -> StorageError {
            StorageError(.corrupted, "Snapshot \(name) is damaged (\(reason)) at byte \(offset). Strata will fall back to an older snapshot when one is kept; otherwise restore from a backup.", file: path, offset: offset)
        }
        func reading<T>(_ body: () throws -> T) throws -> T {
            try WriteAheadLog.wrap("Reading snapshot \(name)", body)
        }
        let file = try WriteAheadLog.wrap("Opening snapshot \(name)") { try fileSystem.open(path, mode: .readOnly) }
        let size = try reading { try file.size() }
        guard size >= Int64(SnapshotLayout.headerSize + SnapshotLayout.trailerSize) else {
            throw corrupt(0, "file too short")
        }
        let header = try reading { try file.read(count: SnapshotLayout.headerSize, at: 0) }
        var r = ByteReader(header)
        guard Array(try r.readBytes(8)) == SnapshotLayout.headerMagic else { throw corrupt(0, "bad magic number") }
        let major = try r.readUInt16(), minor = try r.readUInt16()
        let fileFlags = try r.readUInt32()
        let snapshotLSN = try r.readUInt64()
        let created = try r.readInt64()
        _ = try r.readUInt32()
        guard CRC32C.checksum(Array(header[0..<36])) == (try r.readUInt32()) else { throw corrupt(0, "header checksum mismatch") }
        guard major <= FormatVersion.newestReadableSnapshotMajor else {
            throw StorageError(.unsupportedFormat, "Snapshot \(name) was written in format version \(major); this build of Strata reads version \(FormatVersion.newestReadableSnapshotMajor) and older. Open the store with a newer Strata.", file: path)
        }
        var dataStart = Int64(SnapshotLayout.headerSize)
        var fileCipher: (any FileCipher)?
        if fileFlags & SnapshotLayout.encryptedFileFlag != 0 {
            let extra = try reading { try file.read(count: EncryptionHeader.size, at: dataStart) }
            guard let encryption = EncryptionHeader.decode(extra[...]) else { throw corrupt(dataStart, "encryption header checksum mismatch") }
            guard let cipher else { throw StorageError.keyRequired(file: path) }
            fileCipher = try encryption.fileCipher(cipher, kind: .snapshot, path: path)
            dataStart += Int64(EncryptionHeader.size)
        } else if cipher != nil {
            throw StorageError.notEncrypted(file: path)
        }
        let trailerOffset = size - Int64(SnapshotLayout.trailerSize)
        let trailer = try reading { try file.read(count: SnapshotLayout.trailerSize, at: trailerOffset) }
        var t = ByteReader(trailer)
        let indexOffset = Int64(bitPattern: try t.readUInt64())
        let indexLength = Int(try t.readUInt32())
        let indexCRC = try t.readUInt32()
        guard Array(try t.readBytes(8)) == SnapshotLayout.trailerMagic else { throw corrupt(trailerOffset, "bad trailer (unfinished or cut file)") }
        guard indexLength <= FormatLimits.maximumFooterSize, indexOffset >= dataStart,
              indexOffset <= trailerOffset,
              indexOffset + Int64(indexLength) == trailerOffset else {
            throw corrupt(trailerOffset, "impossible footer bounds")
        }
        var index = try reading { try file.read(count: indexLength, at: indexOffset) }
        guard index.count == indexLength, CRC32C.checksum(index) == indexCRC else { throw corrupt(indexOffset, "footer checksum mismatch") }
        if let fileCipher {
            let associated = Array(header[0..<36])
            guard let opened = index.withUnsafeBytes({ fileCipher.open($0, nonce: SnapshotLayout.footerNonce, associatedData: associated) }) else {
                throw corrupt(indexOffset, "encrypted footer does not authenticate")
            }
            index = opened
        }
        let decoded: SnapshotFooter.Decoded
        let limit = budget.limit(fileSize: size)
        do {
            decoded = try SnapshotFooter.decode(index, dataStart: dataStart, dataEnd: indexOffset, decodeLimit: limit)
        } catch {
            throw corrupt(indexOffset, "footer: \(error)")
        }
        // The footer summed what decoding each chunk would take (in the loop that checks its
        // rows against its raw length) and noted the first chunk past the limit.
        if let over = decoded.firstChunkOverLimit {
            throw corrupt(decoded.chunks[over].offset, "its chunks declare more rows than a file of \(size) bytes can hold: decoding them would take over \(decoded.decodedSize) bytes of memory, above the limit of \(limit)")
        }
        self.name = name
        self.path = path
        handle = file
        fileSize = size
        lsn = snapshotLSN
        createdAt = created
        formatVersion = (major, minor)
        metadata = decoded.metadata
        tables = decoded.tables
        chunks = decoded.chunks
        self.fileCipher = fileCipher
    }

    /// Reads, verifies and decodes chunk number `index` (into ``chunks``).
    ///
    /// After ``verifyChecksums(deferringAuthentication:)`` the chunk comes from the in-memory
    /// image that call read and verified, so the file is not read again; otherwise it is read
    /// from the file and its header and checksum are verified first. Either way, an encrypted
    /// chunk not yet authenticated is authenticated and decrypted, and the decompressed size
    /// and the column layout are checked.
    ///
    /// - Throws: ``StorageError/Code/corrupted`` naming the chunk's offset when anything
    ///   does not verify or authenticate; ``StorageError/Code/io`` when the read fails.
    /// - Complexity: O(rows in the chunk).
    public func readChunk(_ index: Int) throws -> [ColumnChunk] {
        let info = chunks[index]
        if let image = verifiedImage.withLock({ $0 }) {
            let start = Int(info.offset - image.start)
            return try image.bytes.withUnsafeBytes { all in
                try SnapshotChunkSource.decodeVerified(UnsafeRawBufferPointer(rebasing: all[start..<start + info.length]), info, index,
                                                       table: tables[info.table], name: name, path: path, sealedUnder: image.sealedUnder)
            }
        }
        let bytes = try readRange(count: info.length, at: info.offset)
        return try bytes.withUnsafeBytes { stored in
            _ = try checkStored(stored, info)
            return try SnapshotChunkSource.decodeVerified(stored, info, index, table: tables[info.table], name: name, path: path,
                                                          sealedUnder: fileCipher)
        }
    }

    /// Opens the sealed chunk `index` at `from` in `image` in place; `false` when it does not
    /// authenticate. The associated data is the chunk header's first 24 bytes, read where
    /// they are.
    private static func openChunk(_ cipher: any FileCipher, in image: UnsafeMutableRawBufferPointer, from: Int,
                                  _ info: SnapshotChunkInfo, _ index: Int) -> Bool {
        let headerEnd = from + SnapshotLayout.chunkHeaderSize, end = from + info.length
        return cipher.open(UnsafeRawBufferPointer(rebasing: image[headerEnd..<end]), nonce: UInt64(index),
                           associatedData: UnsafeRawBufferPointer(rebasing: image[from..<from + 24]),
                           into: UnsafeMutableRawBufferPointer(rebasing: image[headerEnd..<end - EncryptionHeader.tagLength]))
    }

    /// Opens every chunk of the image `bytes` (starting at file offset `start`) in place, the
    /// chunks shared out in contiguous runs between the machine's cores when the image is large
    /// enough for that to pay (``parallelDecryptionBytes``).
    ///
    /// - Throws: ``StorageError/Code/corrupted`` naming the first chunk that does not authenticate.
    private func decryptAll(_ bytes: inout [UInt8], start: Int64) throws {
        guard let fileCipher, !chunks.isEmpty else { return }
        let chunks = self.chunks
        let workers = bytes.count < Self.parallelDecryptionBytes ? 1
            : max(1, min(ProcessInfo.processInfo.activeProcessorCount, chunks.count))
        // The first chunk of each run that failed, or Int.max; each worker writes only its slot.
        let failures = UnsafeMutableBufferPointer<Int>.allocate(capacity: workers)
        failures.initialize(repeating: Int.max)
        defer { failures.deallocate() }
        bytes.withUnsafeMutableBytes { image in
            // Sendable wrappers: each worker touches only its own chunks' bytes and its own slot.
            let shared = SharedImage(image: image, failures: failures)
            let run: @Sendable (Int) -> Void = { worker in
                let range = (chunks.count * worker / workers)..<(chunks.count * (worker + 1) / workers)
                for index in range where !Self.openChunk(fileCipher, in: shared.image, from: Int(chunks[index].offset - start), chunks[index], index) {
                    shared.failures[worker] = index
                    return
                }
            }
            if workers == 1 { run(0) } else { DispatchQueue.concurrentPerform(iterations: workers, execute: run) }
        }
        if let first = failures.min(), first != Int.max {
            throw corrupt(chunks[first], "encrypted chunk #\(first) does not authenticate")
        }
    }

    /// Images at least this large are decrypted on every core at open (1 MiB).
    static let parallelDecryptionBytes = 1 << 20

    /// Checks every chunk's header and checksum without decoding the columns; for an encrypted
    /// snapshot, also authenticates and decrypts every chunk, unless `deferringAuthentication`.
    ///
    /// With `keepingImage` (the default), the whole chunk region is read with one read and the
    /// verified bytes are kept in memory, and later ``readChunk(_:)`` calls decode from them,
    /// so each chunk is read and checksummed once. Call ``releaseVerifiedImage()`` once the
    /// chunks are loaded to free that memory.
    ///
    /// Without it (a store's open), the region is read in windows of at most
    /// ``verificationWindowBytes`` and nothing is kept: the snapshot's size never needs to be
    /// resident at once, and each later read of a chunk (``readChunk(_:)``, or the source
    /// ``takeVerifiedChunks()`` hands over) reads it from the file again and verifies its
    /// header and checksum again before using a byte of it. An encrypted snapshot that does not
    /// defer authentication keeps its decrypted image whatever `keepingImage` says.
    ///
    /// With `deferringAuthentication` (a store's open: `docs/FORMAT.md` §14.3), an encrypted
    /// chunk's GCM tag is checked only when the chunk is first decoded (``readChunk(_:)``,
    /// ``SnapshotChunkSource/decode(_:)``), which then throws for a chunk that does not
    /// authenticate. The checksums still cover every stored byte, so accidental damage is
    /// refused here as without it; what gets past this call is only a chunk rewritten
    /// together with its checksum, which its first decode refuses.
    ///
    /// - Throws: ``StorageError/Code/corrupted`` naming the first bad chunk's offset.
    /// - Complexity: O(file size).
    public func verifyChecksums(deferringAuthentication: Bool = false, keepingImage: Bool = true) throws {
        try verifyChecksums(deferringAuthentication: deferringAuthentication, keepingImage: keepingImage,
                            windowBytes: Self.verificationWindowBytes)
    }

    /// ``verifyChecksums(deferringAuthentication:keepingImage:)`` reading at most
    /// `windowBytes` at once without an image (tests use small windows).
    func verifyChecksums(deferringAuthentication: Bool, keepingImage: Bool, windowBytes: Int) throws {
        guard let first = chunks.first, let last = chunks.last else { return }
        let start = first.offset, end = last.offset + Int64(last.length)
        if !keepingImage, fileCipher == nil || deferringAuthentication {
            try verifyInWindows(total: end - start, windowBytes: windowBytes)
            handsOverFile.withLock { $0 = true }
            return
        }
        var bytes = try readRange(count: Int(end - start), at: start)
        guard bytes.count == Int(end - start) else {
            throw corrupt(last, "file cut short: \(bytes.count) of the \(end - start) chunk bytes the index lists")
        }
        try bytes.withUnsafeBytes { all in
            for info in chunks {
                let from = Int(info.offset - start)
                _ = try checkStored(UnsafeRawBufferPointer(rebasing: all[from..<from + info.length]), info)
            }
        }
        if deferringAuthentication {
            // Each chunk is authenticated and decrypted by its first decode; the image stays sealed.
            let image = VerifiedImage(start: start, bytes: bytes, sealedUnder: fileCipher)
            verifiedImage.withLock { $0 = image }
            return
        }
        // Every chunk authenticates now, like every checksum; the image keeps plaintext.
        try decryptAll(&bytes, start: start)
        verifiedImage.withLock { $0 = VerifiedImage(start: start, bytes: bytes, sealedUnder: nil) }
    }

    /// The most ``verifyChecksums(deferringAuthentication:keepingImage:)`` reads at once when
    /// it keeps no image (1 MiB; a larger chunk is read alone).
    static let verificationWindowBytes = 1 << 20

    /// Checks every chunk's header and checksum, reading consecutive chunks together in
    /// windows of at most `windowBytes` (or the largest chunk, when larger) into one buffer
    /// reused for each; `total` is the chunk region's length.
    private func verifyInWindows(total: Int64, windowBytes: Int) throws {
        let chunks = self.chunks
        let largest = chunks.map(\.length).max() ?? 0
        let capacity = max(largest, min(windowBytes, Int(total)))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(capacity, 1), alignment: 16)
        defer { buffer.deallocate() }
        var next = 0
        while next < chunks.count {
            // The window: chunk `next` and those after it that are contiguous and still fit.
            let from = chunks[next].offset
            var end = next + 1
            while end < chunks.count, chunks[end].offset == chunks[end - 1].offset + Int64(chunks[end - 1].length),
                  chunks[end].offset + Int64(chunks[end].length) - from <= Int64(capacity) {
                end += 1
            }
            let length = Int(chunks[end - 1].offset + Int64(chunks[end - 1].length) - from)
            let window = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])
            let read = try readFully(into: window, at: from)
            for info in chunks[next..<end] {
                let at = Int(info.offset - from)
                guard at + info.length <= read else {
                    let got = from + Int64(read) - chunks[0].offset
                    throw corrupt(chunks[chunks.count - 1], "file cut short: \(got) of the \(total) chunk bytes the index lists")
                }
                _ = try checkStored(UnsafeRawBufferPointer(rebasing: window[at..<at + info.length]), info)
            }
            next = end
        }
    }

    /// Reads up to `buffer.count` bytes at `offset`, looping over short reads; returns how
    /// many were read (fewer only at the end of the file).
    private func readFully(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try WriteAheadLog.wrap("Reading snapshot \(name)") {
            var done = 0
            while done < buffer.count {
                let n = try handle.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done))
                if n == 0 { break }
                done += n
            }
            return done
        }
    }

    /// Frees the image kept by ``verifyChecksums()``; later reads go to the file again.
    public func releaseVerifiedImage() {
        verifiedImage.withLock { $0 = nil }
        handsOverFile.withLock { $0 = false }
    }

    private func corrupt(_ info: SnapshotChunkInfo, _ reason: String) -> StorageError {
        StorageError(.corrupted, "Snapshot \(name) is damaged (\(reason)) at byte \(info.offset). Strata will fall back to an older snapshot when one is kept; otherwise restore from a backup.", file: path, offset: info.offset)
    }

    /// Reads `count` bytes at `offset` (fewer only at the end of the file, which the checks
    /// then report as a chunk cut short).
    private func readRange(count: Int, at offset: Int64) throws -> [UInt8] {
        try WriteAheadLog.wrap("Reading snapshot \(name)") { try handle.read(count: count, at: offset) }
    }

    /// Checks a chunk's header against the index and its checksum, in place.
    ///
    /// - Returns: whether the payload (the bytes after the 28-byte header) is compressed.
    private func checkStored(_ bytes: UnsafeRawBufferPointer, _ info: SnapshotChunkInfo) throws -> Bool {
        try Self.checkStored(bytes, info, encrypted: fileCipher != nil, name: name, path: path)
    }

    /// Checks a stored chunk (header included) of the snapshot `name` at `path` against its
    /// entry in the index, and its checksum, in place. Without `checksum`, only the header is
    /// checked: for an encrypted chunk whose GCM tag is checked next, over the same bytes and
    /// the header (`SnapshotChunkSource.decodeVerified`, which runs the checksum when the tag
    /// does not authenticate, to tell damage from forgery).
    ///
    /// - Returns: whether the payload (the bytes after the 28-byte header) is compressed.
    /// - Throws: ``StorageError/Code/corrupted`` naming the chunk's offset.
    static func checkStored(_ bytes: UnsafeRawBufferPointer, _ info: SnapshotChunkInfo, encrypted: Bool,
                            checksum: Bool = true, name: String, path: String) throws -> Bool {
        func corrupt(_ info: SnapshotChunkInfo, _ reason: String) -> StorageError {
            StorageError(.corrupted, "Snapshot \(name) is damaged (\(reason)) at byte \(info.offset). Strata will fall back to an older snapshot when one is kept; otherwise restore from a backup.", file: path, offset: info.offset)
        }
        guard bytes.count == info.length, bytes.count >= SnapshotLayout.chunkHeaderSize else { throw corrupt(info, "chunk cut short") }
        func u32(_ at: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        guard u32(0) == SnapshotLayout.chunkMagic, Int(u32(4)) == info.table,
              Int(u32(8)) == info.rowCount else { throw corrupt(info, "chunk header does not match the index") }
        let storedLength = Int(u32(12)), rawLength = Int(u32(16))
        let flags = bytes[20]
        let expectedFlags = encrypted ? SnapshotLayout.encryptedFlag : 0
        guard storedLength == info.length - SnapshotLayout.chunkHeaderSize, rawLength == info.rawLength,
              [0, SnapshotLayout.compressedFlag, SnapshotLayout.columnBlocksFlag].contains(flags & ~SnapshotLayout.encryptedFlag),
              flags & SnapshotLayout.encryptedFlag == expectedFlags,
              !encrypted || storedLength >= EncryptionHeader.tagLength else { throw corrupt(info, "impossible chunk lengths") }
        if checksum {
            var check = CRC32C.update(CRC32C.initial, UnsafeRawBufferPointer(rebasing: bytes[SnapshotLayout.chunkHeaderSize...]))
            check = CRC32C.update(check, UnsafeRawBufferPointer(rebasing: bytes[0..<24]))
            guard CRC32C.finalize(check) == u32(24) else { throw corrupt(info, "chunk checksum mismatch") }
        }
        let compressed = flags & SnapshotLayout.compressedFlag != 0
        // Column blocks check their own lengths when decoded (ColumnBlocks).
        if flags & ~SnapshotLayout.encryptedFlag == 0 && storedLength - (encrypted ? EncryptionHeader.tagLength : 0) != rawLength {
            throw corrupt(info, "impossible chunk lengths")
        }
        return compressed
    }

    /// Lets ``takeVerifiedChunks()`` hand over the chunks without checking them first: the
    /// source it returns reads each chunk from this reader's file at its decode and checks the
    /// chunk's header and checksum (for an encrypted one, its tag) before using a byte of it,
    /// as after ``verifyChecksums(deferringAuthentication:keepingImage:)`` without an image. A
    /// damaged chunk is then found by its first decode, which throws `corrupted` naming it,
    /// instead of before the open returns (``StorageOptions/verifiesSnapshotAtOpen``).
    ///
    /// - Complexity: O(1): nothing is read.
    public func deferChunkVerification() {
        handsOverFile.withLock { $0 = true }
    }

    /// Hands over the chunks that ``verifyChecksums(deferringAuthentication:keepingImage:)``
    /// verified (or that ``deferChunkVerification()`` left to their decodes), as a source that
    /// decodes any chunk on demand without this reader: the verified image when that call
    /// kept one (the reader forgets it; later ``readChunk(_:)`` calls read the file again), or
    /// else this reader's open file, from which the source reads each chunk again and verifies
    /// it before decoding it.
    ///
    /// - Returns: `nil` when the checksums have been neither verified nor deferred, or when
    ///   the chunks were already taken or released.
    public func takeVerifiedChunks() -> SnapshotChunkSource? {
        if let image = verifiedImage.withLock({ image in defer { image = nil }; return image }) {
            return SnapshotChunkSource(name: name, path: path, tables: tables, chunks: chunks, bytes: .image(image))
        }
        guard handsOverFile.withLock({ verified in defer { verified = false }; return verified }) else { return nil }
        return SnapshotChunkSource(name: name, path: path, tables: tables, chunks: chunks,
                                   bytes: .file(handle, cipher: fileCipher))
    }
}

/// The image and the failure slots that `SnapshotReader.decryptAll` shares between its workers.
///
/// `@unchecked Sendable`: the workers write disjoint byte ranges of `image` (one run of
/// chunks each) and one slot of `failures` each, and `concurrentPerform` returns only after
/// every worker has finished, before anyone reads either.
private struct SharedImage: @unchecked Sendable {
    let image: UnsafeMutableRawBufferPointer
    let failures: UnsafeMutableBufferPointer<Int>
}

/// The chunk region of a snapshot, read and verified by `SnapshotReader.verifyChecksums()`.
struct VerifiedImage: Sendable {
    /// File offset of `bytes[0]`.
    let start: Int64
    let bytes: [UInt8]
    /// The file cipher of an encrypted image whose chunks are still sealed (authentication
    /// deferred to each chunk's first decode); `nil` for a plain image or one decrypted in
    /// place at open.
    let sealedUnder: (any FileCipher)?
}
