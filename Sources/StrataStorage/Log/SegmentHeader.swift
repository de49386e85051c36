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

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: SegmentHeader.size)
        w.write(SegmentHeader.magic)
        w.write(majorVersion)
        w.write(minorVersion)
        w.write(salt)
        w.write(firstLSN)
        w.write(UInt32(0))
        w.write(CRC32C.checksum(w.bytes))
        return w.bytes
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
            _ = try r.readUInt32()
            let crc = try r.readUInt32()
            guard CRC32C.checksum(Array(bytes[0..<28])) == crc else { return .failure(.checksumMismatch) }
            guard major <= FormatVersion.major else { return .failure(.newerMajorVersion(major)) }
            return .success(SegmentHeader(majorVersion: major, minorVersion: minor, salt: salt, firstLSN: first))
        } catch {
            return .failure(.truncated)
        }
    }
}
