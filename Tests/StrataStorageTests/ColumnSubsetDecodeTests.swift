import Testing
import StrataTestSupport
@testable import StrataStorage

/// Decoding some columns of a chunk (`ColumnCodec.decode(_:table:rows:only:)`,
/// `SnapshotChunkSource.decode(_:only:)`, issue 21): the wanted columns are exactly those of
/// a full decode, the others are stepped over with their lengths still checked.
@Suite struct ColumnSubsetDecodeTests {
    static let table = SnapshotCodecTests.table

    @Test func everySubsetDecodesAsTheFullDecode() throws {
        for seed in UInt64(0)..<6 {
            let chunk = SnapshotCodecTests.chunk(rows: 50 + Int(seed) * 13, seed: seed, nulls: seed % 2 == 0)
            var w = ByteWriter()
            ColumnCodec.encode(chunk, into: &w)
            let bytes = w.bytes
            for bits in 0..<(1 << Self.table.columns.count) {
                let wanted = Self.table.columns.indices.map { bits & (1 << $0) != 0 }
                let some = try bytes.withUnsafeBytes { try ColumnCodec.decode($0, table: Self.table, rows: chunk[0].count, only: wanted) }
                #expect(some.count == chunk.count)
                for column in chunk.indices {
                    #expect(some[column] == (wanted[column] ? chunk[column] : nil), "seed \(seed), mask \(bits), column \(column)")
                }
            }
        }
    }

    /// A column stepped over still has its header and lengths checked: cut short, or a bytes
    /// column whose last offset runs past the end, fails as the full decode does.
    @Test func aSkippedColumnsLengthsAreStillChecked() throws {
        let chunk = SnapshotCodecTests.chunk(rows: 40, seed: 9, nulls: false)
        var w = ByteWriter()
        ColumnCodec.encode(chunk, into: &w)
        let bytes = w.bytes
        let onlyKeys = [true, false, false, false]
        #expect(throws: (any Error).self) {
            _ = try Array(bytes.dropLast()).withUnsafeBytes { try ColumnCodec.decode($0, table: Self.table, rows: 40, only: onlyKeys) }
        }
        #expect(throws: (any Error).self) {
            _ = try (bytes + [0]).withUnsafeBytes { try ColumnCodec.decode($0, table: Self.table, rows: 40, only: onlyKeys) }
        }
        #expect(throws: (any Error).self) {
            _ = try bytes.withUnsafeBytes { try ColumnCodec.decode($0, table: Self.table, rows: 41, only: onlyKeys) }
        }
    }

    /// Through a snapshot's chunk source, from the image and from the file, plain and
    /// encrypted (authenticated before any column is decoded).
    @Test(arguments: [false, true], [false, true])
    func aSourceDecodesSomeColumns(encrypted: Bool, keepingImage: Bool) throws {
        let fs = SimulatedFileSystem()
        let cipher = SweepCipher.cipher(encrypted)
        let chunks = (0..<4).map { SnapshotCodecTests.chunk(rows: 100, seed: UInt64($0), nulls: $0 % 2 == 1) }
        let name = try SnapshotCodecTests.writeSnapshot(fs, chunks: chunks, cipher: cipher)
        let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: cipher)
        try reader.verifyChecksums(deferringAuthentication: true, keepingImage: keepingImage)
        let source = try #require(reader.takeVerifiedChunks())
        for index in chunks.indices {
            let some = try source.decode(index, only: [true, false, true, false])
            #expect(some == [chunks[index][0], nil, chunks[index][2], nil], "chunk \(index)")
            #expect(try source.decode(index, only: nil) == chunks[index].map(Optional.some))
        }
    }
}
