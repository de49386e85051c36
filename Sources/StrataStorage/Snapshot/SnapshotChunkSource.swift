/// A snapshot's chunks as checksummed at open, decoded one at a time when the layer above
/// first needs each (`docs/FORMAT.md` §5 is the layout).
///
/// The chunks come from one of two places (``Bytes``): the verified chunk region kept in
/// memory as one byte array (freed when the last holder of the source lets go: the layer
/// above drops its reference to a chunk's source once that chunk is decoded), or the
/// snapshot's open file, from which each decode reads its chunk again and verifies its header
/// and checksum again before using any of it, so that nothing but the chunks being decoded is
/// resident.
///
/// Either every chunk's header and checksum were verified before the source was made, so a
/// flipped bit on disk is found at open (one made on disk after the open is found by the
/// decode's own check), or the open left them to each decode
/// (`SnapshotReader.deferChunkVerification()`), which reads its chunk from the file and
/// verifies it before using a byte of it. What a decode checks beyond that can only fail for
/// a chunk rewritten together with its checksum: an encrypted chunk whose GCM tag does not
/// authenticate (when the open deferred authentication to the first decode,
/// `SnapshotReader.verifyChecksums(deferringAuthentication:)`), or a chunk whose decompressed
/// size or column layout its writer got wrong. Either throws a `corrupted` error naming the
/// chunk; nothing of it is returned.
public final class SnapshotChunkSource: Sendable {
    /// Where a source's chunks are read from.
    enum Bytes: Sendable {
        /// The verified chunk region, in memory.
        case image(VerifiedImage)
        /// The snapshot's open file; `cipher` is its file cipher when it is encrypted (every
        /// chunk is then authenticated by its decode).
        case file(any FileHandle, cipher: (any FileCipher)?)
    }

    /// The snapshot's file name.
    public let name: String
    let path: String
    /// Its tables (as ``SnapshotReader/tables``).
    public let tables: [TableDescriptor]
    /// Its chunks, in file order (as ``SnapshotReader/chunks``).
    public let chunks: [SnapshotChunkInfo]
    private let bytes: Bytes

    init(name: String, path: String, tables: [TableDescriptor], chunks: [SnapshotChunkInfo], bytes: Bytes) {
        self.name = name
        self.path = path
        self.tables = tables
        self.chunks = chunks
        self.bytes = bytes
    }

    /// Bytes held in memory: the verified, still compressed chunk region, or 0 when the
    /// chunks are read from the file at each decode.
    public var residentBytes: Int {
        if case .image(let image) = bytes { return image.bytes.count }
        return 0
    }

    /// Whether the chunks are encrypted and still sealed: each is authenticated and
    /// decrypted by its first ``decode(_:)``.
    public var authenticatesAtDecode: Bool {
        switch bytes {
        case .image(let image): return image.sealedUnder != nil
        case .file(_, let cipher): return cipher != nil
        }
    }

    /// Authenticates and decrypts (for a sealed encrypted chunk), decompresses and decodes
    /// chunk number `index` (into ``chunks``); a source reading the file reads the chunk and
    /// verifies its header and checksum first.
    ///
    /// Safe to call from several threads at once (the source is immutable; reads are
    /// positional).
    ///
    /// - Throws: ``StorageError/Code/corrupted`` naming the chunk's offset when it does not
    ///   verify or authenticate, its bytes do not decompress to the declared size or its
    ///   columns do not decode; ``StorageError/Code/io`` when reading it fails.
    /// - Complexity: O(rows in the chunk).
    public func decode(_ index: Int) throws -> [ColumnChunk] {
        try decode(index, only: nil).map { $0! }
    }

    /// ``decode(_:)`` of the columns whose `wanted` entry is `true` only (all when `nil`):
    /// the chunk is read, verified, authenticated and decompressed whole as by ``decode(_:)``,
    /// and only the wanted columns are decoded (``ColumnCodec``); the result has one entry per
    /// column of the chunk's table, `nil` for those not wanted.
    ///
    /// - Throws: as ``decode(_:)``.
    public func decode(_ index: Int, only wanted: [Bool]?) throws -> [ColumnChunk?] {
        let info = chunks[index]
        switch bytes {
        case .image(let image):
            let start = Int(info.offset - image.start)
            return try image.bytes.withUnsafeBytes { all in
                try Self.decodeVerified(UnsafeRawBufferPointer(rebasing: all[start..<start + info.length]), info, index,
                                        table: tables[info.table], name: name, path: path, sealedUnder: image.sealedUnder,
                                        only: wanted)
            }
        case .file(let handle, let cipher):
            return try withUnsafeTemporaryAllocation(byteCount: info.length, alignment: 16) { buffer in
                let read = try WriteAheadLog.wrap("Reading snapshot \(name)") { () throws -> Int in
                    var done = 0
                    while done < buffer.count {
                        let n = try handle.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: info.offset + Int64(done))
                        if n == 0 { break }
                        done += n
                    }
                    return done
                }
                let stored = UnsafeRawBufferPointer(rebasing: buffer[..<read])
                // An encrypted chunk's checksum is left to its GCM tag, checked next over the
                // same bytes (and its checksum after all when the tag fails: decodeVerified).
                _ = try SnapshotReader.checkStored(stored, info, encrypted: cipher != nil, checksum: cipher == nil, name: name, path: path)
                return try Self.decodeVerified(stored, info, index, table: tables[info.table], name: name, path: path,
                                               sealedUnder: cipher, only: wanted)
            }
        }
    }

    /// Decodes one stored chunk, header included, whose header and checksum have been
    /// verified: an encrypted one is opened first when `sealedUnder` is its file cipher (into
    /// a buffer of its own, the stored bytes unchanged), or read as decrypted in place at open
    /// when `sealedUnder` is `nil`; then it is decompressed and its columns decoded.
    static func decodeVerified(_ bytes: UnsafeRawBufferPointer, _ info: SnapshotChunkInfo, _ index: Int,
                               table: TableDescriptor, name: String, path: String,
                               sealedUnder cipher: (any FileCipher)?) throws -> [ColumnChunk] {
        try decodeVerified(bytes, info, index, table: table, name: name, path: path, sealedUnder: cipher, only: nil).map { $0! }
    }

    /// ``decodeVerified(_:_:_:table:name:path:sealedUnder:)`` of the columns whose `wanted`
    /// entry is `true` (all when `nil`); `nil` for each column not wanted.
    static func decodeVerified(_ bytes: UnsafeRawBufferPointer, _ info: SnapshotChunkInfo, _ index: Int,
                               table: TableDescriptor, name: String, path: String,
                               sealedUnder cipher: (any FileCipher)?, only wanted: [Bool]?) throws -> [ColumnChunk?] {
        let payloadFlags = bytes[20] & ~SnapshotLayout.encryptedFlag
        let payload = UnsafeRawBufferPointer(rebasing: bytes[SnapshotLayout.chunkHeaderSize...])
        guard bytes[20] & SnapshotLayout.encryptedFlag != 0 else {
            return try decodePayload(payload, payloadFlags: payloadFlags, info, index, table: table, name: name, path: path, only: wanted)
        }
        let plaintextLength = payload.count - EncryptionHeader.tagLength
        guard let cipher else {
            // Decrypted in place at open: the plaintext, then the unused tag.
            return try decodePayload(UnsafeRawBufferPointer(rebasing: payload[..<plaintextLength]), payloadFlags: payloadFlags,
                                     info, index, table: table, name: name, path: path, only: wanted)
        }
        return try withUnsafeTemporaryAllocation(byteCount: plaintextLength, alignment: 16) { plaintext in
            guard cipher.open(payload, nonce: UInt64(index), associatedData: UnsafeRawBufferPointer(rebasing: bytes[0..<24]),
                              into: plaintext) else {
                // Damage (a checksum that does not match) is told apart from a forgery.
                _ = try SnapshotReader.checkStored(bytes, info, encrypted: true, name: name, path: path)
                throw StorageError(.corrupted, "Snapshot \(name) is damaged (encrypted chunk #\(index) does not authenticate) at byte \(info.offset). Its checksum matches, so the chunk was rewritten together with its checksum, by someone or something without the store's key: this is not a bit flip. Restore the store from a backup.", file: path, offset: info.offset)
            }
            return try decodePayload(UnsafeRawBufferPointer(plaintext), payloadFlags: payloadFlags, info, index,
                                     table: table, name: name, path: path, only: wanted)
        }
    }

    /// Decompresses (straight from `stored`) and decodes a chunk's payload; `payloadFlags` are
    /// the chunk's flags without ``SnapshotLayout/encryptedFlag``: the payload is raw, one LZ4
    /// block, or a block per column (``ColumnBlocks``, only the wanted columns decompressed).
    private static func decodePayload(_ stored: UnsafeRawBufferPointer, payloadFlags: UInt8, _ info: SnapshotChunkInfo, _ index: Int,
                                      table: TableDescriptor, name: String, path: String, only wanted: [Bool]?) throws -> [ColumnChunk?] {
        func decodeColumns(_ raw: UnsafeRawBufferPointer) throws -> [ColumnChunk?] {
            do {
                return try ColumnCodec.decode(raw, table: table, rows: info.rowCount, only: wanted)
            } catch {
                throw StorageError(.corrupted, "Snapshot \(name) chunk #\(index) does not decode (\(error)).", file: path, offset: info.offset)
            }
        }
        if payloadFlags == SnapshotLayout.columnBlocksFlag {
            do {
                return try ColumnBlocks.decode(stored, rawLength: info.rawLength, table: table, rows: info.rowCount, only: wanted)
            } catch {
                throw StorageError(.corrupted, "Snapshot \(name) chunk #\(index) does not decode (\(error)).", file: path, offset: info.offset)
            }
        }
        guard payloadFlags == SnapshotLayout.compressedFlag else { return try decodeColumns(stored) }
        guard let raw = LZ4.decompress(stored, originalSize: info.rawLength) else {
            throw StorageError(.corrupted, "Snapshot \(name) chunk at byte \(info.offset) does not decompress to its declared size.", file: path, offset: info.offset)
        }
        return try raw.withUnsafeBytes { try decodeColumns($0) }
    }
}
