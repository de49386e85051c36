/// A chunk payload of one block per column (`docs/FORMAT.md`, section 5.5, chunk flag
/// `0x04`, snapshots of major version 3): each column's encoding (``ColumnCodec``) stands
/// alone, LZ4-compressed when that makes it smaller.
///
/// A scan that compares one column then decompresses and decodes that column only, where a
/// chunk compressed whole (major versions 1 and 2) made it decompress every column first: a
/// count over people's ages no longer pays for their names.
///
/// Each block is `u32 storedLength`, `u32 rawLength`, `u8 flags` (bit 0: the stored bytes
/// are one LZ4 block), then `storedLength` bytes.
enum ColumnBlocks {
    /// Bytes before each block's stored bytes.
    static let headerSize = 9
    /// Block flag: the stored bytes are one LZ4 block of `rawLength` bytes.
    static let compressedFlag: UInt8 = 1

    /// The blocks of `columns`, and the sum of their raw lengths (the chunk's `rawLength`).
    /// With `compressing` false, every block is stored raw.
    static func encode(_ columns: [ColumnChunk], packing: Bool, compressing: Bool) -> (payload: [UInt8], rawLength: Int) {
        var payload = ByteWriter(capacity: (columns.first?.count ?? 0) * 16 + 64)
        var rawLength = 0
        for column in columns {
            var raw = ByteWriter(capacity: column.count * 8 + 16)
            ColumnCodec.encode(column, packing: packing, into: &raw)
            rawLength += raw.count
            if compressing, let packed = LZ4.compress(raw.bytes), packed.count < raw.count {
                payload.write(UInt32(packed.count))
                payload.write(UInt32(raw.count))
                payload.write(compressedFlag)
                payload.write(packed)
            } else {
                payload.write(UInt32(raw.count))
                payload.write(UInt32(raw.count))
                payload.write(UInt8(0))
                payload.write(raw.bytes)
            }
        }
        return (payload.bytes, rawLength)
    }

    /// Decodes the columns whose `wanted` entry is `true` (all when `nil`) from `payload`,
    /// whose blocks must add up to `rawLength` raw bytes; the others are stepped over
    /// without being decompressed (`nil`).
    ///
    /// - Throws: ``ColumnCodec/DecodeError`` when a block's lengths or flags are impossible,
    ///   it does not decompress to its raw length, or its column does not decode.
    /// - Complexity: O(bytes of the wanted columns + number of columns).
    static func decode(_ payload: UnsafeRawBufferPointer, rawLength: Int, table: TableDescriptor, rows: Int,
                       only wanted: [Bool]?) throws -> [ColumnChunk?] {
        var r = ColumnCodec.RawReader(payload)
        var rawTotal = 0
        var columns: [ColumnChunk?] = []
        columns.reserveCapacity(table.columns.count)
        for (index, descriptor) in table.columns.enumerated() {
            let header = try r.take(headerSize)
            let stored = Int(UInt32(littleEndian: header.loadUnaligned(as: UInt32.self)))
            let raw = Int(UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            let flags = header[8]
            let compressed = flags == compressedFlag
            guard flags & ~compressedFlag == 0, compressed || stored == raw,
                  raw <= FormatLimits.maximumCompressionRatio * stored else {
                throw ColumnCodec.DecodeError("column \(descriptor.name)'s block declares impossible lengths (\(stored) stored, \(raw) raw, flags \(flags))")
            }
            rawTotal += raw
            guard rawTotal <= rawLength else {
                throw ColumnCodec.DecodeError("the column blocks hold more than the chunk's \(rawLength) raw bytes")
            }
            let bytes = try r.take(stored)
            guard wanted?[index] ?? true else {
                columns.append(nil)
                continue
            }
            func decodeOne(_ raw: UnsafeRawBufferPointer) throws -> ColumnChunk? {
                var column = ColumnCodec.RawReader(raw)
                let decoded = try ColumnCodec.decodeColumn(&column, descriptor, rows: rows, wanted: true)
                guard column.remaining == 0 else {
                    throw ColumnCodec.DecodeError("\(column.remaining) unexpected bytes after column \(descriptor.name)")
                }
                return decoded
            }
            if compressed {
                guard let decompressed = LZ4.decompress(bytes, originalSize: raw) else {
                    throw ColumnCodec.DecodeError("column \(descriptor.name) does not decompress to its declared \(raw) bytes")
                }
                columns.append(try decompressed.withUnsafeBytes { try decodeOne($0) })
            } else {
                columns.append(try decodeOne(bytes))
            }
        }
        guard r.remaining == 0 else { throw ColumnCodec.DecodeError("\(r.remaining) unexpected bytes after the last column block") }
        guard rawTotal == rawLength else {
            throw ColumnCodec.DecodeError("the column blocks hold \(rawTotal) raw bytes, the chunk declares \(rawLength)")
        }
        return columns
    }
}
