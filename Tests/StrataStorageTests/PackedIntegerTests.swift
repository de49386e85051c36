import Testing
import PropertyBased
import StrataTestSupport
@testable import StrataStorage

/// Bit-packed integer columns and chunks of one block per column (`docs/FORMAT.md` 5.4–5.5,
/// snapshot major 3): every value comes back, at every width and length, the encoding chosen
/// is the smallest, and impossible widths and lengths are refused.
@Suite struct PackedIntegerTests {
    static let table = TableDescriptor(name: "T", columns: [ColumnDescriptor(name: "n", kind: .int64)])

    /// Encodes `values` as one column and decodes it back.
    static func roundTrip(_ values: [Int64], validity: [Bool]? = nil) throws -> (ColumnChunk, encoding: UInt8, length: Int) {
        var w = ByteWriter()
        ColumnCodec.encode([ColumnChunk(values: .int64(values), validity: validity)], into: &w)
        let decoded = try w.bytes.withUnsafeBytes { try ColumnCodec.decode($0, table: table, rows: values.count) }
        return (decoded[0], w.bytes[1], w.count)
    }

    /// `count` values spread over `width` bits above `reference`, drawn from `seed`.
    static func values(count: Int, width: Int, reference: Int64, seed: UInt64) -> [Int64] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let spread: UInt64 = width == 64 ? random.next() : random.next() & ((1 << UInt64(width)) - 1)
            // The first row takes the widest distance, so that the column needs every bit.
            let distance = i == 0 && width > 0 ? (width == 64 ? UInt64.max : (1 << UInt64(width)) - 1) : spread
            return reference &+ Int64(bitPattern: distance)
        }
    }

    @Test(arguments: [0, 1, 2, 7, 8, 9, 13, 31, 32, 33, 55, 56, 57, 63, 64])
    func everyWidthRoundTrips(width: Int) throws {
        for count in [0, 1, 2, 7, 8, 9, 63, 64, 65, 1_000] {
            for reference in [Int64.min, -1_000, 0, 42, Int64.max / 2] {
                let values = Self.values(count: count, width: width, reference: reference, seed: UInt64(count * 131 + width))
                let (decoded, encoding, length) = try Self.roundTrip(values)
                #expect(decoded == ColumnChunk(values: .int64(values)), "width \(width), \(count) rows, reference \(reference)")
                // Packed whenever a field fits in 56 bits and packing is smaller; never larger
                // than the 8 bytes a value of the delta encoding.
                #expect(length <= 8 + 8 * count || length <= 8 + 17, "width \(width), \(count) rows: \(length) bytes")
                if width > PackedIntegers.widestField && count > 2 {
                    #expect(encoding == ColumnCodec.deltaEncoding, "width \(width), \(count) rows")
                }
                if width <= 8 && count >= 64 {
                    #expect(encoding == PackedIntegers.packed || encoding == PackedIntegers.packedDelta, "width \(width)")
                    #expect(length <= 8 + 17 + (count * 8 + 7) / 8)
                }
            }
        }
    }

    /// Keys that grow by one take no bits (packed deltas); ages of 0–999 take 10.
    @Test func keysAndAgesPackToWhatTheyNeed() throws {
        let keys = (0..<10_000).map { Int64(1_000_001 + $0) }
        let (decodedKeys, keyEncoding, keyLength) = try Self.roundTrip(keys)
        #expect(decodedKeys == ColumnChunk(values: .int64(keys)))
        #expect(keyEncoding == PackedIntegers.packedDelta)
        #expect(keyLength == 8 + 17)
        var random = SplitMix64(seed: 7)
        let ages = (0..<10_000).map { _ in Int64(random.next() % 1_000) }
        let (decodedAges, ageEncoding, ageLength) = try Self.roundTrip(ages)
        #expect(decodedAges == ColumnChunk(values: .int64(ages)))
        #expect(ageEncoding == PackedIntegers.packed)
        #expect(ageLength == 8 + 9 + (10_000 * 10 + 7) / 8)
    }

    /// The bytes of docs/FORMAT.md 5.5, pinned: a change to the layout of encodings 2 and 3 or
    /// of column blocks would make every major-3 snapshot unreadable.
    @Test func theLayoutIsTheDocumentedOne() throws {
        func encoded(_ values: [Int64]) -> [UInt8] {
            var w = ByteWriter()
            ColumnCodec.encode([ColumnChunk(values: .int64(values))], into: &w)
            return w.bytes
        }
        let header: (UInt8, UInt8) -> [UInt8] = { encoding, rows in [2, encoding, 0, 0, rows, 0, 0, 0] }
        // Encoding 2: reference 1000, width 2, fields 0, 3, 1 least significant bit first.
        #expect(encoded([1_000, 1_003, 1_001]) == header(2, 3) + [0xE8, 0x03, 0, 0, 0, 0, 0, 0] + [2] + [0b0001_1100])
        // Encoding 3: first 100, reference 1, width 0 (no field bytes): 17 bytes for 40 rows.
        #expect(encoded((0..<40).map { 100 + Int64($0) }) == header(3, 40) + [100, 0, 0, 0, 0, 0, 0, 0] + [1, 0, 0, 0, 0, 0, 0, 0] + [0])
        // Encoding 1 when a field would need more than 56 bits.
        #expect(encoded([0, 1 << 60, -1])[1] == ColumnCodec.deltaEncoding)
        // A block: stored length, raw length, flags 0 (raw), the column's bytes.
        let column = encoded([1_000, 1_003, 1_001])
        let (payload, rawLength) = ColumnBlocks.encode([ColumnChunk(values: .int64([1_000, 1_003, 1_001]))], packing: true, compressing: true)
        #expect(rawLength == column.count)
        #expect(payload == [UInt8(column.count), 0, 0, 0, UInt8(column.count), 0, 0, 0, 0] + column)
    }

    /// Null rows keep their placeholder and their validity bit.
    @Test func nullsRoundTrip() throws {
        let values: [Int64] = [5, 0, 7, 0, 9]
        let validity = [true, false, true, false, true]
        let (decoded, _, _) = try Self.roundTrip(values, validity: validity)
        #expect(decoded == ColumnChunk(values: .int64(values), validity: validity))
    }

    /// A width above 56 bits, or packed bytes cut short, is refused, not read past.
    @Test func impossibleWidthsAndLengthsAreRefused() throws {
        var w = ByteWriter()
        ColumnCodec.encode([ColumnChunk(values: .int64((0..<100).map { Int64($0 % 7) }))], into: &w)
        let bytes = w.bytes
        #expect(bytes[1] == PackedIntegers.packed)
        var wide = bytes
        wide[8 + 8] = UInt8(PackedIntegers.widestField + 1)
        #expect(throws: ColumnCodec.DecodeError.self) {
            _ = try wide.withUnsafeBytes { try ColumnCodec.decode($0, table: Self.table, rows: 100) }
        }
        // Two fields of 60 bits with all their bytes there: only the width refuses them.
        let sixty: [UInt8] = [2, PackedIntegers.packed, 0, 0, 2, 0, 0, 0] + [UInt8](repeating: 0, count: 8) + [60]
            + [UInt8](repeating: 0xA5, count: PackedIntegers.packedLength(2, width: 60))
        for wanted in [[true], [false]] {
            #expect(throws: ColumnCodec.DecodeError.self) {
                _ = try sixty.withUnsafeBytes { try ColumnCodec.decode($0, table: Self.table, rows: 2, only: wanted) }
            }
        }
        for wanted in [[true], [false]] {
            #expect(throws: ColumnCodec.DecodeError.self) {
                _ = try Array(bytes.dropLast()).withUnsafeBytes { try ColumnCodec.decode($0, table: Self.table, rows: 100, only: wanted) }
            }
        }
        var unknown = bytes
        unknown[1] = 4
        #expect(throws: ColumnCodec.DecodeError.self) {
            _ = try unknown.withUnsafeBytes { try ColumnCodec.decode($0, table: Self.table, rows: 100) }
        }
    }

    /// A chunk of column blocks decodes the wanted columns only, and refuses blocks whose
    /// lengths or flags are impossible or that do not decompress to their raw length.
    @Test func columnBlocksDecodeWhatIsWantedAndRefuseDamage() throws {
        let table = SnapshotCodecTests.table
        let chunk = SnapshotCodecTests.chunk(rows: 300, seed: 3, nulls: true)
        let (payload, rawLength) = ColumnBlocks.encode(chunk, packing: true, compressing: true)
        func decode(_ bytes: [UInt8], rawLength: Int = rawLength, only wanted: [Bool]? = nil) throws -> [ColumnChunk?] {
            try bytes.withUnsafeBytes { try ColumnBlocks.decode($0, rawLength: rawLength, table: table, rows: 300, only: wanted) }
        }
        #expect(try decode(payload) == chunk.map(Optional.some))
        #expect(try decode(payload, only: [false, true, false, true]) == [nil, chunk[1], nil, chunk[3]])
        // At least one block is compressed, and one is not.
        let flags = Self.blockFlags(payload, columns: table.columns.count)
        #expect(flags.contains(ColumnBlocks.compressedFlag) && flags.contains(0), "\(flags)")

        #expect(throws: ColumnCodec.DecodeError.self) { _ = try decode(payload, rawLength: rawLength + 1) }
        #expect(throws: ColumnCodec.DecodeError.self) { _ = try decode(payload, rawLength: rawLength - 1) }
        #expect(throws: ColumnCodec.DecodeError.self) { _ = try decode(payload + [0]) }
        #expect(throws: ColumnCodec.DecodeError.self) { _ = try decode(Array(payload.dropLast())) }
        var unknownFlag = payload
        unknownFlag[8] |= 2
        #expect(throws: ColumnCodec.DecodeError.self) { _ = try decode(unknownFlag) }
        // A compressed block whose stored bytes are garbled does not decompress.
        let compressedAt = Self.blockOffsets(payload, columns: table.columns.count).first { payload[$0 + 8] == ColumnBlocks.compressedFlag }!
        var garbled = payload
        for i in compressedAt + 9..<compressedAt + 13 { garbled[i] = 0xFF }
        #expect(throws: ColumnCodec.DecodeError.self) { _ = try decode(garbled) }
    }

    static func blockOffsets(_ payload: [UInt8], columns: Int) -> [Int] {
        var offsets: [Int] = [], at = 0
        for _ in 0..<columns {
            offsets.append(at)
            let stored = Int(payload[at]) | Int(payload[at + 1]) << 8 | Int(payload[at + 2]) << 16 | Int(payload[at + 3]) << 24
            at += ColumnBlocks.headerSize + stored
        }
        return offsets
    }

    static func blockFlags(_ payload: [UInt8], columns: Int) -> [UInt8] {
        blockOffsets(payload, columns: columns).map { payload[$0 + 8] }
    }
}
