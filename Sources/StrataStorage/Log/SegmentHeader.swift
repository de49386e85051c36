/// The 32-byte header at the start of every log segment. Layout in `docs/FORMAT.md`.
struct SegmentHeader: Sendable, Hashable {
    /// `"STRATAWL"`.
    static let magic: [UInt8] = Array("STRATAWL".utf8)
    static let size = 32

    var majorVersion: UInt16 = FormatVersion.major
    var minorVersion: UInt16 = FormatVersion.minor
    /// The log generation's salt; every frame in the segment carries it.
    var salt: UInt32
    /// The LSN of the segment's first frame (also in the file name).
    var firstLSN: UInt64
    /// For an encrypted segment, the 32 bytes that follow the plain header: the log
    /// generation's 128-bit salt and the key check (`docs/FORMAT.md`, "Encryption").
    var encryption: EncryptionHeader?

    /// Flag bit in the header's flags word (bytes 24–27): an ``EncryptionHeader`` follows.
    static let encryptedFlag: UInt32 = 1

    /// Where the first frame starts: after the 32-byte header, and its encryption header.
    var frameStart: Int { SegmentHeader.size + (encryption == nil ? 0 : EncryptionHeader.size) }

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: SegmentHeader.size)
        w.write(SegmentHeader.magic)
        w.write(encryption == nil ? majorVersion : max(majorVersion, FormatVersion.encryptedMajor))
        w.write(minorVersion)
        w.write(salt)
        w.write(firstLSN)
        w.write(encryption == nil ? UInt32(0) : SegmentHeader.encryptedFlag)
        w.write(CRC32C.checksum(w.bytes))
        return w.bytes + (encryption?.encoded() ?? [])
    }

    /// Why a segment header is unusable.
    enum Defect: Error, Equatable {
        case truncated, badMagic, checksumMismatch
        case newerMajorVersion(UInt16)
    }

    static func decode(_ bytes: [UInt8]) -> Result<SegmentHeader, Defect> {
        guard bytes.count >= size else { return .failure(.truncated) }
        guard Array(bytes[0..<8]) == magic else { return .failure(.badMagic) }
        var r = ByteReader(bytes, offset: 8, end: size)
        do {
            let major = try r.readUInt16(), minor = try r.readUInt16()
            let salt = try r.readUInt32(), first = try r.readUInt64()
            let flags = try r.readUInt32()
            let crc = try r.readUInt32()
            guard CRC32C.checksum(Array(bytes[0..<28])) == crc else { return .failure(.checksumMismatch) }
            guard major <= FormatVersion.newestReadableMajor else { return .failure(.newerMajorVersion(major)) }
            var encryption: EncryptionHeader?
            if flags & SegmentHeader.encryptedFlag != 0 {
                guard bytes.count >= size + EncryptionHeader.size else { return .failure(.truncated) }
                guard let decoded = EncryptionHeader.decode(bytes[size...]) else { return .failure(.checksumMismatch) }
                encryption = decoded
            }
            return .success(SegmentHeader(majorVersion: major, minorVersion: minor, salt: salt, firstLSN: first,
                                          encryption: encryption))
        } catch {
            return .failure(.truncated)
        }
    }
}
