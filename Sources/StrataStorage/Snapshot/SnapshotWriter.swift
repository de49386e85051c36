/// Writes a snapshot: an immutable image of the committed state at one LSN.
///
/// The file is written as `snapshot-<LSN>.snap.tmp`, synced, renamed to its final name and
/// the directory synced, all in ``finish()``; until then no reader can see it. Chunks are
/// independently checksummed; each column of a chunk is LZ4-compressed on its own (when that
/// makes it smaller), its integers bit-packed (`docs/FORMAT.md` 5.4–5.5).
///
/// For example:
/// ```swift
/// let writer = try SnapshotWriter(fileSystem: fs, directory: dir, lsn: 42,
///                                 tables: [todo], metadata: schemaBytes)
/// try writer.append(table: 0, columns: chunkColumns)
/// try writer.finish()
/// ```
public final class SnapshotWriter {
    let fileSystem: any FileSystem
    let directory: String
    /// The LSN whose state the snapshot holds.
    public let lsn: UInt64
    let tables: [TableDescriptor]
    let metadata: [UInt8]
    let temporaryName: String
    /// The final file name, `snapshot-<LSN>.snap`.
    public let finalName: String
    private let handle: any FileHandle
    private var buffer = ByteWriter(capacity: 1 << 20)
    private var offset: Int64 = 0
    private var chunks: [SnapshotChunkInfo] = []
    private var finished = false
    /// What the snapshot's chunks may decode to (see ``SnapshotDecodeBudget``).
    private let budget: SnapshotDecodeBudget
    /// What the chunks appended so far decode to, by ``SnapshotDecodeBudget/decodedSize(_:rows:rawLength:)``.
    private var decodedSize: Int64 = 0
    /// For an encrypted snapshot, the file cipher derived from its fresh salt.
    private let fileCipher: (any FileCipher)?
    /// The header's first 36 bytes: the footer's associated data when encrypted.
    private let headerFields: [UInt8]

    /// Starts a snapshot of `tables` at `lsn`. `metadata` is opaque bytes for the layer
    /// above (its schema, counters), stored in the footer.
    ///
    /// - Throws: ``StorageError`` when the temporary file cannot be created.
    public convenience init(fileSystem: any FileSystem, directory: String, lsn: UInt64,
                            tables: [TableDescriptor], metadata: [UInt8], createdAt: Int64,
                            cipher: (any StoreCipher)? = nil) throws {
        try self.init(fileSystem: fileSystem, directory: directory, lsn: lsn, tables: tables,
                      metadata: metadata, createdAt: createdAt, budget: .standard, cipher: cipher)
    }

    /// Starts a snapshot that keeps within `budget` (tests use a small one). With `cipher`,
    /// every chunk and the footer are sealed under a file key from a fresh random salt.
    init(fileSystem: any FileSystem, directory: String, lsn: UInt64, tables: [TableDescriptor],
         metadata: [UInt8], createdAt: Int64, budget: SnapshotDecodeBudget,
         cipher: (any StoreCipher)? = nil) throws {
        self.budget = budget
        self.fileSystem = fileSystem
        self.directory = directory
        self.lsn = lsn
        self.tables = tables
        self.metadata = metadata
        finalName = StoreFileNames.snapshot(lsn: lsn)
        temporaryName = finalName + ".tmp"
        let path = "\(directory)/\(temporaryName)"
        if fileSystem.exists(path) { try? fileSystem.remove(path) }
        handle = try WriteAheadLog.wrap("Creating snapshot \(temporaryName)") {
            try fileSystem.open(path, mode: .createNew)
        }
        let encryption = cipher.map { EncryptionHeader.new($0, kind: .snapshot) }
        fileCipher = encryption?.1
        buffer.write(SnapshotLayout.headerMagic)
        buffer.write(FormatVersion.snapshotMajor)
        buffer.write(FormatVersion.minor)
        buffer.write(encryption == nil ? UInt32(0) : SnapshotLayout.encryptedFileFlag)
        buffer.write(lsn)
        buffer.write(createdAt)
        buffer.write(UInt32(0))
        headerFields = buffer.bytes
        buffer.write(CRC32C.checksum(buffer.bytes))
        if let encryption { buffer.write(encryption.0.encoded()) }
    }

    /// Appends one chunk of rows of table number `table`; every column must have the same
    /// row count and the table's column kinds, in order.
    public func append(table: Int, columns: [ColumnChunk]) throws {
        precondition(!finished, "SnapshotWriter used after finish()")
        guard tables.indices.contains(table), columns.count == tables[table].columns.count,
              zip(columns, tables[table].columns).allSatisfy({ $0.values.kind == $1.kind }) else {
            throw StorageError(.invalidArgument, "Snapshot chunk does not match table #\(table)'s columns.")
        }
        let rows = columns.first?.count ?? 0
        guard columns.allSatisfy({ $0.count == rows && ($0.validity?.count ?? rows) == rows }) else {
            throw StorageError(.invalidArgument, "Snapshot chunk columns have different row counts.")
        }
        // One block per column, each LZ4-compressed when that makes it smaller.
        var (stored, rawLength) = ColumnBlocks.encode(columns, packing: true, compressing: true)
        guard rawLength <= FormatLimits.maximumChunkPayload else {
            throw StorageError(.tooLarge, "A snapshot chunk of \(rawLength) bytes exceeds the \(FormatLimits.maximumChunkPayload)-byte limit; use fewer rows per chunk.")
        }
        var flags = SnapshotLayout.columnBlocksFlag
        // Never nil: the encoding holds every row.
        var chunkDecodedSize = Int64(SnapshotDecodeBudget.decodedSize(tables[table].columns, rows: rows, rawLength: rawLength) ?? 0)
        // Readers refuse a snapshot that decodes to more than its budget. Compressed or
        // bit-packed columns can decode to far more than 8 bytes per byte (tens of MiB of
        // near-constant bitmaps or integers); when this chunk would not fit, its columns are
        // stored raw and their integers delta-encoded, at most 8 decoded bytes per byte, well
        // inside the budget.
        let end = offset + Int64(buffer.count + SnapshotLayout.chunkHeaderSize + stored.count)
        if decodedSize + chunkDecodedSize > budget.limit(fileSize: end) {
            (stored, rawLength) = ColumnBlocks.encode(columns, packing: false, compressing: false)
            chunkDecodedSize = Int64(SnapshotDecodeBudget.decodedSize(tables[table].columns, rows: rows, rawLength: rawLength) ?? 0)
            guard rawLength <= FormatLimits.maximumChunkPayload else {
                throw StorageError(.tooLarge, "A snapshot chunk of \(rawLength) bytes exceeds the \(FormatLimits.maximumChunkPayload)-byte limit; use fewer rows per chunk.")
            }
        }
        decodedSize += chunkDecodedSize
        if fileCipher != nil { flags |= SnapshotLayout.encryptedFlag }
        var header = ByteWriter(capacity: SnapshotLayout.chunkHeaderSize)
        header.write(SnapshotLayout.chunkMagic)
        header.write(UInt32(table))
        header.write(UInt32(rows))
        header.write(UInt32(stored.count + (fileCipher == nil ? 0 : EncryptionHeader.tagLength)))
        header.write(UInt32(rawLength))
        header.write(flags)
        header.write([0, 0, 0] as [UInt8])
        if let fileCipher {
            // Compressed first, then sealed: the chunk's number is the nonce, its header
            // (table, rows, lengths, flags) the associated data.
            let associated = header.bytes
            stored = stored.withUnsafeBytes { fileCipher.seal($0, nonce: UInt64(chunks.count), associatedData: associated) }
        }
        var crc = stored.withUnsafeBytes { CRC32C.update(CRC32C.initial, $0) }
        crc = header.bytes.withUnsafeBytes { CRC32C.update(crc, $0) }
        header.write(CRC32C.finalize(crc))
        let chunkOffset = offset + Int64(buffer.count)
        buffer.write(header.bytes)
        buffer.write(stored)
        chunks.append(SnapshotChunkInfo(table: table, offset: chunkOffset,
                                        length: SnapshotLayout.chunkHeaderSize + stored.count,
                                        rowCount: rows, rawLength: rawLength,
                                        statistics: ColumnStatisticsList(columns.map(ColumnStatistics.init(of:)))))
        if buffer.count >= 1 << 20 { try flushBuffer() }
    }

    /// Writes the footer, syncs, renames into place and syncs the directory.
    ///
    /// - Returns: the snapshot's size in bytes.
    @discardableResult
    public func finish() throws -> Int64 {
        precondition(!finished, "SnapshotWriter.finish() called twice")
        finished = true
        var index = ByteWriter(capacity: 4096)
        SnapshotFooter.encode(metadata: metadata, tables: tables, chunks: chunks, into: &index)
        var footer = index.bytes
        if let fileCipher {
            // The footer holds the schema and per-column minimum and maximum values.
            footer = footer.withUnsafeBytes { fileCipher.seal($0, nonce: SnapshotLayout.footerNonce, associatedData: headerFields) }
        }
        let indexOffset = offset + Int64(buffer.count)
        buffer.write(footer)
        buffer.write(UInt64(indexOffset))
        buffer.write(UInt32(footer.count))
        buffer.write(CRC32C.checksum(footer))
        buffer.write(SnapshotLayout.trailerMagic)
        try flushBuffer()
        try WriteAheadLog.wrap("Writing snapshot \(finalName)") {
            try handle.sync()
            try handle.close()
            try fileSystem.rename("\(directory)/\(temporaryName)", to: "\(directory)/\(finalName)")
            try fileSystem.syncDirectory(directory)
        }
        return offset
    }

    /// Removes the unfinished temporary file (after a failure).
    public func abandon() {
        finished = true
        try? fileSystem.remove("\(directory)/\(temporaryName)")
    }

    private func flushBuffer() throws {
        let bytes = buffer.bytes
        let at = offset
        try WriteAheadLog.wrap("Writing snapshot \(temporaryName)") { try handle.writeAll(bytes, at: at) }
        offset += Int64(bytes.count)
        buffer = ByteWriter(capacity: 1 << 20)
    }
}
