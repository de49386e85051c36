/// Fixed parts of the snapshot file layout (`docs/FORMAT.md`).
enum SnapshotLayout {
    /// `"STRATASN"`: the file header's magic.
    static let headerMagic: [UInt8] = Array("STRATASN".utf8)
    /// `"SNAPEND1"`: the trailer's magic.
    static let trailerMagic: [UInt8] = Array("SNAPEND1".utf8)
    /// `"CHK1"` as a little-endian UInt32: each chunk's magic.
    static let chunkMagic: UInt32 = 0x314B_4843
    static let headerSize = 40
    static let chunkHeaderSize = 28
    static let trailerSize = 24
    static let compressedFlag: UInt8 = 1
    /// Chunk flag: the stored bytes are sealed (ciphertext then a 16-byte tag).
    static let encryptedFlag: UInt8 = 2
    /// Chunk flag (snapshots of major version 3): the payload is one block per column, each
    /// compressed or not on its own (``ColumnBlocks``); never set together with
    /// ``compressedFlag``.
    static let columnBlocksFlag: UInt8 = 4
    /// File flag (header bytes 12–15): an ``EncryptionHeader`` follows the 40-byte header.
    static let encryptedFileFlag: UInt32 = 1
    /// The nonce that seals the footer (chunk numbers, the other nonces, stay far below it).
    static let footerNonce = UInt64.max
}

/// Where one chunk of a snapshot is and what it holds.
public struct SnapshotChunkInfo: Sendable, Hashable {
    /// Index of the table in ``SnapshotReader/tables``.
    public var table: Int
    /// Byte offset of the chunk header.
    public var offset: Int64
    /// Bytes on disk, header included.
    public var length: Int
    /// Rows in the chunk.
    public var rowCount: Int
    /// Bytes after decompression.
    public var rawLength: Int
    /// Per-column statistics, in the table's column order.
    public var statistics: ColumnStatisticsList

    /// Where a chunk is and what it holds.
    public init(table: Int, offset: Int64, length: Int, rowCount: Int, rawLength: Int, statistics: ColumnStatisticsList) {
        self.table = table
        self.offset = offset
        self.length = length
        self.rowCount = rowCount
        self.rawLength = rawLength
        self.statistics = statistics
    }
}
