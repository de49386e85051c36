/// A payload compressed (when that makes it smaller) and checksummed, waiting for its LSN.
///
/// Preparing is the expensive part of encoding a frame (compression and the payload's
/// CRC), so it happens before the log's lock is taken; ``FrameCodec/seal(_:kind:lsn:timestamp:syncedLSN:salt:into:)``
/// then only writes 48 header bytes.
public struct PreparedPayload: Sendable {
    /// The bytes to store after the header.
    let stored: [UInt8]
    /// Whether ``stored`` is an LZ4 block.
    let isCompressed: Bool
    /// The payload's length before compression.
    let rawLength: Int
    /// CRC-32C running value over ``stored`` (not finalized).
    let runningChecksum: UInt32

    /// Bytes this frame takes on disk, header included.
    public var frameLength: Int { FrameHeader.size + stored.count }
}

/// Encodes and decodes frames: a 48-byte header, then the payload, LZ4-compressed when that
/// makes it smaller. Decoding bounds every length before allocating.
public enum FrameCodec {
    /// Payloads shorter than this are stored raw without trying LZ4: at that size LZ4 saves
    /// a few bytes at best, and each attempt costs the setup of its 16 KiB hash table (a
    /// one-object save is about 100 bytes). Only the writer applies it; readers accept a
    /// compressed frame of any size, so stores written with another threshold still open.
    public static let minimumCompressedLength = 256

    /// Payloads at least this long are sampled before LZ4 runs over all of them: when
    /// neither of two ``compressionSampleLength``-byte samples (the start and the middle)
    /// shrinks, the payload is stored raw. Compressing a megabyte of incompressible data
    /// costs far more than the checksum and the write together, only to be thrown away.
    /// Like the length threshold, this is a writer's choice; the format does not change.
    public static let sampledCompressionLength = 64 * 1024

    /// The length of each sample taken by the ``sampledCompressionLength`` rule.
    public static let compressionSampleLength = 8 * 1024

    /// Compresses and checksums `payload`.
    ///
    /// - Throws: ``StorageError/Code/tooLarge`` when the payload exceeds
    ///   ``FormatLimits/maximumFramePayload``.
    /// - Complexity: O(n).
    public static func prepare(_ payload: [UInt8]) throws -> PreparedPayload {
        guard payload.count <= FormatLimits.maximumFramePayload else {
            throw StorageError(.tooLarge, "A transaction of \(payload.count) bytes exceeds the \(FormatLimits.maximumFramePayload)-byte frame limit; split it into smaller transactions.")
        }
        var stored = payload
        var compressed = false
        if payload.count >= minimumCompressedLength, worthCompressing(payload),
           let packed = LZ4.compress(payload), packed.count < payload.count {
            stored = packed
            compressed = true
        }
        let crc = stored.withUnsafeBytes { CRC32C.update(CRC32C.initial, $0) }
        return PreparedPayload(stored: stored, isCompressed: compressed,
                               rawLength: payload.count, runningChecksum: crc)
    }

    /// Whether LZ4 is worth running over all of `payload`: always below
    /// ``sampledCompressionLength``; above it, only when a sample from the start or from the
    /// middle compresses to less than its own length.
    static func worthCompressing(_ payload: [UInt8]) -> Bool {
        guard payload.count >= sampledCompressionLength else { return true }
        return payload.withUnsafeBytes { raw in
            for start in [0, (raw.count - compressionSampleLength) / 2] {
                let sample = UnsafeRawBufferPointer(rebasing: raw[start..<(start + compressionSampleLength)])
                if let packed = LZ4.compress(sample), packed.count < sample.count { return true }
            }
            return false
        }
    }

    /// Appends the complete frame (header then stored payload) to `buffer`.
    public static func seal(_ prepared: PreparedPayload, kind: UInt8, lsn: UInt64,
                            timestamp: Int64, syncedLSN: UInt64, salt: UInt32,
                            into buffer: inout [UInt8]) {
        buffer.append(contentsOf: sealedHeader(prepared, kind: kind, lsn: lsn, timestamp: timestamp,
                                               syncedLSN: syncedLSN, salt: salt))
        buffer.append(contentsOf: prepared.stored)
    }

    /// The 48-byte header that goes in front of `prepared.stored`: the header fields, then the
    /// CRC-32C of the payload and of those fields.
    static func sealedHeader(_ prepared: PreparedPayload, kind: UInt8, lsn: UInt64, timestamp: Int64,
                             syncedLSN: UInt64, salt: UInt32) -> [UInt8] {
        var header = FrameHeader(kind: kind, isCompressed: prepared.isCompressed,
                                 storedLength: prepared.stored.count, rawLength: prepared.rawLength,
                                 lsn: lsn, timestamp: timestamp, syncedLSN: syncedLSN, salt: salt,
                                 checksum: 0)
        var bytes = header.encodedPrefix()
        header.checksum = CRC32C.finalize(bytes.withUnsafeBytes { CRC32C.update(prepared.runningChecksum, $0) })
        withUnsafeBytes(of: header.checksum.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Encodes one frame in one call (prepare then seal).
    public static func encode(_ payload: [UInt8], kind: UInt8, lsn: UInt64, timestamp: Int64,
                              syncedLSN: UInt64, salt: UInt32) throws -> [UInt8] {
        var out: [UInt8] = []
        seal(try prepare(payload), kind: kind, lsn: lsn, timestamp: timestamp,
             syncedLSN: syncedLSN, salt: salt, into: &out)
        return out
    }

    /// Parses and bounds-checks the header at `offset`, without looking at the payload.
    ///
    /// Fails with `.truncated` when the header or its declared payload runs past `end`.
    public static func decodeHeader(_ bytes: UnsafeRawBufferPointer, at offset: Int,
                                    end: Int) -> Result<FrameHeader, FrameDefect> {
        guard end - offset >= FrameHeader.size else { return .failure(.truncated) }
        let base = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + FrameHeader.size])
        if base.allSatisfy({ $0 == 0 }) { return .failure(.zeroFilled) }
        func u32(_ at: Int) -> UInt32 { base.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian }
        func u64(_ at: Int) -> UInt64 { base.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian }
        guard u32(0) == FrameHeader.magic else { return .failure(.badMagic) }
        let flags = base[5]
        guard flags & ~(FrameHeader.compressedFlag | FrameHeader.encryptedFlag) == 0 else { return .failure(.badHeader("unknown flags")) }
        guard base[6] == 0, base[7] == 0 else { return .failure(.badHeader("reserved bytes set")) }
        let encrypted = flags & FrameHeader.encryptedFlag != 0
        let storedOnDisk = Int(u32(8)), raw = Int(u32(12))
        guard !encrypted || storedOnDisk >= EncryptionHeader.tagLength else { return .failure(.badHeader("encrypted payload shorter than its tag")) }
        // The bounds below are on the (compressed) payload, without the encryption tag.
        let stored = encrypted ? storedOnDisk - EncryptionHeader.tagLength : storedOnDisk
        let compressed = flags & FrameHeader.compressedFlag != 0
        guard raw <= FormatLimits.maximumFramePayload else { return .failure(.badHeader("payload length above limit")) }
        if compressed {
            // `raw <= 255 × stored`: LZ4 cannot expand more, so a small frame cannot make
            // the reader allocate up to `maximumFramePayload` for it.
            guard raw > 0, let bound = LZ4.compressBound(raw), stored > 0, stored <= bound,
                  raw <= FormatLimits.maximumCompressionRatio * stored else {
                return .failure(.badHeader("compressed length impossible for declared size"))
            }
        } else {
            guard stored == raw else { return .failure(.badHeader("stored and raw lengths differ")) }
        }
        let header = FrameHeader(kind: base[4], isCompressed: compressed, storedLength: storedOnDisk,
                                 rawLength: raw, lsn: u64(16),
                                 timestamp: Int64(bitPattern: u64(24)), syncedLSN: u64(32),
                                 salt: u32(40), checksum: u32(44), isEncrypted: encrypted)
        guard end - offset - FrameHeader.size >= storedOnDisk else { return .failure(.truncated) }
        return .success(header)
    }

    /// Whether the checksum of the frame whose header was decoded at `offset` matches.
    public static func verifyChecksum(_ bytes: UnsafeRawBufferPointer, at offset: Int,
                                      header: FrameHeader) -> Bool {
        let payloadStart = offset + FrameHeader.size
        let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + header.storedLength])
        let prefix = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 44])
        let crc = CRC32C.update(CRC32C.update(CRC32C.initial, payload), prefix)
        return CRC32C.finalize(crc) == header.checksum
    }

    /// The frame's payload, decompressed when needed. Call after ``verifyChecksum(_:at:header:)``.
    ///
    /// With `cipher` (the segment's), the frame must be encrypted and authenticate under its
    /// LSN and header fields; without one, it must not be encrypted.
    public static func payload(_ bytes: UnsafeRawBufferPointer, at offset: Int,
                               header: FrameHeader, cipher: (any FileCipher)? = nil) -> Result<[UInt8], FrameDefect> {
        let start = offset + FrameHeader.size
        let stored = UnsafeRawBufferPointer(rebasing: bytes[start..<start + header.storedLength])
        guard header.isEncrypted == (cipher != nil) else { return .failure(.encryptionMismatch) }
        if let cipher {
            let associated = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 44])
            var authenticated = false
            let opened = [UInt8](unsafeUninitializedCapacity: stored.count - EncryptionHeader.tagLength) { buffer, count in
                authenticated = cipher.open(stored, nonce: header.lsn, associatedData: associated,
                                            into: UnsafeMutableRawBufferPointer(buffer))
                count = buffer.count
            }
            guard authenticated else { return .failure(.authenticationFailed) }
            // An uncompressed payload is the decrypted bytes themselves, not a copy of them.
            return header.isCompressed ? opened.withUnsafeBytes { inflate($0, header: header) } : .success(opened)
        }
        return inflate(stored, header: header)
    }

    /// The plain payload from its stored (decrypted) form.
    private static func inflate(_ stored: UnsafeRawBufferPointer, header: FrameHeader) -> Result<[UInt8], FrameDefect> {
        if !header.isCompressed { return .success(Array(stored)) }
        guard let raw = LZ4.decompress(stored, originalSize: header.rawLength) else {
            return .failure(.badCompression)
        }
        return .success(raw)
    }

    /// The complete encrypted frame for `prepared`: the header (with the encrypted flag and
    /// the tag in its stored length), then the payload sealed by `cipher` with the LSN as
    /// nonce and the header's first 44 bytes as associated data; the checksum covers the
    /// ciphertext, so recovery tells torn writes from damage exactly as for plain frames.
    static func sealEncrypted(_ prepared: PreparedPayload, kind: UInt8, lsn: UInt64, timestamp: Int64,
                              syncedLSN: UInt64, salt: UInt32, cipher: any FileCipher) -> [UInt8] {
        var header = FrameHeader(kind: kind, isCompressed: prepared.isCompressed,
                                 storedLength: prepared.stored.count + EncryptionHeader.tagLength,
                                 rawLength: prepared.rawLength, lsn: lsn, timestamp: timestamp,
                                 syncedLSN: syncedLSN, salt: salt, checksum: 0, isEncrypted: true)
        let prefix = header.encodedPrefix()
        // The frame is built in one array: the prefix, room for the checksum, then the sealed
        // payload appended by the cipher; the checksum (of the sealed bytes, then the prefix)
        // goes in last.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(FrameHeader.size + prepared.stored.count + EncryptionHeader.tagLength)
        bytes.append(contentsOf: prefix)
        bytes.append(contentsOf: [0, 0, 0, 0] as [UInt8])
        prepared.stored.withUnsafeBytes { plaintext in
            prefix.withUnsafeBytes { cipher.seal(plaintext, nonce: lsn, associatedData: $0, appendingTo: &bytes) }
        }
        var crc = bytes.withUnsafeBytes { CRC32C.update(CRC32C.initial, UnsafeRawBufferPointer(rebasing: $0[FrameHeader.size...])) }
        crc = prefix.withUnsafeBytes { CRC32C.update(crc, $0) }
        header.checksum = CRC32C.finalize(crc)
        withUnsafeBytes(of: header.checksum.littleEndian) { checksum in
            bytes.replaceSubrange(prefix.count..<FrameHeader.size, with: checksum)
        }
        return bytes
    }

    /// Decodes one whole frame at `offset`: header, checksum, salt and payload.
    public static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int, end: Int,
                              expectedSalt: UInt32?, cipher: (any FileCipher)? = nil) -> Result<(FrameHeader, [UInt8]), FrameDefect> {
        switch decodeHeader(bytes, at: offset, end: end) {
        case .failure(let defect): return .failure(defect)
        case .success(let header):
            guard verifyChecksum(bytes, at: offset, header: header) else { return .failure(.checksumMismatch) }
            if let expectedSalt, header.salt != expectedSalt { return .failure(.saltMismatch) }
            return payload(bytes, at: offset, header: header, cipher: cipher).map { (header, $0) }
        }
    }
}
