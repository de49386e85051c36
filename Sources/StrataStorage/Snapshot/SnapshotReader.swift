/// Reads a snapshot: its header and footer index at open, then any chunk on demand.
///
/// Every length is bounded before allocation; a chunk is verified (magic, table, row count,
/// checksum, decompressed size, column layout) each time it is read.
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

    /// Opens `directory/name` and reads its header and footer.
    ///
    /// - Throws: ``StorageError/Code/corrupted`` naming the offset of the first bad byte range;
    ///   ``StorageError/Code/unsupportedFormat`` for a newer major version.
    public init(fileSystem: any FileSystem, directory: String, name: String) throws {
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
        _ = try r.readUInt32()
        let snapshotLSN = try r.readUInt64()
        let created = try r.readInt64()
        _ = try r.readUInt32()
        guard CRC32C.checksum(Array(header[0..<36])) == (try r.readUInt32()) else { throw corrupt(0, "header checksum mismatch") }
        guard major <= FormatVersion.major else {
            throw StorageError(.unsupportedFormat, "Snapshot \(name) was written in format version \(major); this build of Strata reads version \(FormatVersion.major) and older. Open the store with a newer Strata.", file: path)
        }
        let trailerOffset = size - Int64(SnapshotLayout.trailerSize)
        let trailer = try reading { try file.read(count: SnapshotLayout.trailerSize, at: trailerOffset) }
        var t = ByteReader(trailer)
        let indexOffset = Int64(bitPattern: try t.readUInt64())
        let indexLength = Int(try t.readUInt32())
        let indexCRC = try t.readUInt32()
        guard Array(try t.readBytes(8)) == SnapshotLayout.trailerMagic else { throw corrupt(trailerOffset, "bad trailer (unfinished or cut file)") }
        guard indexLength <= FormatLimits.maximumFooterSize, indexOffset >= Int64(SnapshotLayout.headerSize),
              indexOffset <= trailerOffset,
              indexOffset + Int64(indexLength) == trailerOffset else {
            throw corrupt(trailerOffset, "impossible footer bounds")
        }
        let index = try reading { try file.read(count: indexLength, at: indexOffset) }
        guard index.count == indexLength, CRC32C.checksum(index) == indexCRC else { throw corrupt(indexOffset, "footer checksum mismatch") }
        let decoded: SnapshotFooter.Decoded
        do {
            decoded = try SnapshotFooter.decode(index, dataStart: Int64(SnapshotLayout.headerSize), dataEnd: indexOffset)
        } catch {
            throw corrupt(indexOffset, "footer: \(error)")
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
    }

    /// Reads, verifies and decodes chunk number `index` (into ``chunks``).
    ///
    /// - Complexity: O(rows in the chunk).
    public func readChunk(_ index: Int) throws -> [ColumnChunk] {
        let info = chunks[index]
        let raw = try readVerifiedPayload(info)
        do {
            return try ColumnCodec.decode(raw, table: tables[info.table], rows: info.rowCount)
        } catch {
            throw StorageError(.corrupted, "Snapshot \(name) chunk #\(index) does not decode (\(error)).", file: path, offset: info.offset)
        }
    }

    /// Checks every chunk's checksum without decoding the columns.
    public func verifyChecksums() throws {
        for info in chunks { _ = try readStored(info) }
    }

    private func readStored(_ info: SnapshotChunkInfo) throws -> (header: [UInt8], stored: [UInt8], compressed: Bool) {
        let bytes = try WriteAheadLog.wrap("Reading snapshot \(name)") { try handle.read(count: info.length, at: info.offset) }
        func corrupt(_ reason: String) -> StorageError {
            StorageError(.corrupted, "Snapshot \(name) is damaged (\(reason)) at byte \(info.offset). Strata will fall back to an older snapshot when one is kept; otherwise restore from a backup.", file: path, offset: info.offset)
        }
        guard bytes.count == info.length else { throw corrupt("chunk cut short") }
        var r = ByteReader(bytes)
        guard try r.readUInt32() == SnapshotLayout.chunkMagic,
              Int(try r.readUInt32()) == info.table,
              Int(try r.readUInt32()) == info.rowCount else { throw corrupt("chunk header does not match the index") }
        let storedLength = Int(try r.readUInt32())
        let rawLength = Int(try r.readUInt32())
        let flags = try r.readUInt8()
        try r.skip(3)
        let crc = try r.readUInt32()
        guard storedLength == info.length - SnapshotLayout.chunkHeaderSize, rawLength == info.rawLength,
              flags & ~SnapshotLayout.compressedFlag == 0 else { throw corrupt("impossible chunk lengths") }
        let stored = Array(bytes[SnapshotLayout.chunkHeaderSize...])
        var check = stored.withUnsafeBytes { CRC32C.update(CRC32C.initial, $0) }
        check = bytes.withUnsafeBytes { CRC32C.update(check, UnsafeRawBufferPointer(rebasing: $0[0..<24])) }
        guard CRC32C.finalize(check) == crc else { throw corrupt("chunk checksum mismatch") }
        if flags == 0 && storedLength != rawLength { throw corrupt("impossible chunk lengths") }
        return (Array(bytes[0..<SnapshotLayout.chunkHeaderSize]), stored, flags != 0)
    }

    private func readVerifiedPayload(_ info: SnapshotChunkInfo) throws -> [UInt8] {
        let (_, stored, compressed) = try readStored(info)
        guard compressed else { return stored }
        guard let raw = LZ4.decompress(stored, originalSize: info.rawLength) else {
            throw StorageError(.corrupted, "Snapshot \(name) chunk at byte \(info.offset) does not decompress to its declared size.", file: path, offset: info.offset)
        }
        return raw
    }
}
