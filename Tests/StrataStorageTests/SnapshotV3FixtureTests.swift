import Foundation
import Testing
import StrataTestSupport
@testable import StrataStorage

/// Reads the checked-in major-3 snapshot `Fixtures/v3/basic-snapshot` (on a copy) and checks
/// its version, tables, chunk flags, the integer encoding of every column and every row:
/// a change to the column blocks, the packed encodings or their decoders that would make
/// stores written since snapshot format 3.0 unreadable fails here.
@Suite struct SnapshotV3FixtureTests {
    /// Size and CRC-32C of the fixture file: it is never regenerated.
    static let files: [String: FixtureFingerprint] = [
        SnapshotV3Fixture.name: FixtureFingerprint(16825, 0x4C6D_CA2B),
    ]

    static func reader() throws -> (SnapshotReader, [UInt8]) {
        let source = BasicStoreFixture.fixturesRoot().appendingPathComponent(SnapshotV3Fixture.relativePath)
            .appendingPathComponent(SnapshotV3Fixture.name).path
        try #require(FileManager.default.fileExists(atPath: source), "fixture missing at \(source)")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: source)))
        let fs = SimulatedFileSystem()
        try fs.createDirectory("/s")
        let file = try fs.open("/s/\(SnapshotV3Fixture.name)", mode: .createNew)
        try file.writeAll(bytes, at: 0)
        try file.close()
        return (try SnapshotReader(fileSystem: fs, directory: "/s", name: SnapshotV3Fixture.name), bytes)
    }

    @Test func fixtureFilesAreUnchanged() throws {
        let directory = BasicStoreFixture.fixturesRoot().appendingPathComponent(SnapshotV3Fixture.relativePath).path
        #expect(try FixtureFingerprint.of(directory: directory) == Self.files)
    }

    @Test func everyRowDecodes() throws {
        let (reader, _) = try Self.reader()
        #expect(reader.formatVersion == (major: 3, minor: 0))
        #expect(reader.lsn == SnapshotV3Fixture.lsn && reader.createdAt == SnapshotV3Fixture.createdAt)
        #expect(reader.metadata == SnapshotV3Fixture.metadata)
        #expect(reader.tables == SnapshotV3Fixture.tables)
        try reader.verifyChecksums()
        let expected = SnapshotV3Fixture.chunks()
        #expect(reader.chunks.map(\.table) == expected.map(\.table))
        for (index, chunk) in expected.enumerated() {
            #expect(try reader.readChunk(index) == chunk.columns, "chunk \(index)")
        }
    }

    /// Every chunk is a chunk of column blocks, and each integer column uses the encoding
    /// its values call for: packed deltas for keys, packed for ages, constants and the
    /// nullable column, delta for 64-bit noise.
    @Test func theEncodingsAreThoseOfFormat3() throws {
        let (reader, bytes) = try Self.reader()
        var encodings: [[UInt8]] = []
        for info in reader.chunks {
            let at = Int(info.offset)
            #expect(bytes[at + 20] == SnapshotLayout.columnBlocksFlag, "chunk at \(at)")
            var offset = at + SnapshotLayout.chunkHeaderSize
            var chunk: [UInt8] = []
            for _ in reader.tables[info.table].columns {
                let stored = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
                let raw = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
                let block = Array(bytes[(offset + ColumnBlocks.headerSize)..<(offset + ColumnBlocks.headerSize + stored)])
                let column = bytes[offset + 8] == ColumnBlocks.compressedFlag ? try #require(LZ4.decompress(block, originalSize: raw)) : block
                chunk.append(column[1])
                offset += ColumnBlocks.headerSize + stored
            }
            encodings.append(chunk)
        }
        let (packed, packedDelta, delta, plain) = (PackedIntegers.packed, PackedIntegers.packedDelta, ColumnCodec.deltaEncoding, ColumnCodec.plainEncoding)
        // Basic-store's chunks: key (steps of 1,000,003), even, score, payload.
        for chunk in 0..<3 { #expect(encodings[chunk] == [packedDelta, plain, plain, plain], "chunk \(chunk)") }
        // Numbers: n, age, wide, constant, maybe, label.
        for chunk in 3..<5 { #expect(encodings[chunk] == [packedDelta, packed, delta, packed, packed, plain], "chunk \(chunk)") }
    }
}
