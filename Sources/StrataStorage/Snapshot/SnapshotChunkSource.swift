/// A snapshot's chunks as read and checksummed at open, kept compressed in memory and
/// decoded one at a time when the layer above first needs each (`docs/FORMAT.md` §5 is the
/// layout; nothing here reads the file).
///
/// It holds the whole verified chunk region as one byte array (the snapshot's size, less
/// header and footer), which is freed when the last holder of the source lets go: the layer
/// above drops its reference to a chunk's source once that chunk is decoded.
///
/// Every chunk's header and checksum were verified before the source was made, so a flipped
/// bit on disk is found at open, never at a later decode. What a decode still checks can only
/// fail for a chunk rewritten together with its checksum: an encrypted chunk whose GCM tag
/// does not authenticate (when the open deferred authentication to the first decode,
/// `SnapshotReader.verifyChecksums(deferringAuthentication:)`), or a chunk whose decompressed
/// size or column layout its writer got wrong. Either throws a `corrupted` error naming the
/// chunk; nothing of it is returned.
public final class SnapshotChunkSource: Sendable {
    /// The snapshot's file name.
    public let name: String
    let path: String
    /// Its tables (as ``SnapshotReader/tables``).
    public let tables: [TableDescriptor]
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

    /// Whether the chunks are encrypted and still sealed: each is authenticated and
    /// decrypted by its first ``decode(_:)``.
    public var authenticatesAtDecode: Bool { image.sealedUnder != nil }

    /// Authenticates and decrypts (for a sealed encrypted chunk), decompresses and decodes
    /// chunk number `index` (into ``chunks``).
    ///
    /// Safe to call from several threads at once (the source is immutable).
    ///
    /// - Throws: ``StorageError/Code/corrupted`` naming the chunk's offset when it does not
    ///   authenticate, its bytes do not decompress to the declared size or its columns do
    ///   not decode.
    /// - Complexity: O(rows in the chunk).
    public func decode(_ index: Int) throws -> [ColumnChunk] {
        let info = chunks[index]
        let start = Int(info.offset - image.start)
        return try image.bytes.withUnsafeBytes { all in
            try Self.decodeVerified(UnsafeRawBufferPointer(rebasing: all[start..<start + info.length]), info, index,
                                    table: tables[info.table], name: name, path: path, sealedUnder: image.sealedUnder)
        }
    }

    /// Decodes one stored chunk, header included, whose header and checksum have been
    /// verified: an encrypted one is opened first when `sealedUnder` is its file cipher (into
    /// a buffer of its own, the stored bytes unchanged), or read as decrypted in place at open
    /// when `sealedUnder` is `nil`; then it is decompressed and its columns decoded.
    static func decodeVerified(_ bytes: UnsafeRawBufferPointer, _ info: SnapshotChunkInfo, _ index: Int,
                               table: TableDescriptor, name: String, path: String,
                               sealedUnder cipher: (any FileCipher)?) throws -> [ColumnChunk] {
        let compressed = bytes[20] & SnapshotLayout.compressedFlag != 0
        let payload = UnsafeRawBufferPointer(rebasing: bytes[SnapshotLayout.chunkHeaderSize...])
        guard bytes[20] & SnapshotLayout.encryptedFlag != 0 else {
            return try decodePayload(payload, compressed: compressed, info, index, table: table, name: name, path: path)
        }
        let plaintextLength = payload.count - EncryptionHeader.tagLength
        guard let cipher else {
            // Decrypted in place at open: the plaintext, then the unused tag.
            return try decodePayload(UnsafeRawBufferPointer(rebasing: payload[..<plaintextLength]), compressed: compressed,
                                     info, index, table: table, name: name, path: path)
        }
        return try withUnsafeTemporaryAllocation(byteCount: plaintextLength, alignment: 16) { plaintext in
            guard cipher.open(payload, nonce: UInt64(index), associatedData: UnsafeRawBufferPointer(rebasing: bytes[0..<24]),
                              into: plaintext) else {
                throw StorageError(.corrupted, "Snapshot \(name) is damaged (encrypted chunk #\(index) does not authenticate) at byte \(info.offset). Its checksum matches, so the chunk was rewritten together with its checksum, by someone or something without the store's key: this is not a bit flip. Restore the store from a backup.", file: path, offset: info.offset)
            }
            return try decodePayload(UnsafeRawBufferPointer(plaintext), compressed: compressed, info, index,
                                     table: table, name: name, path: path)
        }
    }

    /// Decompresses (straight from `stored`, when `compressed`) and decodes a chunk's payload.
    private static func decodePayload(_ stored: UnsafeRawBufferPointer, compressed: Bool, _ info: SnapshotChunkInfo, _ index: Int,
                                      table: TableDescriptor, name: String, path: String) throws -> [ColumnChunk] {
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
