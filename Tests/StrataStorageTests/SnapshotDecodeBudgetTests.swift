import Testing
import StrataTestSupport
@testable import StrataStorage

/// The bounds on what a snapshot may make its reader allocate (`docs/FORMAT.md` 5.6): the
/// footer's row counts must fit the raw lengths, the raw lengths must be within LZ4's reach
/// of the stored ones, and all chunks together must decode within the file's budget.
@Suite struct SnapshotDecodeBudgetTests {
    static let flags = TableDescriptor(name: "Flags", columns: [.init(name: "on", kind: .bool)])
    static let directory = "/s"
    static let name = "snapshot-00000000000000000009.snap"

    /// A raw chunk payload of `rows` rows of one bool column with a validity bitmap, every
    /// bit zero (every row null): `8 + 2 × ceil(rows / 8)` bytes, of which all but the
    /// 8-byte column header are zeros.
    static func boolColumnHeader(rows: Int) -> [UInt8] {
        var w = ByteWriter(capacity: 8)
        w.write(ColumnKind.bool.rawValue)
        w.write(UInt8(0))  // plain
        w.write(UInt8(1))  // has validity
        w.write(UInt8(0))
        w.write(UInt32(rows))
        return w.bytes
    }

    /// A chunk as it is on disk: header, then `stored`; the checksum is right.
    static func chunk(table: Int, rows: Int, stored: [UInt8], rawLength: Int, compressed: Bool) -> [UInt8] {
        var header = ByteWriter(capacity: SnapshotLayout.chunkHeaderSize)
        header.write(SnapshotLayout.chunkMagic)
        header.write(UInt32(table))
        header.write(UInt32(rows))
        header.write(UInt32(stored.count))
        header.write(UInt32(rawLength))
        header.write(compressed ? SnapshotLayout.compressedFlag : 0)
        header.write([0, 0, 0] as [UInt8])
        var crc = stored.withUnsafeBytes { CRC32C.update(CRC32C.initial, $0) }
        crc = header.bytes.withUnsafeBytes { CRC32C.update(crc, $0) }
        header.write(CRC32C.finalize(crc))
        return header.bytes + stored
    }

    /// A whole snapshot file with valid checksums everywhere, holding `chunks` (each as
    /// built by ``chunk(table:rows:stored:rawLength:compressed:)``) of table `flags`.
    static func snapshot(chunks: [(bytes: [UInt8], rows: Int, rawLength: Int)]) -> [UInt8] {
        var w = ByteWriter(capacity: 1 << 20)
        w.write(SnapshotLayout.headerMagic)
        w.write(FormatVersion.major)
        w.write(FormatVersion.minor)
        w.write(UInt32(0))
        w.write(UInt64(9))
        w.write(Int64(0))
        w.write(UInt32(0))
        w.write(CRC32C.checksum(w.bytes))
        var infos: [SnapshotChunkInfo] = []
        for chunk in chunks {
            infos.append(SnapshotChunkInfo(table: 0, offset: Int64(w.count), length: chunk.bytes.count,
                                           rowCount: chunk.rows, rawLength: chunk.rawLength,
                                           statistics: [ColumnStatistics(nullCount: chunk.rows, range: nil)]))
            w.write(chunk.bytes)
        }
        var index = ByteWriter(capacity: 4096)
        SnapshotFooter.encode(metadata: [], tables: [flags], chunks: infos, into: &index)
        let indexOffset = w.count
        w.write(index.bytes)
        w.write(UInt64(indexOffset))
        w.write(UInt32(index.count))
        w.write(CRC32C.checksum(index.bytes))
        w.write(SnapshotLayout.trailerMagic)
        return w.bytes
    }

    /// A compressed chunk of `rows` all-null bool rows, built as a crafted LZ4 block.
    static func craftedBoolChunk(rows: Int) -> (bytes: [UInt8], rows: Int, rawLength: Int) {
        let rawLength = 8 + 2 * ((rows + 7) / 8)
        let stored = CraftedLZ4.block(prefix: boolColumnHeader(rows: rows), rawLength: rawLength)
        return (chunk(table: 0, rows: rows, stored: stored, rawLength: rawLength, compressed: true), rows, rawLength)
    }

    static func open(_ file: [UInt8], budget: SnapshotDecodeBudget = .standard) throws -> SnapshotReader {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(directory)
        try fs.open("\(directory)/\(name)", mode: .createNew).close()
        fs.setContents(of: "\(directory)/\(name)", to: file)
        return try SnapshotReader(fileSystem: fs, directory: directory, name: name, budget: budget)
    }

    /// The crafted chunks are real LZ4 and real columns: a small one opens and decodes.
    @Test func craftedChunkOfModestSizeDecodes() throws {
        let reader = try Self.open(Self.snapshot(chunks: [Self.craftedBoolChunk(rows: 5000)]))
        try reader.verifyChecksums()
        let columns = try reader.readChunk(0)
        #expect(columns.count == 1 && columns[0].count == 5000)
        #expect(columns[0].validity == [Bool](repeating: false, count: 5000))
    }

    /// The bomb: a 1 MiB snapshot, checksums valid, whose one chunk declares
    /// 2^30 - 64 bool rows with a validity bitmap (256 MiB raw, LZ4 at 255:1), which would
    /// decode to 2 GiB of `Bool`. It is refused at open, from the footer, naming the chunk.
    @Test func bitmapBombIsRefusedBeforeAnythingIsDecoded() throws {
        let rows = (1 << 30) - 64
        let file = Self.snapshot(chunks: [Self.craftedBoolChunk(rows: rows)])
        #expect(file.count > 1_000_000 && file.count < 1_100_000)
        let error = #expect(throws: StorageError.self) { _ = try Self.open(file) }
        #expect(error?.code == .corrupted)
        #expect(error?.file == "\(Self.directory)/\(Self.name)")
        #expect(error?.offset == Int64(SnapshotLayout.headerSize))
    }

    /// Many chunks, each of them modest, that together decode to more than the budget:
    /// the offset named is that of the first chunk past it.
    @Test func chunksAddingUpPastTheBudgetAreRefused() throws {
        let chunk = Self.craftedBoolChunk(rows: 1 << 16)  // about 128 KiB decoded from ~100 bytes
        let file = Self.snapshot(chunks: Array(repeating: chunk, count: 40))
        let budget = SnapshotDecodeBudget(allowance: 1 << 20, perFileByte: 512)
        let limit = budget.limit(fileSize: Int64(file.count))
        let error = #expect(throws: StorageError.self) { _ = try Self.open(file, budget: budget) }
        #expect(error?.code == .corrupted)
        let perChunk = Int64(SnapshotDecodeBudget.decodedSize(Self.flags.columns, rows: chunk.rows, rawLength: chunk.rawLength)!)
        let firstOver = Int((limit / perChunk))  // chunks 0...firstOver - 1 fit
        #expect(error?.offset == Int64(SnapshotLayout.headerSize + firstOver * chunk.bytes.count))
        // The same file opens under a budget that covers it.
        _ = try Self.open(file, budget: SnapshotDecodeBudget(allowance: 40 * Int(perChunk), perFileByte: 0))
    }

    /// A footer whose row count needs more raw bytes than the chunk declares is refused at
    /// open (the decoder would refuse it later, but only after decompressing).
    @Test func rowCountBeyondTheRawLengthIsRefused() throws {
        let raw = Self.boolColumnHeader(rows: 1_000_000) + [UInt8](repeating: 0, count: 16)
        let chunk = Self.chunk(table: 0, rows: 1_000_000, stored: raw, rawLength: raw.count, compressed: false)
        let error = #expect(throws: StorageError.self) {
            _ = try Self.open(Self.snapshot(chunks: [(chunk, 1_000_000, raw.count)]))
        }
        #expect(error?.code == .corrupted)
    }

    /// A compressed chunk that declares more raw bytes than 255 times its stored bytes is
    /// refused before the decompression buffer is allocated.
    @Test func rawLengthBeyondLZ4sReachIsRefused() throws {
        let rows = (1 << 30) - 64, rawLength = 8 + 2 * ((rows + 7) / 8)
        let stored = [UInt8](repeating: 0xFF, count: 64)
        let chunk = Self.chunk(table: 0, rows: rows, stored: stored, rawLength: rawLength, compressed: true)
        let error = #expect(throws: StorageError.self) {
            _ = try Self.open(Self.snapshot(chunks: [(chunk, rows, rawLength)]),
                              budget: SnapshotDecodeBudget(allowance: Int.max / 4, perFileByte: 0))
        }
        #expect(error?.code == .corrupted)
        #expect(error?.message.contains("raw bytes") == true)
    }

    /// The writer never writes what its reader would refuse: past the budget, a chunk that
    /// compresses too well is stored raw, and the snapshot opens and decodes.
    @Test func writerStoresRawRatherThanExceedTheBudget() throws {
        let budget = SnapshotDecodeBudget(allowance: 16 * 1024, perFileByte: 512)
        let fs = SimulatedFileSystem()
        try fs.createDirectory(Self.directory)
        let writer = try SnapshotWriter(fileSystem: fs, directory: Self.directory, lsn: 9, tables: [Self.flags],
                                        metadata: [], createdAt: 0, budget: budget)
        let column = ColumnChunk(values: .bool([Bool](repeating: false, count: 100_000)))
        for _ in 0..<8 { try writer.append(table: 0, columns: [column]) }
        try writer.finish()
        let reader = try SnapshotReader(fileSystem: fs, directory: Self.directory, name: writer.finalName, budget: budget)
        // Raw: the one column block's stored bytes are its raw bytes.
        #expect(reader.chunks.contains { $0.length - SnapshotLayout.chunkHeaderSize == $0.rawLength + ColumnBlocks.headerSize })
        #expect(reader.chunks.contains { $0.length - SnapshotLayout.chunkHeaderSize < $0.rawLength })
        for index in reader.chunks.indices { #expect(try reader.readChunk(index) == [column]) }
    }

    /// Bit-packed integers decode to more than LZ4's 255 bytes per byte: a constant column
    /// takes no bits at all. Past the budget, the writer stores such a chunk raw with its
    /// integers delta-encoded (8 bytes each), and the snapshot opens and decodes.
    @Test func writerDeltaEncodesIntegersRatherThanExceedTheBudget() throws {
        let budget = SnapshotDecodeBudget(allowance: 64 * 1024, perFileByte: 512)
        let fs = SimulatedFileSystem()
        try fs.createDirectory(Self.directory)
        let table = TableDescriptor(name: "Counter", columns: [ColumnDescriptor(name: "key", kind: .int64),
                                                               ColumnDescriptor(name: "value", kind: .int64)])
        let writer = try SnapshotWriter(fileSystem: fs, directory: Self.directory, lsn: 9, tables: [table],
                                        metadata: [], createdAt: 0, budget: budget)
        let rows = 20_000
        var chunks: [[ColumnChunk]] = []
        for c in 0..<8 {
            let keys = (0..<rows).map { Int64(c * rows + $0 + 1) }
            chunks.append([ColumnChunk(values: .int64(keys)), ColumnChunk(values: .int64([Int64](repeating: 7, count: rows)))])
            try writer.append(table: 0, columns: chunks[c])
        }
        try writer.finish()
        let reader = try SnapshotReader(fileSystem: fs, directory: Self.directory, name: writer.finalName, budget: budget)
        // Packed: a few dozen bytes for 20,000 rows. Past the budget: 8 bytes a value.
        #expect(reader.chunks.contains { $0.rawLength < 100 })
        #expect(reader.chunks.contains { $0.rawLength == 2 * (8 + 8 * rows) })
        for index in reader.chunks.indices { #expect(try reader.readChunk(index) == chunks[index]) }
    }
}
