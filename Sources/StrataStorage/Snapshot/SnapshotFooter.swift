/// The footer index: metadata, table descriptors and the chunk directory with statistics.
enum SnapshotFooter {
    static func encode(metadata: [UInt8], tables: [TableDescriptor], chunks: [SnapshotChunkInfo],
                       into w: inout ByteWriter) {
        w.write(UInt32(metadata.count))
        w.write(metadata)
        w.write(UInt32(tables.count))
        for table in tables {
            w.writeString(table.name)
            w.write(UInt32(table.columns.count))
            for column in table.columns {
                w.writeString(column.name)
                w.write(column.kind.rawValue)
            }
        }
        w.write(UInt32(chunks.count))
        for chunk in chunks {
            w.write(UInt32(chunk.table))
            w.write(UInt64(chunk.offset))
            w.write(UInt32(chunk.length))
            w.write(UInt32(chunk.rowCount))
            w.write(UInt32(chunk.rawLength))
            for stats in chunk.statistics {
                w.write(UInt32(stats.nullCount))
                switch stats.range {
                case nil: w.write(UInt8(0))
                case .int(let lo, let hi)?: w.write(UInt8(1)); w.write(lo); w.write(hi)
                case .double(let lo, let hi)?: w.write(UInt8(2)); w.write(lo); w.write(hi)
                }
            }
        }
    }

    struct Decoded {
        var metadata: [UInt8]
        var tables: [TableDescriptor]
        var chunks: [SnapshotChunkInfo]
        /// The memory that decoding every chunk would take, at most (the sum of
        /// `SnapshotDecodeBudget.Shape.decodedSize`), counted up to the first chunk that takes
        /// it past `decodeLimit`.
        var decodedSize: Int64 = 0
        /// The first chunk whose decoded size takes the total past `decodeLimit`, if any.
        var firstChunkOverLimit: Int?
    }

    /// Decodes the index; every count is bounded by the bytes left before anything is
    /// allocated, every chunk must lie inside `[dataStart, dataEnd)` without overlap, and
    /// each chunk's raw length must be within LZ4's reach of its stored length and large
    /// enough for its row count.
    ///
    /// The decoded sizes are summed on the way (``Decoded/decodedSize``), and the first chunk
    /// that takes the sum past `decodeLimit` is noted rather than thrown here, so that the
    /// reader can name it in its error.
    static func decode(_ bytes: [UInt8], dataStart: Int64, dataEnd: Int64, decodeLimit: Int64 = .max) throws -> Decoded {
        var r = ByteReader(bytes)
        let metadata = Array(try r.readBytes(Int(try r.readUInt32())))
        let tableCount = Int(try r.readUInt32())
        guard tableCount <= r.remaining / 8 else { throw ColumnCodec.DecodeError("table count \(tableCount) is impossible") }
        var tables: [TableDescriptor] = []
        for _ in 0..<tableCount {
            let name = try r.readString()
            let columnCount = Int(try r.readUInt32())
            guard columnCount <= r.remaining / 5 else { throw ColumnCodec.DecodeError("column count is impossible") }
            var columns: [ColumnDescriptor] = []
            for _ in 0..<columnCount {
                let columnName = try r.readString()
                guard let kind = ColumnKind(rawValue: try r.readUInt8()) else { throw ColumnCodec.DecodeError("unknown column type") }
                columns.append(ColumnDescriptor(name: columnName, kind: kind))
            }
            tables.append(TableDescriptor(name: name, columns: columns))
        }
        let chunkCount = Int(try r.readUInt32())
        guard chunkCount <= r.remaining / 24 else { throw ColumnCodec.DecodeError("chunk count \(chunkCount) is impossible") }
        let shapes = tables.map { SnapshotDecodeBudget.Shape($0.columns) }
        let columnCounts = tables.map(\.columns.count)
        var chunks: [SnapshotChunkInfo] = []
        chunks.reserveCapacity(chunkCount)
        // Every chunk's statistics in one array, in chunk order; each chunk's list views its
        // run of it, set once the array is complete.
        var allStatistics: [ColumnStatistics] = []
        // Each statistic takes at least 5 bytes of what is left, which bounds the reservation.
        let widest = columnCounts.max() ?? 0
        allStatistics.reserveCapacity(widest == 0 ? 0 : min(chunkCount, r.remaining / 5 / widest) * widest)
        var expectedOffset = dataStart
        var decodedSize: Int64 = 0
        var firstChunkOverLimit: Int?
        for _ in 0..<chunkCount {
            let table = Int(try r.readUInt32())
            guard tables.indices.contains(table) else { throw ColumnCodec.DecodeError("chunk refers to table #\(table)") }
            let offset = Int64(bitPattern: try r.readUInt64())
            let length = Int(try r.readUInt32())
            let rows = Int(try r.readUInt32())
            let rawLength = Int(try r.readUInt32())
            guard offset == expectedOffset, length >= SnapshotLayout.chunkHeaderSize,
                  Int64(length) <= dataEnd - offset, rawLength <= FormatLimits.maximumChunkPayload else {
                throw ColumnCodec.DecodeError("chunk at \(offset) has impossible bounds")
            }
            // Both checked before anything is allocated for the chunk: LZ4 cannot expand its
            // stored bytes more than 255 times, and the row count must fit the raw bytes.
            guard rawLength <= FormatLimits.maximumCompressionRatio * (length - SnapshotLayout.chunkHeaderSize) else {
                throw ColumnCodec.DecodeError("chunk at \(offset) declares \(rawLength) raw bytes, more than its \(length - SnapshotLayout.chunkHeaderSize) stored bytes can hold")
            }
            guard let size = shapes[table].decodedSize(rows: rows, rawLength: rawLength) else {
                throw ColumnCodec.DecodeError("chunk at \(offset) declares \(rows) rows, more than its \(rawLength) raw bytes can hold")
            }
            if firstChunkOverLimit == nil {
                decodedSize += Int64(size)
                if decodedSize > decodeLimit { firstChunkOverLimit = chunks.count }
            }
            expectedOffset = offset + Int64(length)
            for _ in 0..<columnCounts[table] {
                let nulls = Int(try r.readUInt32())
                switch try r.readUInt8() {
                case 0: allStatistics.append(ColumnStatistics(nullCount: nulls, range: nil))
                case 1: allStatistics.append(ColumnStatistics(nullCount: nulls, range: .int(min: try r.readInt64(), max: try r.readInt64())))
                case 2: allStatistics.append(ColumnStatistics(nullCount: nulls, range: .double(min: try r.readDouble(), max: try r.readDouble())))
                default: throw ColumnCodec.DecodeError("unknown statistics kind")
                }
            }
            chunks.append(SnapshotChunkInfo(table: table, offset: offset, length: length, rowCount: rows,
                                            rawLength: rawLength, statistics: []))
        }
        guard expectedOffset == dataEnd else { throw ColumnCodec.DecodeError("chunks do not cover the data region") }
        guard r.isAtEnd else { throw ColumnCodec.DecodeError("unexpected bytes after the chunk directory") }
        // The runs follow each other: a chunk's starts where the one before it ended.
        var start = 0
        for i in chunks.indices {
            let count = columnCounts[chunks[i].table]
            chunks[i].statistics = ColumnStatisticsList(storage: allStatistics, start: start, count: count)
            start += count
        }
        return Decoded(metadata: metadata, tables: tables, chunks: chunks, decodedSize: decodedSize,
                       firstChunkOverLimit: firstChunkOverLimit)
    }
}
