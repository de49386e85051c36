/// The fixed 48-byte header in front of every frame's payload. Layout in `docs/FORMAT.md`.
public struct FrameHeader: Sendable, Hashable {
    /// `"FRM1"` read as a little-endian `UInt32`.
    static let magic: UInt32 = 0x314D_5246
    /// Size of the encoded header in bytes.
    public static let size = 48

    /// Flag bit: the payload is one LZ4 block.
    static let compressedFlag: UInt8 = 0x01
    /// Flag bit: the stored payload is sealed by the segment's ``FileCipher`` (ciphertext
    /// then a 16-byte tag; see `docs/FORMAT.md`, "Encryption").
    static let encryptedFlag: UInt8 = 0x02

    /// What the frame carries, defined by the layer above (save, batch update, …).
    public var kind: UInt8
    /// Whether the stored payload is LZ4-compressed.
    public var isCompressed: Bool
    /// Bytes of payload stored after the header.
    public var storedLength: Int
    /// Bytes of payload after decompression.
    public var rawLength: Int
    /// The frame's log sequence number.
    public var lsn: UInt64
    /// Commit time, microseconds since 1970-01-01 UTC.
    public var timestamp: Int64
    /// The highest LSN known to be on stable storage when this frame was written. Recovery
    /// uses it to tell a torn, never-acknowledged write from damage to synced data.
    public var syncedLSN: UInt64
    /// The salt of the log generation it was written in (the segment's salt).
    public var salt: UInt32
    /// CRC-32C of the stored payload followed by the first 44 header bytes.
    public var checksum: UInt32

    /// Whether the stored payload is encrypted (compressed first, when compressed).
    public var isEncrypted = false

    /// Bytes of the (possibly compressed) payload before encryption.
    var sealedPayloadLength: Int { isEncrypted ? storedLength - EncryptionHeader.tagLength : storedLength }

    /// Total bytes on disk: header plus stored payload.
    public var frameLength: Int { FrameHeader.size + storedLength }

    /// The first 44 bytes (everything the checksum covers).
    func encodedPrefix() -> [UInt8] {
        var w = ByteWriter(capacity: FrameHeader.size)
        w.write(FrameHeader.magic)
        w.write(kind)
        w.write((isCompressed ? FrameHeader.compressedFlag : 0) | (isEncrypted ? FrameHeader.encryptedFlag : 0))
        w.write(UInt16(0))
        w.write(UInt32(storedLength))
        w.write(UInt32(rawLength))
        w.write(lsn)
        w.write(timestamp)
        w.write(syncedLSN)
        w.write(salt)
        return w.bytes
    }
}

/// Why bytes at some offset are not a valid frame.
public enum FrameDefect: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer bytes remain than a header or its declared payload needs.
    case truncated
    /// The header is all zero bytes (typical of preallocated or zero-filled tails).
    case zeroFilled
    /// The magic number is wrong.
    case badMagic
    /// A length, flag or reserved field is impossible.
    case badHeader(String)
    /// The checksum does not match.
    case checksumMismatch
    /// The salt is not the segment's.
    case saltMismatch
    /// The payload does not decompress to the declared size.
    case badCompression
    /// The checksum matches but the encrypted payload does not authenticate: the frame was
    /// altered (or moved, or replayed) by something that also fixed its checksum.
    case authenticationFailed
    /// The frame's encryption does not match its segment's (a plain frame in an encrypted
    /// segment, or the reverse).
    case encryptionMismatch

    /// A short explanation for error messages.
    public var description: String {
        switch self {
        case .truncated: return "truncated frame"
        case .zeroFilled: return "zero-filled bytes where a frame was expected"
        case .badMagic: return "bad frame magic number"
        case .badHeader(let why): return "impossible frame header (\(why))"
        case .checksumMismatch: return "frame checksum mismatch"
        case .saltMismatch: return "frame from another log generation (salt mismatch)"
        case .badCompression: return "frame payload does not decompress to its declared size"
        case .authenticationFailed: return "encrypted frame does not authenticate (altered, moved or replayed)"
        case .encryptionMismatch: return "frame encryption does not match its segment's"
        }
    }
}
