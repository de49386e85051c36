/// A snapshot's chunks as read and checksummed at open, kept compressed in memory and
/// decoded one at a time when the layer above first needs each (`docs/FORMAT.md` §5 is the
/// layout; nothing here reads the file).
///
/// It holds the whole verified chunk region as one byte array (the snapshot's size, less
/// header and footer), which is freed when the last holder of the source lets go: the layer
/// above drops its reference to a chunk's source once that chunk is decoded.
///
/// Every chunk's header and checksum were verified before the source was made, so a flipped
/// bit on disk is found at open, never at a later decode. What a decode still checks (the
/// decompressed size, the column layout) can only fail for a chunk its writer got wrong.
public final class SnapshotChunkSource: Sendable {
    /// The snapshot's file name.
    public let name: String
    let path: String
    let tables: [TableDescriptor]
    /// Its chunks, in file order (as ``SnapshotReader/chunks``).
    public let chunks: [SnapshotChunkInfo]
    private let image: VerifiedImage

    init(name: String, path: String, tables: [TableDescriptor], chunks: [SnapshotChunkInfo], image: VerifiedImage) {
        self.name = name
        self.path = path
        self.tables = tables
        self.chunks = chunks
        self.image = image
    }

    /// Bytes held in memory: the verified, still compressed chunk region.
    public var residentBytes: Int { image.bytes.count }

    /// Decompresses and decodes chunk number `index` (into ``chunks``).
    ///
    /// Safe to call from several threads at once (the source is immutable).
    ///
    /// - Throws: ``StorageError/Code/corrupted`` naming the chunk's offset when its bytes do
    ///   not decompress to the declared size or its columns do not decode.
    /// - Complexity: O(rows in the chunk).
    public func decode(_ index: Int) throws -> [ColumnChunk] {
        let info = chunks[index]
        let start = Int(info.offset - image.start)
        return try image.bytes.withUnsafeBytes { all in
            try Self.decodeVerified(UnsafeRawBufferPointer(rebasing: all[start..<start + info.length]), info, index,
                                    table: tables[info.table], name: name, path: path)
        }
    }

    /// Decompresses (straight from `bytes`) and decodes one stored chunk, header included,
    /// whose header and checksum have been verified.
    static func decodeVerified(_ bytes: UnsafeRawBufferPointer, _ info: SnapshotChunkInfo, _ index: Int,
                               table: TableDescriptor, name: String, path: String) throws -> [ColumnChunk] {
        let compressed = bytes[20] & SnapshotLayout.compressedFlag != 0
        // An encrypted chunk was decrypted in place at open: plaintext, then the unused tag.
        let tag = bytes[20] & SnapshotLayout.encryptedFlag != 0 ? EncryptionHeader.tagLength : 0
        let stored = UnsafeRawBufferPointer(rebasing: bytes[SnapshotLayout.chunkHeaderSize..<bytes.count - tag])
        func decodeColumns(_ raw: UnsafeRawBufferPointer) throws -> [ColumnChunk] {
            do {
                return try ColumnCodec.decode(raw, table: table, rows: info.rowCount)
            } catch {
                throw StorageError(.corrupted, "Snapshot \(name) chunk #\(index) does not decode (\(error)).", file: path, offset: info.offset)
            }
        }
        guard compressed else { return try decodeColumns(stored) }
        guard let raw = LZ4.decompress(stored, originalSize: info.rawLength) else {
            throw StorageError(.corrupted, "Snapshot \(name) chunk at byte \(info.offset) does not decompress to its declared size.", file: path, offset: info.offset)
        }
        return try raw.withUnsafeBytes { try decodeColumns($0) }
    }
}
